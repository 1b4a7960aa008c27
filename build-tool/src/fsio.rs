//! Writing files so that a reader, or a run killed half-way, never sees half of one.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `file` through a temp file and rename, so readers see old or new, never half.
/// The file gets the permissions a plain write would (0666 less the umask), so reports and
/// baselines are readable by the group where the umask says so, not the temp file's 0600.
pub fn write_atomic(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut b = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // open(2) applies the umask to this mode, as it does for any new file
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = b.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(file).map_err(|e| e.error)?;
    Ok(())
}
