use std::env;
use std::path::PathBuf;

pub fn data_dir() -> PathBuf {
    PathBuf::from(env::var_os("APPDATA").unwrap_or_default()).join("kvs")
}
