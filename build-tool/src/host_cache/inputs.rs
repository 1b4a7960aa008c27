//! What a host reading read, as digests taken when it was read: the content of each file its
//! translation units included, and the names in each folder a lookup searched or listed. A
//! stored reading holds while every digest is the same (ccache's direct mode): an edited header
//! changes its file's digest; a new header beside the one included, which an `#include` could
//! now find first, or a new source beside a unit (read where no unit has `main`), changes its
//! folder's.

use crate::cache::Cache;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The digests of what a reading read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Inputs {
    /// Each file read, with the digest of its content.
    pub files: Vec<(PathBuf, String)>,
    /// Each folder a file was found in or a unit searches for headers, with the digest of the
    /// names in it.
    pub folders: Vec<(PathBuf, String)>,
}

impl Inputs {
    /// The digests of `files` and of `search` folders and the folders the files are in, now;
    /// `None` where one cannot be read, or where one changed after `since` (the start of the
    /// reading): what the reading saw of it may not be what its digest says.
    pub fn take(
        files: &BTreeSet<PathBuf>,
        search: &[PathBuf],
        since: SystemTime,
    ) -> Option<Inputs> {
        let mut folders: BTreeSet<PathBuf> = search.iter().cloned().collect();
        let mut out = Inputs {
            files: Vec::new(),
            folders: Vec::new(),
        };
        for f in files {
            if modified_after(f, since) {
                return None;
            }
            out.files.push((f.clone(), file_digest(f)?));
            if let Some(dir) = f.parent() {
                folders.insert(dir.to_path_buf());
            }
        }
        for d in folders {
            // a search folder that does not exist is a folder of no names: its digest says so
            out.folders.push((d.clone(), folder_digest(&d)));
        }
        Some(out)
    }

    /// Whether every file and folder still has the digest it had.
    pub fn unchanged(&self) -> bool {
        self.files
            .iter()
            .all(|(f, d)| file_digest(f).as_deref() == Some(d.as_str()))
            && self.folders.iter().all(|(p, d)| folder_digest(p) == *d)
    }
}

/// Whether `f` was modified at or after `since` (or cannot tell).
fn modified_after(f: &Path, since: SystemTime) -> bool {
    std::fs::metadata(f)
        .and_then(|m| m.modified())
        .map_or(true, |t| t >= since)
}

/// The digest of a file's content (the cache's own key of it); `None` where it cannot be read.
pub fn file_digest(f: &Path) -> Option<String> {
    let bytes = std::fs::read(f).ok()?;
    Some(Cache::key(&[bytes]))
}

/// The digest of the names in a folder, sorted; that of no names where it cannot be listed.
fn folder_digest(d: &Path) -> String {
    let mut names: Vec<Vec<u8>> = std::fs::read_dir(d)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().as_encoded_bytes().to_vec())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    Cache::key(&names)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The start of a reading that began after the files were written.
    fn later() -> SystemTime {
        SystemTime::now() + std::time::Duration::from_secs(3600)
    }

    #[test]
    fn an_edited_file_or_a_new_name_beside_it_is_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let h = dir.path().join("sizes.h");
        std::fs::write(&h, "#define BS 128\n").unwrap();
        let files: BTreeSet<PathBuf> = [h.clone()].into_iter().collect();
        let inputs = Inputs::take(&files, &[], later()).unwrap();
        assert!(inputs.unchanged());
        std::fs::write(&h, "#define BS 256\n").unwrap();
        assert!(!inputs.unchanged(), "an edited header");
        std::fs::write(&h, "#define BS 128\n").unwrap();
        assert!(inputs.unchanged(), "the same content again");
        std::fs::write(dir.path().join("other.h"), "").unwrap();
        assert!(!inputs.unchanged(), "a new file beside it");
        std::fs::remove_file(dir.path().join("other.h")).unwrap();
        std::fs::remove_file(&h).unwrap();
        assert!(!inputs.unchanged(), "a file gone");
    }

    #[test]
    fn a_file_changed_while_it_was_read_is_not_taken() {
        let dir = tempfile::tempdir().unwrap();
        let h = dir.path().join("sizes.h");
        std::fs::write(&h, "").unwrap();
        let files: BTreeSet<PathBuf> = [h].into_iter().collect();
        assert!(Inputs::take(&files, &[], later()).is_some());
        // written after a reading that began at the epoch began
        assert!(Inputs::take(&files, &[], SystemTime::UNIX_EPOCH).is_none());
    }
}
