//! A temporary file of rows' bytes, for the bulk runs that must not hold their texts in
//! memory: a similarity run's records (`similarity::bulk`, written a chunk at a time by
//! whichever worker sketched them) and the texts the dedup decision reads in the bulk
//! fingerprint pairs (`fingerprints::pairs::texts`). Each write goes at a place reserved by an atomic
//! counter (no lock, no order); rows are read back by position.
//!
//! The file is unlinked as soon as it is made: nothing is left behind by a crash or a
//! cancel, and the space is freed when the last handle closes. Reads come from the page
//! cache while it holds the file (1M Chinese paragraphs: about 1 GB).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where a row's record is: byte offset and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Loc {
    pub offset: u64,
    pub len: u32,
}

pub struct Spill {
    file: File,
    end: AtomicU64,
}

impl Spill {
    /// A new, already unlinked file in `dir`.
    pub fn create(dir: &Path) -> io::Result<Spill> {
        static SERIAL: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        for _ in 0..16 {
            let name =
                format!("simhash-bulk-{}-{}-{}.tmp", std::process::id(), nanos, SERIAL.fetch_add(1, Ordering::Relaxed));
            let path = dir.join(name);
            match OpenOptions::new().read(true).write(true).create_new(true).open(&path) {
                Ok(file) => {
                    std::fs::remove_file(&path)?;
                    return Ok(Spill { file, end: AtomicU64::new(0) });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::new(io::ErrorKind::AlreadyExists, "no free name for the spill file"))
    }

    /// Writes `bytes` at a newly reserved place; its offset.
    pub fn append(&self, bytes: &[u8]) -> io::Result<u64> {
        let at = self.end.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        self.file.write_all_at(bytes, at)?;
        Ok(at)
    }

    /// Reads a row's record into `buf`.
    pub fn read<'a>(&self, loc: Loc, buf: &'a mut Vec<u8>) -> io::Result<&'a [u8]> {
        buf.resize(loc.len as usize, 0);
        self.file.read_exact_at(buf, loc.offset)?;
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_come_back_and_no_file_is_left() {
        let dir = std::env::temp_dir().join(format!("simhash-spill-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let s = Spill::create(&dir).expect("spill");
        assert_eq!(std::fs::read_dir(&dir).expect("list").count(), 0, "unlinked at once");
        let a = s.append("新华社".as_bytes()).expect("write");
        let b = s.append(b"hello").expect("write");
        let mut buf = Vec::new();
        assert_eq!(s.read(Loc { offset: b, len: 5 }, &mut buf).expect("read"), b"hello");
        assert_eq!(s.read(Loc { offset: a, len: 9 }, &mut buf).expect("read"), "新华社".as_bytes());
        assert_eq!(s.end.load(Ordering::Relaxed), 14);
        std::fs::remove_dir(&dir).expect("empty dir");
    }
}
