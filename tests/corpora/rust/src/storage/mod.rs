//! Storage backends.
pub mod disk;

use std::collections::HashMap;

pub trait Backend {
    fn name(&self) -> &str;
    fn get(&self, key: &str) -> Option<String>;
    fn put(&mut self, key: &str, value: &str);

    fn describe(&self) -> String {
        let name = self.name();
        name.to_string() + " backend"
    }
}

pub struct MemoryStore {
    entries: HashMap<String, String>,
}

impl MemoryStore {
    pub fn new() -> Self {
        MemoryStore {
            entries: HashMap::new(),
        }
    }
}

impl Backend for MemoryStore {
    fn name(&self) -> &str {
        "memory"
    }

    fn get(&self, key: &str) -> Option<String> {
        self.entries.get(&normalize_key(key)).cloned()
    }

    fn put(&mut self, key: &str, value: &str) {
        self.entries.insert(normalize_key(key), value.to_string());
    }
}

fn normalize_key(key: &str) -> String {
    key.trim().to_lowercase()
}

/// The backend a configuration chose.
pub enum Kind {
    Memory(MemoryStore),
    Disk(disk::DiskStore),
}

pub fn kind_name(kind: &Kind) -> &str {
    match kind {
        Kind::Memory(m) => m.name(),
        Kind::Disk(d) => d.name(),
    }
}
