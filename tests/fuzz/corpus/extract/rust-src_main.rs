//! kvs: a tiny key-value store with memory and disk backends.
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
    eprintln!("{}", summary);
}
