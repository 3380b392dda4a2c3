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

// a block in the macro's own syntax is left as it is, and what follows it is still read
export_fn! {
    fn ring_len(r: *const Ring) -> usize {
        0
    } ?= 0
}

impl Ring {
    pub(crate) fn wrap(v: u8) -> Ring {
        Ring
    }
}
