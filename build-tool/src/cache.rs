//! Content-addressed cache that survives between builds: per-kernel results, and before them
//! the PTX a source lowers to and ptxas's resources for it. Each key hashes everything the
//! entry depends on (the source and the project headers it includes, or the PTX; the flags;
//! kernel, workload, device profile, model and counter for a result; kerncast's version and
//! binary; the compilers' own `--version`), so an unchanged kernel costs neither a compile nor
//! an analysis in the next build, and a changed input can never hit a stale entry. Entries are
//! written atomically; a corrupt or unreadable entry is a miss, never an error, because the
//! cache is only an accelerator. Location: `$KERNCAST_CACHE`, else `target/kerncast-cache`.

use crate::report::KernelReport;
use serde::{de::DeserializeOwned, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

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

    /// Where host reading keeps its precompiled CUDA preludes (`kerncast_host`'s
    /// `Options::prelude_cache`), beside the results.
    pub fn host_preludes_dir() -> PathBuf {
        Self::default_dir().join("host-preludes")
    }

    /// Where host readings are kept ([`crate::host_cache`]) in the cache at `root`.
    pub fn host_readings_dir(root: &std::path::Path) -> PathBuf {
        root.join("host-readings")
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
    pub fn key<P: AsRef<[u8]>>(parts: &[P]) -> String {
        let mut h = Sha256::new();
        for p in parts {
            let p = p.as_ref();
            h.update((p.len() as u64).to_le_bytes());
            h.update(p);
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// What an external tool says of itself (`nvcc --version`): part of the key of what it
    /// produced, so a new compiler never reuses the old one's output. Empty when the tool is
    /// absent or says nothing. Asked once per process, and kept in the cache under the tool's
    /// [`file_stamp`], so a process that finds the same tool files does not start the tool:
    /// `ptxas --version` costs about 9 ms, a tenth of a whole `kerncast predict`.
    pub fn tool_identity(&self, name: &str) -> String {
        static SEEN: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
        if let Some(v) = SEEN.lock().ok().and_then(|m| m.get(name).cloned()) {
            return v;
        }
        let tool = match name {
            "clang" => crate::lower::clang_tool(),
            n => crate::lower::find_tool(n),
        };
        let v = tool
            .and_then(|t| {
                let key = Cache::key(&["tool --version", &file_stamp(&t)]);
                if let Some(known) = self.get_value::<String>(&key) {
                    return Some(known);
                }
                let said = std::process::Command::new(&t)
                    .arg("--version")
                    .output()
                    .ok()
                    .map(|o| format!("{}\n{}", t.display(), String::from_utf8_lossy(&o.stdout)))?;
                self.put_value(&key, &said);
                Some(said)
            })
            .unwrap_or_default();
        if let Ok(mut m) = SEEN.lock() {
            m.insert(name.to_string(), v.clone());
        }
        v
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir
            .join(&key[..2.min(key.len())])
            .join(format!("{key}.json"))
    }

    pub fn get(&self, key: &str) -> Option<KernelReport> {
        self.get_value(key)
    }

    /// Stores a result; failures to write are ignored (the next run recomputes).
    pub fn put(&self, key: &str, r: &KernelReport) {
        self.put_value(key, r)
    }

    /// Any entry; a missing, unreadable or unparsable one is `None`.
    pub fn get_value<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Stores any entry; failures to write are ignored (the next run recomputes).
    pub fn put_value<T: Serialize>(&self, key: &str, v: &T) {
        if let Ok(text) = serde_json::to_string(v) {
            let _ = crate::fsio::write_atomic(&self.path(key), text.as_bytes());
        }
    }
}

/// The files a tool is made of, as they are now: the executable's path, size and modification
/// time, and where it is a script (the toolchain's `bin/ptxas` is a wrapper that `exec`s the
/// real one), its text and the same of every existing file an absolute path in it names, so a
/// compiler upgraded behind an unchanged wrapper changes the stamp too.
fn file_stamp(tool: &std::path::Path) -> String {
    fn stat(p: &std::path::Path) -> Option<String> {
        let m = std::fs::metadata(p).ok()?;
        let t = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        Some(format!("{}:{}:{t}", p.display(), m.len()))
    }
    let mut stamp = stat(tool).unwrap_or_default();
    let small = std::fs::metadata(tool).is_ok_and(|m| m.len() <= 1 << 16);
    let script = small
        .then(|| std::fs::read(tool).ok())
        .flatten()
        .filter(|b| b.starts_with(b"#!"));
    if let Some(text) = script {
        let text = String::from_utf8_lossy(&text);
        stamp += &format!("\n{text}");
        let words = text.split(|c: char| c.is_whitespace() || c == '\'' || c == '"');
        for w in words.filter(|w| w.starts_with('/')) {
            let p = std::path::Path::new(w);
            if p.is_file() {
                stamp += &format!("\n{}", stat(p).unwrap_or_default());
            }
        }
    }
    stamp
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

    /// A lowered source reads back as it was written, floats of results exactly too.
    #[test]
    fn typed_entries_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::new(dir.path().to_path_buf());
        let lowered = crate::lower::Lowered {
            ptx: ".version 8.0".into(),
            frontend: crate::lower::Frontend::Nvcc,
            command: "nvcc -ptx k.cu".into(),
            notes: vec!["a note".into()],
        };
        let k = Cache::key(&[b"lowered".as_slice(), &[0xff, 0x00]]);
        c.put_value(&k, &lowered);
        assert_eq!(c.get_value::<crate::lower::Lowered>(&k), Some(lowered));
        let x = 120.20648929155843f64;
        c.put_value(&k, &x);
        assert_eq!(c.get_value::<f64>(&k), Some(x));
        assert_eq!(c.tool_identity("kerncast-no-such-tool-xyz"), "");
    }

    /// A wrapper script's stamp changes when the executable it names changes, though the
    /// wrapper itself does not.
    #[test]
    fn a_wrapper_is_stamped_with_the_tool_it_runs() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("ptxas-real");
        std::fs::write(&real, "one").unwrap();
        let wrapper = dir.path().join("ptxas");
        std::fs::write(
            &wrapper,
            format!("#!/bin/sh\nexec '{}' \"$@\"\n", real.display()),
        )
        .unwrap();
        let before = file_stamp(&wrapper);
        assert!(before.contains("ptxas-real"), "{before}");
        assert_eq!(
            before,
            file_stamp(&wrapper),
            "the same files, the same stamp"
        );
        std::fs::write(&real, "a newer one").unwrap();
        assert_ne!(before, file_stamp(&wrapper));
    }
}
