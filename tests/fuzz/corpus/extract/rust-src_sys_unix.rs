use std::env;
use std::path::PathBuf;

pub fn data_dir() -> PathBuf {
    match env::var_os("XDG_DATA_HOME") {
        Some(d) => PathBuf::from(d).join("kvs"),
        None => home().join(".local/share/kvs"),
    }
}

fn home() -> PathBuf {
    PathBuf::from(env::var_os("HOME").unwrap_or_default())
}
