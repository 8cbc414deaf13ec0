//! kvs: a tiny key-value store with memory and disk backends.
mod config;
mod storage;
mod sys;
mod util;

use crate::config::load;
use crate::storage::{Backend, MemoryStore};
use crate::sys::data_dir;

fn open_backend(cfg: &config::Config) -> Box<dyn Backend> {
    if cfg.in_memory {
        Box::new(MemoryStore::new())
    } else {
        Box::new(storage::disk::DiskStore::open(&cfg.path))
    }
}

/// Copies what the disk store holds into a fresh memory store.
fn load_into_memory(cfg: &config::Config) -> MemoryStore {
    let disk = storage::disk::DiskStore::open(&cfg.path);
    let mut mem = MemoryStore::new();
    for (k, v) in disk.entries() {
        mem.put(&k, &v);
    }
    mem
}

fn main() {
    let dir = data_dir();
    let cfg = load(&dir.join("kvs.toml"));
    let mut store = open_backend(&cfg);
    for arg in std::env::args().skip(1) {
        match arg.split_once('=') {
            Some((k, v)) => store.put(k, v),
            None => {
                let value = store.get(&arg).unwrap_or_default();
                println!("{}", value);
            }
        }
    }
    let summary = store.describe();
    let kind = if cfg.in_memory {
        storage::Kind::Memory(load_into_memory(&cfg))
    } else {
        storage::Kind::Disk(storage::disk::DiskStore::open(&cfg.path))
    };
    let name = storage::kind_name(&kind);
    eprintln!("{} ({})", summary, name);
}
