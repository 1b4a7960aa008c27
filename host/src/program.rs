//! What a reading takes: the program, how to read it, and how it fails. Apart from the
//! readers, so that the Python reader and the C reader it reads a program's C++ with both take
//! them without importing the crate root.

use crate::compdb::{self, Toolchain, UnitSpec};
use crate::interp::{Budget, DeviceProps, OccupancyOracle};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A program to read.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub units: Vec<UnitSpec>,
    /// The command line it runs with, without `argv[0]`; `None`: run without arguments.
    pub args: Option<Vec<String>>,
}

/// How to read it.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Values for named assumptions (`n=4096`).
    pub params: BTreeMap<String, f64>,
    pub device: DeviceProps,
    pub budget: Budget,
    pub toolchain: Toolchain,
    /// Answers to the CUDA occupancy API for the program's kernels on the device; without
    /// them, what the host code sizes with it is an assumption named after its variable.
    pub occupancy: Option<std::sync::Arc<dyn OccupancyOracle>>,
    /// Where no unit defines `main`, also read the C, C++ and CUDA sources beside them (a
    /// compilation database that lists a program's CUDA files only). Off for files a user
    /// names: a folder of many programs would be parsed whole for each of its files.
    pub find_main_beside: bool,
    /// A folder to keep precompiled CUDA preludes in between runs (`clang::prelude`): a `.cu`
    /// unit then parses in about half the time, to the same AST. `None`: parse them whole.
    pub prelude_cache: Option<std::path::PathBuf>,
    /// The folder the program runs in: a file it reads that is not there is listed in the
    /// reading (`HostReading::missing_inputs`). `None`: files are not looked for.
    pub run_dir: Option<std::path::PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error(transparent)]
    CompDb(#[from] compdb::CompDbError),
    #[error("{0}")]
    Parse(String),
}

impl Program {
    /// Source files with the same flags (`-I`, `-D`, `-std`), as from the command line or
    /// `kerncast.toml`.
    pub fn from_files(files: &[PathBuf], flags: &[String], tools: &Toolchain) -> Program {
        let units = files
            .iter()
            .map(|f| {
                let file = std::fs::canonicalize(f).unwrap_or_else(|_| f.clone());
                let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
                let mut words = vec!["clang++".to_string()];
                words.extend(flags.iter().cloned());
                UnitSpec {
                    args: compdb::clang_args(&words, &file, &dir, tools),
                    file,
                    program: None,
                }
            })
            .collect();
        Program { units, args: None }
    }
}
