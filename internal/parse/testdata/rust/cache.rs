use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Largest number of entries kept before the oldest are evicted.
pub const MAX_ENTRIES: usize = 1024;

/// One cached value and when it was stored.
#[derive(Debug, Clone)]
pub struct Entry {
    pub value: String,
    stored: Instant,
}

pub enum Lookup {
    Hit(String),
    Miss,
}

pub trait Store {
    fn get(&self, key: &str) -> Option<&Entry>;
}

/// A cache whose entries expire after a fixed time.
pub struct TtlCache {
    entries: HashMap<String, Entry>,
    ttl: Duration,
}

impl TtlCache {
    pub fn new(ttl: Duration) -> Self {
        TtlCache { entries: HashMap::new(), ttl }
    }

    /// Looks a key up, treating expired entries as missing.
    pub fn lookup(&self, key: &str) -> Lookup {
        match self.entries.get(key) {
            Some(e) if e.stored.elapsed() < self.ttl => Lookup::Hit(e.value.clone()),
            _ => Lookup::Miss,
        }
    }

    pub fn insert(&mut self, key: String, value: String) {
        if self.entries.len() >= MAX_ENTRIES {
            // FIXME: evict the oldest entry instead of refusing
            eprintln!("cache is full, dropping key {}", key);
            return;
        }
        self.entries.insert(key, Entry { value, stored: Instant::now() });
    }
}

impl Store for TtlCache {
    fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.get(key)
    }
}

macro_rules! hit {
    ($v:expr) => { Lookup::Hit($v.to_string()) };
}

fn describe(l: &Lookup) -> String {
    match l {
        Lookup::Hit(v) => format!("hit with value {}", v),
        Lookup::Miss => String::from("miss"),
    }
}
