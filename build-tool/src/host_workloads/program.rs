//! The host program kerncast reads: the C, C++, CUDA and Python files of an analysis, each with
//! the flags it is built with, read by `kerncast-host` once per device and set of host values.

use crate::lower::LowerOptions;
use kerncast_host::{DeviceProps, HostReading, Options, Program, Toolchain, UnitSpec};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// A reading of the program, or why there is none.
type Reading = Arc<Result<HostReading, String>>;

/// Whether a file is read as host code: C, C++, CUDA or Python.
pub fn is_host_code(p: &Path) -> bool {
    let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
    ["c", "cc", "cpp", "cxx", "c++", "cu", "py"].contains(&ext)
}

/// Whether a file is Python.
pub fn is_python(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "py")
}

/// A file of the program and how it is built.
pub struct HostFile<'a> {
    pub path: &'a Path,
    /// As the reports show it.
    pub shown: &'a str,
    pub lower: &'a LowerOptions,
}

/// How the program runs and is built, beyond its files.
#[derive(Clone, Debug, Default)]
pub struct RunSpec {
    /// Its command line (`--args "2048 100"`); `None`: run without arguments.
    pub args: Option<Vec<String>>,
    /// A compilation database whose flags the files are read with (`--compile-commands`).
    pub compile_commands: Option<PathBuf>,
    /// The folder the program runs in: a file it opens that is not there is listed as
    /// missing (`kerncast_host::Options::run_dir`); `None`: files are not looked for.
    pub run_dir: Option<PathBuf>,
}

/// The program's host code, and its readings so far.
pub struct HostProgram {
    program: Program,
    tools: Toolchain,
    /// The shown path of each file, by its canonical path.
    shown: BTreeMap<PathBuf, String>,
    /// Units from a compilation database: `main` may be in a source beside them.
    from_database: bool,
    run_dir: Option<PathBuf>,
    /// Each reading by its `ReadFor` key, made once: a thread that asks while another makes it
    /// waits for that one (a reading made ahead of the lowering, then the kernels' own).
    readings: Mutex<BTreeMap<String, Arc<OnceLock<Reading>>>>,
    /// Where readings are kept between runs ([`crate::host_cache`]); `None`: not kept.
    reading_cache: Option<PathBuf>,
}

/// What a reading is for: the device whose properties the host code asks for, the values of
/// host names, and the occupancy API's answers.
#[derive(Clone, Debug, Default)]
pub struct ReadFor {
    pub device: Option<String>,
    pub props: DeviceProps,
    pub values: BTreeMap<String, f64>,
    pub occupancy: Option<Arc<dyn kerncast_host::OccupancyOracle>>,
    /// Which answers `occupancy` gives: readings with the same label share them.
    pub answers_id: usize,
}

impl ReadFor {
    fn key(&self) -> String {
        let values: Vec<String> = self
            .values
            .iter()
            .map(|(k, v)| format!("{k}={v:e}"))
            .collect();
        format!("{:?}|{}|{}", self.device, values.join(","), self.answers_id)
    }
}

impl HostProgram {
    /// The program of `files` (none of them host code: `None`).
    pub fn new(files: &[HostFile<'_>], run: &RunSpec) -> Result<Option<HostProgram>, String> {
        let host: Vec<&HostFile> = files.iter().filter(|f| is_host_code(f.path)).collect();
        if host.is_empty() {
            return Ok(None);
        }
        let tools = Toolchain::discover();
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let db = match &run.compile_commands {
            Some(db) => Some(kerncast_host::compdb::read(db, &tools).map_err(|e| e.to_string())?),
            None => None,
        };
        let mut units = Vec::new();
        let mut shown = BTreeMap::new();
        for f in &host {
            let file = canonical(f.path);
            shown.insert(file.clone(), f.shown.to_string());
            let from_db = db
                .as_ref()
                .and_then(|units| units.iter().find(|u| u.file == file).cloned());
            units.push(from_db.unwrap_or_else(|| unit(&file, f.lower, &tools)));
        }
        Ok(Some(HostProgram {
            program: Program {
                units,
                args: run.args.clone(),
            },
            tools,
            shown,
            from_database: db.is_some(),
            run_dir: run.run_dir.clone(),
            readings: Mutex::new(BTreeMap::new()),
            reading_cache: None,
        }))
    }

    /// The program, its readings kept between runs in `dir` (`None`: not kept).
    pub fn with_reading_cache(mut self, dir: Option<PathBuf>) -> HostProgram {
        self.reading_cache = dir;
        self
    }

    /// The program read for `what`, once for each distinct `what`.
    pub fn read(&self, what: &ReadFor) -> Reading {
        let cell = match self.readings.lock() {
            Ok(mut m) => m.entry(what.key()).or_default().clone(),
            Err(_) => Arc::new(OnceLock::new()),
        };
        cell.get_or_init(|| self.read_now(what)).clone()
    }

    fn read_now(&self, what: &ReadFor) -> Reading {
        let opts = Options {
            params: what.values.clone(),
            device: what.props.clone(),
            toolchain: self.tools.clone(),
            occupancy: what.occupancy.clone(),
            find_main_beside: self.from_database,
            run_dir: self.run_dir.clone(),
            prelude_cache: Some(crate::cache::Cache::host_preludes_dir()),
            ..Options::default()
        };
        Arc::new(match &self.reading_cache {
            Some(dir) => crate::host_cache::read(&self.program, &opts, dir),
            None => kerncast_host::read(&self.program, &opts).map_err(|e| e.to_string()),
        })
    }

    /// A file of the reading as the reports show it: as the user gave it where it is one of
    /// the program's files, else relative to the working folder where it is under it.
    pub fn shown(&self, file: &str) -> String {
        let p = Path::new(file);
        if let Some(s) = self.shown.get(p) {
            return s.clone();
        }
        let cwd = std::env::current_dir().ok();
        match cwd.as_deref().and_then(|c| p.strip_prefix(c).ok()) {
            Some(rel) => rel.display().to_string(),
            None => file.to_string(),
        }
    }

    /// The files read, as shown.
    pub fn files(&self) -> Vec<String> {
        self.shown.values().cloned().collect()
    }
}

/// The unit of a file built with `lower`'s `-D`, `-I` and the standard its compiler arguments
/// name.
fn unit(file: &Path, lower: &LowerOptions, tools: &Toolchain) -> UnitSpec {
    let mut words = vec!["clang++".to_string()];
    for (name, value) in &lower.defines {
        words.push(match value {
            Some(v) => format!("-D{name}={v}"),
            None => format!("-D{name}"),
        });
    }
    for dir in &lower.include_dirs {
        words.push(format!("-I{}", dir.display()));
    }
    words.extend(
        lower
            .extra_args
            .iter()
            .filter(|a| a.starts_with("-std=") || a.starts_with("-D") || a.starts_with("-I"))
            .cloned(),
    );
    let dir = file
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    UnitSpec {
        args: kerncast_host::compdb::clang_args(&words, file, &dir, tools),
        file: file.to_path_buf(),
        program: None,
    }
}

/// What the host code can ask of a bundled or given device profile.
pub fn device_props(d: &kerncast_models::Device) -> DeviceProps {
    let v = |x: &Option<kerncast_models::device::Sourced<u32>>| x.as_ref().map(|s| s.value as i64);
    // `clockRate` and `memoryClockRate` in kHz, from the profile's default core and memory
    // clocks in MHz (the memory clock by the convention deviceQuery prints it in)
    let khz = |x: &Option<kerncast_models::device::Sourced<f64>>| {
        x.as_ref().map(|s| (s.value * 1000.0).round() as i64)
    };
    let cc =
        d.hw.compute_capability
            .as_ref()
            .map(|c| c.value.clone())
            .unwrap_or_default();
    let (major, minor) = match cc.split_once('.') {
        Some((a, b)) => (a.parse().ok(), b.parse().ok()),
        None => (None, None),
    };
    DeviceProps {
        name: Some(d.full_name.clone()),
        multi_processor_count: v(&d.hw.sm_count),
        max_threads_per_block: v(&d.hw.max_threads_per_block),
        max_threads_per_multi_processor: v(&d.hw.max_threads_per_sm),
        warp_size: v(&d.hw.warp_size),
        shared_mem_per_block: d.hw.shared_bytes_per_block.as_ref().map(|s| s.value as i64),
        total_global_mem: None,
        major,
        minor,
        clock_rate_khz: khz(&d.clocks.default_core_mhz),
        memory_clock_rate_khz: khz(&d.clocks.default_mem_mhz),
        memory_bus_width: v(&d.hw.mem_bus_bits),
        l2_cache_size: d.hw.l2_bytes.as_ref().map(|s| s.value as i64),
        regs_per_block: v(&d.hw.regs_per_block),
        regs_per_multiprocessor: v(&d.hw.regs_per_sm),
        shared_mem_per_multiprocessor: d.hw.shared_bytes_per_sm.as_ref().map(|s| s.value as i64),
        max_blocks_per_multi_processor: v(&d.hw.max_blocks_per_sm),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerncast_host::Scalar;

    /// The properties a host program reads of the device profile it is analysed for, through
    /// `cudaGetDeviceProperties` and `cudaDeviceGetAttribute`: the clocks in kHz, the L2, bus,
    /// register and per-SM limits, as `deviceQuery` would print them for the RTX 3080.
    #[test]
    fn the_host_code_reads_the_profiles_clocks_and_limits() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("props.cu");
        std::fs::write(
            &file,
            "__global__ void k(long n) {}\nint main() {\n  cudaDeviceProp p;\n  \
             cudaGetDeviceProperties(&p, 0);\n  long clocks = (long)(10 * p.clockRate);\n  \
             k<<<p.sharedMemPerMultiprocessor / 1024, p.maxBlocksPerMultiProcessor>>>(clocks);\n  \
             int l2 = 0, mhz = 0;\n  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);\n  \
             cudaDeviceGetAttribute(&mhz, cudaDevAttrMemoryClockRate, 0);\n  \
             k<<<l2 / (1 << 20), p.memoryBusWidth>>>(mhz / 1000);\n  \
             k<<<p.regsPerBlock / 1024, 32>>>(p.regsPerMultiprocessor);\n  return 0;\n}\n",
        )
        .unwrap();
        let tools = Toolchain::discover();
        let program = Program::from_files(&[file], &[], &tools);
        let d = kerncast_models::Device::load("rtx-3080").unwrap();
        let opts = Options {
            device: device_props(&d),
            toolchain: tools,
            ..Options::default()
        };
        let r = kerncast_host::read(&program, &opts).unwrap();
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        let seen: Vec<(Scalar, Scalar, Option<Scalar>)> = r
            .launches
            .iter()
            .map(|l| {
                (
                    l.grid[0].clone(),
                    l.block[0].clone(),
                    l.args.get("n").cloned(),
                )
            })
            .collect();
        let int = Scalar::Int;
        assert_eq!(
            seen,
            vec![
                (int(100), int(16), Some(int(17_100_000))),
                (int(5), int(320), Some(int(9500))),
                (int(64), int(32), Some(int(65536))),
            ]
        );
    }
}
