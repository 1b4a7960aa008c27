//! The report's files: JSON, Markdown, HTML, and one JSON file per kernel entry.

use super::{html, markdown, KernelReport, Report};

/// Files written by [`write_all`].
pub const JSON_FILE: &str = "kerncast-report.json";
pub const MARKDOWN_FILE: &str = "kerncast-report.md";
pub const HTML_FILE: &str = "kerncast-report.html";

/// Writes the JSON, Markdown and HTML reports into `dir`, plus one JSON file per kernel entry
/// under `dir/kernels/`; returns the paths written, in a fixed order.
pub fn write_all(r: &Report, dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir.join("kernels"))?;
    let mut out = Vec::new();
    for (name, text) in [
        (JSON_FILE, r.to_json()),
        (MARKDOWN_FILE, markdown::render(r)),
        (HTML_FILE, html::render(r)),
    ] {
        let p = dir.join(name);
        crate::fsio::write_atomic(&p, text.as_bytes())?;
        out.push(p);
    }
    for k in &r.kernels {
        let p = dir
            .join("kernels")
            .join(format!("{}.json", entry_file_stem(k)));
        let mut text = serde_json::to_string_pretty(k).unwrap_or_default();
        text.push('\n');
        crate::fsio::write_atomic(&p, text.as_bytes())?;
        out.push(p);
    }
    remove_stale_entries(&dir.join("kernels"), &out)?;
    Ok(out)
}

/// Removes the per-entry files of an earlier run that this run did not write (a kernel renamed
/// or removed since), so the folder holds this report's entries and no others. Only `.json`
/// files are touched: anything else there is not ours.
fn remove_stale_entries(
    kernels: &std::path::Path,
    written: &[std::path::PathBuf],
) -> std::io::Result<()> {
    for e in std::fs::read_dir(kernels)?.flatten() {
        let p = e.path();
        let ours = p.extension().is_some_and(|x| x == "json") && e.file_type()?.is_file();
        if ours && !written.contains(&p) {
            std::fs::remove_file(&p)?;
        }
    }
    Ok(())
}

/// The longest file stem an entry's file gets: file systems allow 255 bytes a name.
pub(super) const MOST_STEM_BYTES: usize = 160;

/// The stem of an entry's file under `kernels/`: its kernel, workload and device, each
/// character outside `[A-Za-z0-9_-]` as `_`; a stem longer than [`MOST_STEM_BYTES`] (a workload
/// of many parameters) is cut, and ends with a hash of the whole, so that it stays unique.
pub(super) fn entry_file_stem(k: &KernelReport) -> String {
    let whole = format!("{}-{}-{}", k.display_name, k.workload.name, k.device);
    let stem: String = whole
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.len() <= MOST_STEM_BYTES {
        return stem;
    }
    use sha2::{Digest, Sha256};
    let hash = Sha256::digest(whole.as_bytes());
    let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{hex}", &stem[..MOST_STEM_BYTES - 17])
}
