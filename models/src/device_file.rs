//! Reading device profiles: a TOML file parsed into a [`Device`], its values range-checked
//! (`device_check`) with the file:line:column of a bad one, and profiles found by name in the
//! devices directories.
//!
//! Why apart from `device`: the range checks read the profile's types, and reading a profile
//! runs the checks; with the reading in `device` the two imported each other. The readers stay
//! `Device`'s own functions (`Device::load`, `Device::from_toml`, …), only written here.

use crate::device::{Device, DeviceError};
use std::path::{Path, PathBuf};

impl Device {
    /// Parse a profile from TOML text and range-check its values (`device_check`); `path` is
    /// used for error messages, which name file:line:column.
    pub fn from_toml(text: &str, path: &Path) -> Result<Device, DeviceError> {
        match toml::from_str::<Device>(text) {
            Ok(mut d) => {
                d.path = path.to_path_buf();
                if let Some(bad) = crate::device_check::bad_values(&d).into_iter().next() {
                    let (line, col) = crate::device_check::span_of(text, &bad.path)
                        .map(|s| line_col(text, s.start))
                        .unwrap_or((1, 1));
                    return Err(DeviceError::Range {
                        path: path.to_path_buf(),
                        line,
                        col,
                        key: bad.key(),
                        message: bad.message,
                    });
                }
                Ok(d)
            }
            Err(e) => {
                let (line, col) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
                Err(DeviceError::Toml {
                    path: path.to_path_buf(),
                    line,
                    col,
                    message: e.message().to_string(),
                })
            }
        }
    }

    pub fn from_file(path: &Path) -> Result<Device, DeviceError> {
        let text = std::fs::read_to_string(path).map_err(|source| DeviceError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Device::from_toml(&text, path)
    }

    /// A device by name (`k20`) or by path (`devices/k20.toml`, `./my.toml`).
    pub fn load(name_or_path: &str) -> Result<Device, DeviceError> {
        let p = Path::new(name_or_path);
        if name_or_path.ends_with(".toml") || p.components().count() > 1 {
            return Device::from_file(p);
        }
        let dirs = device_dirs();
        for dir in &dirs {
            let f = dir.join(format!("{name_or_path}.toml"));
            if f.is_file() {
                return Device::from_file(&f);
            }
        }
        let looked = dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        Err(DeviceError::NotFound(name_or_path.to_string(), looked))
    }

    /// Every profile of the first existing devices directory, sorted by name.
    pub fn list() -> Result<Vec<Device>, DeviceError> {
        let Some(dir) = device_dirs().into_iter().find(|d| d.is_dir()) else {
            return Ok(Vec::new());
        };
        Device::list_in(&dir)
    }

    pub fn list_in(dir: &Path) -> Result<Vec<Device>, DeviceError> {
        let rd = std::fs::read_dir(dir).map_err(|source| DeviceError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let mut files: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        files.iter().map(|f| Device::from_file(f)).collect()
    }
}

/// Where device profiles are looked for, in order: `$KERNCAST_DEVICES`, the workspace's
/// `devices/` (next to this crate), `./devices`.
pub fn device_dirs() -> Vec<PathBuf> {
    let mut v = Vec::new();
    if let Ok(d) = std::env::var("KERNCAST_DEVICES") {
        v.push(PathBuf::from(d));
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    v.push(manifest.parent().unwrap_or(manifest).join("devices"));
    v.push(PathBuf::from("devices"));
    v
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_toml_names_line() {
        let text = "name = \"x\"\nfull_name = \"X\"\n[hw]\nsm_count = { value = 3 }\n";
        let e = Device::from_toml(text, Path::new("x.toml")).unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with("x.toml:4:"), "{s}");
        assert!(s.contains("source"), "{s}");
    }

    /// A value out of range is refused at load with the file:line:column of the number and
    /// its key; every bundled profile passes.
    #[test]
    fn out_of_range_values_are_refused_at_their_line() {
        let base = "name = \"x\"\nfull_name = \"X\"\n";
        // (body, the bad literal, its key)
        let cases = [
            (
                "[hw]\nsm_count = { value = 0, source = \"s\" }\n",
                "0",
                "hw.sm_count",
            ),
            (
                "[hw]\nwarp_size = { value = 0, source = \"s\" }\n",
                "0",
                "hw.warp_size",
            ),
            (
                "[hw]\nwarp_size = { value = 4096, source = \"s\" }\n",
                "4096",
                "hw.warp_size",
            ),
            (
                "[hw]\nmem_bandwidth_gbs = { value = nan, source = \"s\" }\n",
                "nan",
                "hw.mem_bandwidth_gbs",
            ),
            (
                "[hw]\nmem_bandwidth_gbs = { value = 0.0, source = \"s\" }\n",
                "0.0",
                "hw.mem_bandwidth_gbs",
            ),
            (
                "[clocks]\ncore_levels_mhz = { value = [1.0, -5.0], source = \"s\" }\n",
                "-5.0",
                "clocks.core_levels_mhz[1]",
            ),
            (
                "[latency]\nfma = { value = -1.0, source = \"s\" }\n",
                "-1.0",
                "latency.fma",
            ),
            (
                "[linear]\nblocks = { value = inf, source = \"s\" }\n",
                "inf",
                "linear.blocks",
            ),
        ];
        for (body, literal, key) in cases {
            let e = Device::from_toml(&format!("{base}{body}"), Path::new("d.toml")).unwrap_err();
            let line = body.lines().nth(1).unwrap();
            let col = line
                .find(&format!("{literal},"))
                .or(line.find(&format!("{literal}]")));
            let at = format!("d.toml:4:{}: `{key}` must be", col.unwrap() + 1);
            assert!(e.to_string().starts_with(&at), "{at} | {e}");
        }
        for d in Device::list().unwrap() {
            assert!(!d.name.is_empty());
        }
    }
}
