//! Content-addressed cache of per-kernel results. The key hashes everything a prediction
//! depends on (PTX text, kernel, workload, device profile, model, counter, tool version), so an
//! unchanged kernel is not re-analysed and a changed input can never hit a stale entry. Entries
//! are written atomically; a corrupt or unreadable entry is a miss, never an error, because the
//! cache is only an accelerator. Location: `$KERNCAST_CACHE`, else `target/kerncast-cache`.

use crate::report::KernelReport;
use sha2::{Digest, Sha256};
use std::path::PathBuf;

pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub fn new(dir: PathBuf) -> Cache {
        Cache { dir }
    }

    /// The default location.
    pub fn default_dir() -> PathBuf {
        std::env::var_os("KERNCAST_CACHE")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("target/kerncast-cache"))
    }

    /// Identity of the running binary (its size and modification time): the crate version alone
    /// does not change when the tool is rebuilt with different models or counters, and a
    /// rebuilt tool must not reuse results of the old one.
    pub fn tool_fingerprint() -> String {
        std::env::current_exe()
            .and_then(std::fs::metadata)
            .map(|m| {
                let t = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                format!("{}:{t}", m.len())
            })
            .unwrap_or_default()
    }

    /// A key from the parts a result depends on (length-prefixed, so parts cannot run together).
    pub fn key(parts: &[&str]) -> String {
        let mut h = Sha256::new();
        for p in parts {
            h.update((p.len() as u64).to_le_bytes());
            h.update(p.as_bytes());
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir
            .join(&key[..2.min(key.len())])
            .join(format!("{key}.json"))
    }

    pub fn get(&self, key: &str) -> Option<KernelReport> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Stores a result; failures to write are ignored (the next run recomputes).
    pub fn put(&self, key: &str, r: &KernelReport) {
        if let Ok(text) = serde_json::to_string(r) {
            let _ = crate::check::write_atomic(&self.path(key), text.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_key_separation() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::new(dir.path().to_path_buf());
        let k = Cache::key(&["ptx", "kernel"]);
        assert_ne!(k, Cache::key(&["ptxk", "ernel"]));
        assert_eq!(k, Cache::key(&["ptx", "kernel"]));
        assert!(c.get(&k).is_none());
        let r = crate::report::sample::report().kernels[0].clone();
        c.put(&k, &r);
        assert_eq!(c.get(&k), Some(r));
        std::fs::write(c.path(&k), "{ broken").unwrap();
        assert!(c.get(&k).is_none(), "a corrupt entry is a miss");
    }
}
