//! A backend that appends checksummed records to a file.
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::Backend;
use crate::util::{checksum, Log, MAX_RECORD};

pub struct DiskStore {
    path: PathBuf,
    cache: Vec<(String, String)>,
    log: Log,
}

impl DiskStore {
    pub fn open(path: &Path) -> Self {
        let mut store = Self::with_path(path);
        store.cache = load(path);
        store
    }

    fn with_path(path: &Path) -> Self {
        DiskStore {
            path: path.to_path_buf(),
            cache: Vec::new(),
            log: Log::default(),
        }
    }

    /// Every record read back or written, oldest first.
    pub fn entries(&self) -> Vec<(String, String)> {
        self.cache.clone()
    }
}

/// Read back every intact record of a store file.
pub fn load(path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines().filter_map(|line| parse_record(line)).collect()
}

fn parse_record(line: &str) -> Option<(String, String)> {
    let (sum, rest) = line.split_once(' ')?;
    let (k, v) = rest.split_once('=')?;
    if sum != checksum(rest) {
        return None;
    }
    Some((k.to_string(), v.to_string()))
}

impl Backend for DiskStore {
    fn name(&self) -> &str {
        "disk"
    }

    fn get(&self, key: &str) -> Option<String> {
        let hit = self.cache.iter().rev().find(|(k, _)| k == key);
        hit.map(|(_, v)| v.clone())
    }

    fn put(&mut self, key: &str, value: &str) {
        self.append(key, value);
        self.cache.push((key.to_string(), value.to_string()));
    }
}

impl DiskStore {
    fn append(&mut self, key: &str, value: &str) {
        let record = format!("{}={}", key, value);
        if record.len() > MAX_RECORD {
            return;
        }
        self.log.push(&record);
        let sum = checksum(&record);
        let mut f = OpenOptions::new().create(true).append(true).open(&self.path).unwrap();
        writeln!(f, "{} {}", sum, record).unwrap();
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_record, DiskStore};
    use std::path::Path;

    #[test]
    fn a_bad_record_is_skipped() {
        let mut store = DiskStore::with_path(Path::new("unused"));
        store.append("k", "v");
        let record = parse_record("0 k=v");
        assert!(record.is_none());
    }
}
