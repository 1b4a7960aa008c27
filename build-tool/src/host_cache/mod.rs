//! Host readings kept between runs. Reading a program's host code parses every unit with
//! libclang, which is most of what an analysis with nothing changed costs; the reading depends
//! only on what it read and how it was asked, so it is stored and taken again while none of
//! that changed (ccache's direct mode):
//! - the key is kerncast's version and binary, libclang's version, the working folder (a
//!   relative `-I` is relative to it), the program (each unit's file, flags and program, the
//!   command line), the reading's options (given values, device, budget, toolchain, whether the
//!   occupancy API answers) and the content of each unit's file;
//! - an entry holds the reading with the digests of every file its units included and of the
//!   folders they were found in ([`inputs`]), and the occupancy API's questions with their
//!   answers ([`oracle`]): it is taken only where all are the same now;
//! - a reading whose files are not all known (a Python host reads files as it runs) or that
//!   failed is not stored;
//! - entries are written whole (temporary file and rename); one that cannot be read or parsed
//!   is a miss, and the next reading replaces it.
//!
//! An entry keeps a few readings of the same key ([`MAX_VARIANTS`]): an analysis reads the
//! program first without the occupancy API's answers and again with them, and each must be
//! found.

mod inputs;
mod oracle;
mod stored;

use crate::cache::Cache;
use inputs::Inputs;
use kerncast_host::{HostReading, OccupancyOracle, Options, Program};
use oracle::{Asked, Recording};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use stored::StoredReading;

/// The readings of one key an entry keeps, newest first.
const MAX_VARIANTS: usize = 4;

/// The version of the entries' form: entries of another form are misses.
const FORM: &str = "host-reading-5";

/// An entry: the readings of one key.
#[derive(Serialize, Deserialize)]
struct Entry {
    variants: Vec<Variant>,
}

/// A reading, and what says whether it still holds.
#[derive(Serialize, Deserialize)]
struct Variant {
    inputs: Inputs,
    asked: Vec<Asked>,
    reading: StoredReading,
}

/// Whether a reading came from the cache, for tests and timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Stored,
    Read,
}

/// [`kerncast_host::read`] through the cache in `dir`.
pub fn read(program: &Program, opts: &Options, dir: &Path) -> Result<HostReading, String> {
    read_noting(program, opts, dir).map(|(r, _)| r)
}

/// [`read`], and whether the reading came from the cache.
pub fn read_noting(
    program: &Program,
    opts: &Options,
    dir: &Path,
) -> Result<(HostReading, Source), String> {
    let cache = Cache::new(dir.to_path_buf());
    let Some(key) = key(program, opts) else {
        return read_fresh(program, opts).map(|(r, _)| (r, Source::Read));
    };
    let mut entry: Option<Entry> = cache.get_value(&key);
    if let Some(e) = &mut entry {
        if let Some(i) = holding(e, opts) {
            return Ok((e.variants.swap_remove(i).reading.reading(), Source::Stored));
        }
    }
    let since = std::time::SystemTime::now();
    let (reading, asked) = read_fresh(program, opts)?;
    let taken = reading
        .inputs
        .as_ref()
        .zip(asked)
        .and_then(|(files, asked)| {
            Some((Inputs::take(files, &search_folders(program), since)?, asked))
        });
    if let Some((inputs, asked)) = taken {
        // the others of the key, where they were asked other questions or answered otherwise
        let others = entry.map(|e| e.variants).unwrap_or_default();
        let others = others.into_iter().filter(|v| v.asked != asked);
        let mut variants = vec![Variant {
            inputs,
            asked: asked.clone(),
            reading: StoredReading::of(&reading),
        }];
        variants.extend(others.take(MAX_VARIANTS - 1));
        cache.put_value(&key, &Entry { variants });
    }
    Ok((reading, Source::Read))
}

/// The first reading of `entry` that still holds.
fn holding(entry: &Entry, opts: &Options) -> Option<usize> {
    let oracle = opts.occupancy.as_deref();
    entry
        .variants
        .iter()
        .position(|v| v.inputs.unchanged() && oracle::answers_alike(&v.asked, oracle))
}

/// A fresh reading, with the occupancy API's questions it asked (`None` where they were lost).
fn read_fresh(
    program: &Program,
    opts: &Options,
) -> Result<(HostReading, Option<Vec<Asked>>), String> {
    let recording = opts.occupancy.clone().map(|o| Arc::new(Recording::new(o)));
    let mut recorded = opts.clone();
    recorded.occupancy = recording.clone().map(|r| r as Arc<dyn OccupancyOracle>);
    let reading = kerncast_host::read(program, &recorded).map_err(|e| e.to_string())?;
    let asked = match &recording {
        Some(r) => r.asked(),
        None => Some(Vec::new()),
    };
    Ok((reading, asked))
}

/// The key of a reading of `program` with `opts` (see the module's notes); `None` where a
/// unit's file cannot be read (the reading says why).
fn key(program: &Program, opts: &Options) -> Option<String> {
    let cwd = std::env::current_dir().ok()?;
    let mut parts: Vec<Vec<u8>> = vec![
        FORM.into(),
        env!("CARGO_PKG_VERSION").into(),
        Cache::tool_fingerprint().into(),
        kerncast_host::clang::clang_version().into(),
        cwd.as_os_str().as_encoded_bytes().to_vec(),
        serde_json::to_vec(&program.args).ok()?,
        serde_json::to_vec(
            &opts
                .params
                .iter()
                .map(|(k, v)| (k, v.to_bits()))
                .collect::<Vec<_>>(),
        )
        .ok()?,
        serde_json::to_vec(&opts.device).ok()?,
        serde_json::to_vec(&opts.budget).ok()?,
        format!("{:?}", opts.toolchain).into(),
        format!(
            "find_main_beside={} occupancy={} run_dir={:?}",
            opts.find_main_beside,
            opts.occupancy.is_some(),
            opts.run_dir
        )
        .into(),
    ];
    for u in &program.units {
        parts.push(u.file.as_os_str().as_encoded_bytes().to_vec());
        parts.push(serde_json::to_vec(&u.args).ok()?);
        parts.push(serde_json::to_vec(&u.program).ok()?);
        parts.push(inputs::file_digest(&u.file)?.into());
    }
    Some(Cache::key(&parts))
}

/// The folders the units name for headers (`-I`, `-iquote`, `-isystem`, `-idirafter`), where
/// a new header could be found ahead of one a unit included.
fn search_folders(program: &Program) -> Vec<PathBuf> {
    const FLAGS: &[&str] = &["-I", "-iquote", "-isystem", "-idirafter"];
    let mut out = Vec::new();
    for u in &program.units {
        let mut it = u.args.iter();
        while let Some(a) = it.next() {
            let Some(flag) = FLAGS.iter().find(|f| a.starts_with(**f)) else {
                continue;
            };
            let rest = &a[flag.len()..];
            let dir = if rest.is_empty() {
                it.next().cloned()
            } else {
                Some(rest.to_string())
            };
            if let Some(d) = dir.filter(|d| !d.is_empty()) {
                out.push(PathBuf::from(d));
            }
        }
    }
    out
}
