//! The prelude clang puts ahead of every CUDA unit (`__clang_cuda_runtime_wrapper.h`: the CUDA
//! runtime API and the C and C++ math headers) is most of what parsing a host `.cu` costs, and it
//! is the same for every unit built with the same flags. So it is parsed once into a precompiled
//! header, kept on disk between runs, and each unit loads it (`-include-pch`) instead of parsing
//! it again.
//!
//! The result must be the unit clang would have parsed without it, so a unit takes the
//! precompiled prelude only where that is certain:
//! - the prelude is parsed with the unit's own flags, all but the folders it searches first for
//!   headers (`-I`, `-iquote`): those are a program's own folders, which differ from program to
//!   program while everything else (language, standard, `-D`s, CUDA path, architecture) is what a
//!   build shares. The key of a precompiled prelude is everything else, and clang's version;
//! - a unit whose own header folders hold a file that could stand for one of the prelude's
//!   headers (the same name, or the same last two or three path parts) parses without it, since
//!   its `#include <math.h>` could have found that file instead;
//! - a unit that forces includes of its own (`-include`) parses without it, as they may come
//!   ahead of the prelude and change it;
//! - clang checks what it loads against the flags and the headers' files: a precompiled prelude
//!   it refuses (a header changed, a flag differs) is rebuilt and the unit parsed without it.
//!
//! A unit's own opening `#include <…>`s (`<cuda_fp16.h>`, `<random>`) can cost more than the
//! prelude; where units open with the same directives ([`super::preamble`]), those are
//! precompiled too, on top of the prelude and under the same rules, and loaded in its place.

use super::{Index, Severity, Unit};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A unit parsed by [`parse`], and the files it read.
pub struct Parsed<'i> {
    pub unit: Unit<'i>,
    /// Every file the unit read: its own inclusions, the main file among them, and the headers
    /// of the precompiled prelude it loaded, which clang does not list among the unit's
    /// inclusions (they are in the precompiled file).
    pub inputs: Vec<String>,
    /// The kernels the precompiled file the unit loaded defines ([`Prelude::kernels`]), which
    /// are not among the unit's own top-level cursors; empty where it loaded none, `None` where
    /// the file's list is not known.
    pub precompiled_kernels: Option<BTreeSet<String>>,
}

/// [`Index::parse`], with the prelude clang puts ahead of a CUDA unit loaded precompiled from
/// `cache` where it applies, and with the unit's own preamble ([`super::preamble`]) where one
/// is kept; the unit is the same either way.
pub fn parse<'i>(
    index: &'i Index,
    file: &Path,
    args: &[String],
    cache: Option<&PreludeCache>,
) -> Result<Parsed<'i>, String> {
    let Some(cache) = cache else {
        return parse_plain(index, file, args);
    };
    let (preamble, prelude) = cache.for_unit(index, file, args);
    let without_preamble = || match prelude.as_ref() {
        Some(p) => parse_loading(index, file, args, p, cache)
            .map_or_else(|| parse_plain(index, file, args), Ok),
        None => parse_plain(index, file, args),
    };
    let Some(preamble) = preamble else {
        return without_preamble();
    };
    let Some(with) = parse_loading(index, file, args, &preamble, cache) else {
        return without_preamble();
    };
    let errors = error_count(&with.unit);
    if errors == 0 {
        return Ok(with);
    }
    // A header of the preamble without a guard may not take being read a second time: the unit
    // is read without the preamble too, and the preamble kept only where it added no error.
    let without = without_preamble()?;
    if error_count(&without.unit) < errors {
        cache.refuse(&preamble);
        return Ok(without);
    }
    Ok(with)
}

/// The unit parsed with `prelude` loaded; `None` (and the prelude discarded) where clang
/// refuses it.
fn parse_loading<'i>(
    index: &'i Index,
    file: &Path,
    args: &[String],
    prelude: &Prelude,
    cache: &PreludeCache,
) -> Option<Parsed<'i>> {
    let mut with = prelude.args();
    with.extend(args.iter().cloned());
    match index.parse(file, &with) {
        Ok(u) if !u.refused_precompiled() => {
            let mut inputs = u.inclusions();
            inputs.extend(prelude.headers.iter().cloned());
            let unit = with_instances(index, file, &with, u);
            Some(Parsed {
                unit,
                inputs,
                precompiled_kernels: prelude.kernels.clone(),
            })
        }
        _ => {
            cache.discard(prelude);
            None
        }
    }
}

fn parse_plain<'i>(index: &'i Index, file: &Path, args: &[String]) -> Result<Parsed<'i>, String> {
    let unit = index.parse(file, args)?;
    let inputs = unit.inclusions();
    let unit = with_instances(index, file, args, unit);
    Ok(Parsed {
        unit,
        inputs,
        precompiled_kernels: Some(BTreeSet::new()),
    })
}

/// Whether the precompiled file `pch` is there with both its lists beside it (the headers it
/// read, the kernels they define): one saved before kerncast kept its kernels is saved again,
/// once.
fn saved_whole(pch: &Path) -> bool {
    pch.is_file()
        && ["headers", "kernels"]
            .iter()
            .all(|e| pch.with_extension(e).is_file())
}

fn error_count(unit: &Unit<'_>) -> usize {
    unit.diagnostics()
        .iter()
        .filter(|d| d.severity >= Severity::Error)
        .count()
}

/// The unit parsed again with references to the function template instances its file
/// instantiates explicitly ([`Unit::explicit_instance_refs`]), when it has any: their bodies
/// are then reached like those of instances a call names. The first parse when there are
/// none, or when the second fails.
fn with_instances<'i>(index: &'i Index, file: &Path, args: &[String], unit: Unit<'i>) -> Unit<'i> {
    let refs = unit.explicit_instance_refs(file);
    if refs.is_empty() {
        return unit;
    }
    match index.parse_with(file, args, &refs) {
        Ok(u) if !u.refused_precompiled() => u,
        _ => unit,
    }
}

/// How many precompiled preambles a cache keeps (each about as large as the prelude, 5 to
/// 20 MB): the project's recurring ones, not one per file of every program read. (Each
/// preamble seen also leaves a `.seen` file of a few bytes, its count.)
pub const MAX_PREAMBLES: usize = 16;

/// The start of a precompiled preamble's key, which sets it apart from the preludes.
const PREAMBLE: &str = "preamble-";

/// Whether every header `spelled` names is one of `read` (paths), so a preamble of them adds
/// nothing to a prelude that read them.
fn covered(spelled: &[String], read: &[String]) -> bool {
    spelled
        .iter()
        .all(|h| read.iter().any(|r| Path::new(r).ends_with(h)))
}

/// Precompiled preludes in one folder, by key.
#[derive(Clone, Debug)]
pub struct PreludeCache {
    dir: PathBuf,
}

/// A precompiled prelude a unit can load.
pub struct Prelude {
    pub pch: PathBuf,
    /// The headers it was parsed from.
    pub headers: Vec<String>,
    /// The kernels its headers define ([`Unit::kernel_definitions`] of the unit it was saved
    /// from): a unit that loads it does not list them among its own declarations. `None` for
    /// one saved without the list.
    pub kernels: Option<BTreeSet<String>>,
}

impl Prelude {
    /// The flags that load it.
    pub fn args(&self) -> Vec<String> {
        vec!["-include-pch".into(), self.pch.display().to_string()]
    }
}

impl PreludeCache {
    pub fn new(dir: PathBuf) -> PreludeCache {
        PreludeCache { dir }
    }

    /// The precompiled preamble of the unit `file` parsed with `args`, where one is kept
    /// ([`PreludeCache::preamble`]), and its precompiled CUDA prelude ([`PreludeCache::prelude`]).
    pub fn for_unit(
        &self,
        index: &Index,
        file: &Path,
        args: &[String],
    ) -> (Option<Prelude>, Option<Prelude>) {
        let Some(prelude) = self.prelude(args) else {
            return (None, None);
        };
        let preamble = super::preamble::of_file(index, file, args)
            .filter(|p| !covered(&p.headers, &prelude.headers))
            .and_then(|p| self.preamble(args, &p));
        (preamble, Some(prelude))
    }

    /// The precompiled prelude for a unit parsed with `args` (its flags, without the file),
    /// built on first use; `None` where the unit is not CUDA or cannot take one (see the
    /// module's notes) or where the prelude does not parse cleanly.
    pub fn prelude(&self, args: &[String]) -> Option<Prelude> {
        if !is_cuda(args) || forces_includes(args) {
            return None;
        }
        let (shared, own_dirs) = split_own_dirs(args);
        let key = key_of(&shared);
        let pch = self.dir.join(format!("{key}.pch"));
        if !saved_whole(&pch) {
            self.build(&shared, &key, "")?;
        }
        self.taken(pch, &own_dirs)
    }

    /// The precompiled `preamble` of a unit parsed with `args`, shared as the prelude is by
    /// units whose flags differ only in their own header folders (and not taken by a unit
    /// whose folders hold a file that could stand for one of its headers). Each sighting of a
    /// preamble is counted; one is built once it has been seen twice (a preamble that opens a
    /// single file read once would cost a build and disk for nothing) and while fewer than
    /// [`MAX_PREAMBLES`] are kept, or in place of the kept one seen least, when it has been
    /// seen more. `None` until then, and where it does not parse cleanly or once added errors
    /// to a unit ([`PreludeCache::refuse`]).
    pub fn preamble(
        &self,
        args: &[String],
        preamble: &super::preamble::Preamble,
    ) -> Option<Prelude> {
        let (shared, own_dirs) = split_own_dirs(args);
        let mut parts = shared.clone();
        parts.push("preamble".into());
        parts.push(preamble.text.clone());
        let key = format!("{PREAMBLE}{}", key_of(&parts));
        let pch = self.dir.join(format!("{key}.pch"));
        let seen = self.sighting(&key)?;
        if pch.with_extension("refused").is_file() {
            return None;
        }
        if !saved_whole(&pch) {
            if seen < 2 {
                return None;
            }
            let mut kept = self.kept_preambles();
            if kept.len() >= MAX_PREAMBLES {
                kept.sort();
                let (least_seen, _, least) = &kept[0];
                if seen <= *least_seen {
                    return None;
                }
                for ext in ["pch", "headers", "kernels", "cu"] {
                    let _ = std::fs::remove_file(least.with_extension(ext));
                }
            }
            if self.build(&shared, &key, &preamble.text).is_none() {
                let _ = std::fs::write(pch.with_extension("refused"), "");
                return None;
            }
        }
        self.taken(pch, &own_dirs)
    }

    /// Counts a sighting of the preamble `key` (a byte added to its `.seen` file) and gives
    /// how many there have been.
    fn sighting(&self, key: &str) -> Option<u64> {
        use std::io::Write;
        std::fs::create_dir_all(&self.dir).ok()?;
        let path = self.dir.join(format!("{key}.seen"));
        let mut f = std::fs::File::options()
            .append(true)
            .create(true)
            .open(&path)
            .ok()?;
        f.write_all(b".").ok()?;
        Some(f.metadata().ok()?.len())
    }

    /// The precompiled preambles kept: how often each was seen, when last, and its `.pch`.
    fn kept_preambles(&self) -> Vec<(u64, std::time::SystemTime, PathBuf)> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "pch")
                    && p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with(PREAMBLE))
            })
            .filter_map(|p| {
                let seen = std::fs::metadata(p.with_extension("seen")).ok()?;
                Some((seen.len(), seen.modified().ok()?, p))
            })
            .collect()
    }

    /// The prelude saved at `pch`, unless a file in the unit's own header folders could stand
    /// for one of its headers.
    fn taken(&self, pch: PathBuf, own_dirs: &[PathBuf]) -> Option<Prelude> {
        let included = std::fs::read_to_string(pch.with_extension("headers")).ok()?;
        let shadowed = included
            .lines()
            .any(|h| own_dirs.iter().any(|d| could_shadow(d, Path::new(h))));
        let headers = included.lines().map(String::from).collect();
        let kernels = std::fs::read_to_string(pch.with_extension("kernels"))
            .ok()
            .map(|k| k.lines().map(String::from).collect());
        (!shadowed).then_some(Prelude {
            pch,
            headers,
            kernels,
        })
    }

    /// Marks a preamble that added errors to a unit, so units are read without it.
    pub fn refuse(&self, preamble: &Prelude) {
        let _ = std::fs::write(preamble.pch.with_extension("refused"), "");
        self.discard(preamble);
    }

    /// Forgets a prelude clang refused, so the next unit builds it again.
    pub fn discard(&self, prelude: &Prelude) {
        let _ = std::fs::remove_file(&prelude.pch);
        let _ = std::fs::remove_file(prelude.pch.with_extension("headers"));
        let _ = std::fs::remove_file(prelude.pch.with_extension("kernels"));
    }

    /// Parses a CUDA unit of `text` (empty for the prelude, the directives of a preamble) with
    /// `args` and saves it, with the headers it read. The unit's source stays beside it (clang
    /// checks a precompiled header's input files when it loads one). Files are written under
    /// temporary names and renamed, so a reader never sees half of one.
    fn build(&self, args: &[String], key: &str, text: &str) -> Option<()> {
        std::fs::create_dir_all(&self.dir).ok()?;
        let source = self.dir.join(format!("{key}.cu"));
        let tag = format!("{}-{:?}", std::process::id(), std::thread::current().id())
            .replace(|c: char| !c.is_ascii_alphanumeric(), "");
        if !source.is_file() {
            let source_tmp = self.dir.join(format!("{key}.{tag}.cu.tmp"));
            std::fs::write(&source_tmp, text).ok()?;
            std::fs::rename(&source_tmp, &source).ok()?;
        }
        let index = Index::new().ok()?;
        let unit = index.parse_for_saving(&source, args).ok()?;
        if unit
            .diagnostics()
            .iter()
            .any(|d| d.severity >= Severity::Error)
        {
            return None;
        }
        let included: Vec<String> = unit
            .inclusions()
            .into_iter()
            .filter(|f| Path::new(f) != source)
            .collect();
        let pch_tmp = self.dir.join(format!("{key}.{tag}.pch.tmp"));
        let headers_tmp = self.dir.join(format!("{key}.{tag}.headers.tmp"));
        let kernels_tmp = self.dir.join(format!("{key}.{tag}.kernels.tmp"));
        unit.save(&pch_tmp).ok()?;
        std::fs::write(&headers_tmp, included.join("\n")).ok()?;
        let kernels: Vec<String> = unit.kernel_definitions().into_iter().collect();
        std::fs::write(&kernels_tmp, kernels.join("\n")).ok()?;
        // the lists first: a `.pch` is only taken with its lists beside it
        std::fs::rename(&kernels_tmp, self.dir.join(format!("{key}.kernels"))).ok()?;
        std::fs::rename(&headers_tmp, self.dir.join(format!("{key}.headers"))).ok()?;
        std::fs::rename(&pch_tmp, self.dir.join(format!("{key}.pch"))).ok()?;
        Some(())
    }
}

/// Whether the flags parse the unit as CUDA (`-x cuda`).
fn is_cuda(args: &[String]) -> bool {
    args.windows(2).any(|w| w[0] == "-x" && w[1] == "cuda") || args.iter().any(|a| a == "-xcuda")
}

fn forces_includes(args: &[String]) -> bool {
    args.iter()
        .any(|a| a.starts_with("-include") || a.starts_with("-imacros"))
}

/// The flags but the unit's own header folders, and those folders.
fn split_own_dirs(args: &[String]) -> (Vec<String>, Vec<PathBuf>) {
    let mut shared = Vec::new();
    let mut dirs = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let own = ["-I", "-iquote", "--include-directory"]
            .iter()
            .find_map(|f| a.strip_prefix(f).map(|rest| (*f, rest)));
        match own {
            Some((_, "")) => {
                if let Some(d) = it.next() {
                    dirs.push(PathBuf::from(d));
                }
            }
            Some(("--include-directory", rest)) => {
                dirs.push(PathBuf::from(rest.trim_start_matches('=')))
            }
            Some((_, rest)) => dirs.push(PathBuf::from(rest)),
            None => shared.push(a.clone()),
        }
    }
    (shared, dirs)
}

/// The key of a precompiled prelude: the flags it was parsed with and clang's version.
fn key_of(args: &[String]) -> String {
    let mut h = Sha256::new();
    h.update(super::clang_version().as_bytes());
    for a in args {
        h.update(a.as_bytes());
        h.update([0]);
    }
    h.finalize()
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `dir` holds a file an `#include` of `header` could find instead of it: one named
/// as the header's last one, two or three path parts (`math.h`, `bits/types.h`).
fn could_shadow(dir: &Path, header: &Path) -> bool {
    let parts: Vec<_> = header.components().collect();
    (1..=3.min(parts.len())).any(|n| {
        let tail: PathBuf = parts[parts.len() - n..].iter().collect();
        dir.join(tail).is_file()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_programs_own_header_folders_are_not_part_of_the_key() {
        let a = strings(&[
            "-x",
            "cuda",
            "-Isrc/a",
            "-DN=4",
            "-I",
            "src/a/inc",
            "-std=c++17",
        ]);
        let (shared, dirs) = split_own_dirs(&a);
        assert_eq!(shared, strings(&["-x", "cuda", "-DN=4", "-std=c++17"]));
        assert_eq!(dirs, [PathBuf::from("src/a"), PathBuf::from("src/a/inc")]);
        let b = strings(&["-x", "cuda", "-Isrc/b", "-DN=4", "-std=c++17"]);
        assert_eq!(key_of(&split_own_dirs(&b).0), key_of(&shared));
        let c = strings(&["-x", "cuda", "-Isrc/b", "-DN=5", "-std=c++17"]);
        assert_ne!(key_of(&split_own_dirs(&c).0), key_of(&shared));
    }

    #[test]
    fn a_header_of_the_same_name_in_a_programs_folder_could_stand_for_the_preludes() {
        let dir = tempfile_dir();
        std::fs::create_dir_all(dir.join("bits")).unwrap();
        std::fs::write(dir.join("bits/types.h"), "").unwrap();
        assert!(could_shadow(
            &dir,
            Path::new("/usr/include/x86_64-linux-gnu/bits/types.h")
        ));
        assert!(!could_shadow(&dir, Path::new("/usr/include/math.h")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn only_a_cuda_unit_without_forced_includes_takes_a_prelude() {
        assert!(is_cuda(&strings(&["-x", "cuda", "-O3"])));
        assert!(!is_cuda(&strings(&["-x", "c++", "-O3"])));
        assert!(forces_includes(&strings(&["-include", "torch.h"])));
        assert!(!forces_includes(&strings(&["-I", "inc"])));
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "kerncast-prelude-test-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
