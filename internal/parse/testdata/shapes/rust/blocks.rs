//! A runtime module whose code sits in feature blocks.

cfg_rt! {
    use crate::runtime::context;

    /// Guards the runtime while it runs a task.
    #[derive(Debug)]
    pub(crate) struct EnterGuard {
        depth: usize,
    }

    #[track_caller]
    pub(crate) fn enter_runtime(allow_block: bool) -> EnterGuard {
        EnterGuard { depth: 0 }
    }

    cfg_rt_multi_thread! {
        impl EnterGuard {
            pub fn block_in_place(&self) {}
        }
    }
}

impl Handle {
    cfg_io! {
        pub(crate) fn io(&self) -> &IoHandle {
            &self.io
        }
    }
}

lazy_static! {
    static ref TABLE: Vec<u8> = Vec::new();
}

pub(crate) fn disallow_blocking() -> bool {
    let v = vec! { 1, 2 };
    v.is_empty()
}
