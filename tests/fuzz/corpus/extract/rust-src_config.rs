//! Reading the configuration file.
use std::fs;
use std::path::{Path, PathBuf};

pub struct Config {
    pub path: PathBuf,
    pub in_memory: bool,
}

impl Config {
    pub fn new() -> Self {
        Config {
            path: PathBuf::from("kvs.db"),
            in_memory: true,
        }
    }

    pub fn validate(&self) -> bool {
        self.in_memory || self.path.extension().is_some()
    }
}

/// Load the configuration, falling back to defaults when the file is missing.
pub fn load(path: &Path) -> Config {
    let mut cfg = Config::new();
    if let Ok(text) = fs::read_to_string(path) {
        for line in text.lines() {
            if let Some(p) = line.strip_prefix("path = ") {
                cfg.path = PathBuf::from(p.trim());
                cfg.in_memory = false;
            }
        }
    }
    if !cfg.validate() {
        cfg = Config::new();
    }
    cfg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        let cfg = Config::new();
        let ok = cfg.validate();
        assert!(ok);
    }
}
