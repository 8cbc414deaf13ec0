//! Small helpers shared by the backends.

/// The longest record a disk store accepts.
pub const MAX_RECORD: usize = kib(4);

pub const fn kib(n: usize) -> usize {
    n * 1024
}

/// A short hexadecimal checksum of a record, to detect torn writes.
pub fn checksum(data: &str) -> String {
    let mut h: u32 = 2166136261;
    for b in data.bytes() {
        h = (h ^ b as u32).wrapping_mul(16777619);
    }
    format!("{:08x}", h)
}

/// Lines kept in memory until the store is flushed.
#[derive(Default)]
pub struct Log {
    lines: Vec<String>,
}

impl Log {
    pub fn push(&mut self, line: &str) {
        self.lines.push(line.to_string());
    }
}

/// Both values of an expression evaluated twice.
macro_rules! twice {
    ($e:expr) => {
        ($e, $e)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_sums() {
        assert_eq!(kib(1), 1024);
        let mut log = Log::default();
        log.push(&format!("{}", checksum("k=v")));
    }

    #[test]
    fn twice_is_a_pair() {
        let (a, b) = twice!(checksum("k=v"));
        assert_eq!(a, b);
        assert_eq!(kib(0), 0);
    }
}

/// The length of s in bytes.
pub fn measure(s: &str) -> usize {
    s.len()
}

/// Helpers nested in functions, each visible only inside its own.
pub fn width(s: &str) -> usize {
    fn measure(s: &str) -> usize {
        s.chars().count()
    }
    measure(s)
}

pub fn height(s: &str) -> usize {
    fn imp(s: &str) -> usize {
        s.lines().count()
    }
    imp(s)
}

pub fn depth(s: &str) -> usize {
    fn imp(s: &str) -> usize {
        s.matches('(').count()
    }
    fn deepest(s: &str) -> usize {
        imp(s) + measure(s)
    }
    deepest(s)
}

/// The line ending, by a helper defined once per platform.
pub fn newline() -> &'static str {
    #[cfg(windows)]
    fn imp() -> &'static str {
        "\r\n"
    }
    #[cfg(not(windows))]
    fn imp() -> &'static str {
        "\n"
    }
    imp()
}
