//! `kerncast analyze`: predict every kernel of a kerncast.toml or of the given files and folders,
//! write JSON, Markdown and HTML reports, print a summary table. Thin: the work is in
//! [`crate::pipeline`] and [`crate::report`].

use crate::check::GateThresholds;
use crate::config::Config;
use crate::lower::LowerArgs;
use crate::pipeline::{self, Job, Options};
use crate::report::{self, Report};
use crate::Error;
use std::path::{Path, PathBuf};

/// Which kernels, devices and model: shared by `analyze` and `check`.
#[derive(clap::Args, Debug, Clone)]
pub struct Inputs {
    /// Kernel sources or folders (.cu, .cl, .ll, .bc, .ptx), and host code (.c, .cpp, .py)
    /// read for its kernels' launches and the programs its strings carry. Without any,
    /// `--config` (or ./kerncast.toml) is read.
    pub files: Vec<PathBuf>,
    /// kerncast.toml with kernels, workloads, devices and thresholds.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Device profile name or file (repeatable); overrides the config's `devices`.
    #[arg(long = "device")]
    pub devices: Vec<String>,
    /// Model: auto, linear, schedule, dvfs or roofline; overrides the config's first `models` entry.
    #[arg(long)]
    pub model: Option<String>,
    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    pub jobs: usize,
    /// Do not read or write the cache of lowered PTX, ptxas resources and results
    /// ($KERNCAST_CACHE or target/kerncast-cache).
    #[arg(long)]
    pub no_cache: bool,
    /// [KERNEL:]NAME=VALUE (repeatable): a value for a name the host code leaves unknown (a
    /// size read at run time, an OpenCL local size left to the runtime), else for a kernel
    /// parameter or a name a workload reads; with KERNEL, for that kernel's launches only. A
    /// name nothing has is an error that lists the names there are.
    #[arg(long = "param", value_name = "[KERNEL:]NAME=VALUE")]
    pub params: Vec<String>,
    /// Also predict each workload at 1/16 … 4× its size parameter, for the report's chart of
    /// time against problem size: up to seven more counts and L2 reuse walks per workload,
    /// several times the cost of the workloads themselves, so a build does without it.
    #[arg(long)]
    pub size_chart: bool,
    /// Count FLOPs on ptxas's own SASS of each PTX block (`nvdisasm -gp`) where ptxas
    /// assembles for the device's architecture, not only by the per-instruction expansion
    /// table: what ptxas fuses, keeps or folds in context, as Nsight counts it. About 0.3 s of
    /// CPU a source file for nvdisasm, so a build does without it (`realcode` counts so).
    #[arg(long)]
    pub sass_in_context: bool,
    #[command(flatten)]
    pub host: HostArgs,
    #[command(flatten)]
    pub lower: LowerArgs,
}

/// How the host code runs and is built: shared by the subcommands that read it.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct HostArgs {
    /// The program's command line (without its name), e.g. `--args "2048 100"`; without it the
    /// host code is read as run without arguments.
    #[arg(long, allow_hyphen_values = true)]
    pub args: Option<String>,
    /// A compilation database (`compile_commands.json`) whose flags the host code is read
    /// with; without it one is looked for beside the files and in `build/`, as clangd does.
    #[arg(long)]
    pub compile_commands: Option<PathBuf>,
}

impl HostArgs {
    /// The run of the host code of `files`.
    pub fn run_spec(&self, files: &[PathBuf]) -> crate::host_workloads::RunSpec {
        crate::host_workloads::RunSpec {
            args: self.args.as_ref().map(|a| {
                shlex::split(a).unwrap_or_else(|| a.split_whitespace().map(String::from).collect())
            }),
            compile_commands: self.compile_commands.clone().or_else(|| {
                files
                    .first()
                    .and_then(|f| kerncast_host::compdb::find_near(f))
            }),
            run_dir: None,
        }
    }
}

/// Jobs, options and gate thresholds resolved from the inputs.
pub struct Resolved {
    pub jobs: Vec<Job>,
    pub options: Options,
    pub thresholds: GateThresholds,
    /// The folder the Markdown and HTML reports show paths relative to.
    pub root: Option<PathBuf>,
}

impl Inputs {
    pub fn resolve(&self) -> crate::Result<Resolved> {
        // Without files or a kerncast.toml, a compilation database names them (`--compile-commands`,
        // else ./compile_commands.json or ./build/compile_commands.json, where CMake's
        // CMAKE_EXPORT_COMPILE_COMMANDS writes it), with each file's include folders and macros.
        let mut from_db: Option<(PathBuf, Vec<kerncast_host::compdb::UnitSpec>)> = None;
        let config_path = match (&self.config, self.files.is_empty()) {
            (Some(c), _) => Some(c.clone()),
            (None, true) if Path::new("kerncast.toml").is_file() => {
                Some(PathBuf::from("kerncast.toml"))
            }
            (None, true) => {
                let db = self.host.compile_commands.clone().or_else(|| {
                    ["compile_commands.json", "build/compile_commands.json"]
                        .into_iter()
                        .map(PathBuf::from)
                        .find(|p| p.is_file())
                });
                let Some(db) = db else {
                    return Err(Error::Input(
                        "nothing to analyse: give kernel files or folders, --config kerncast.toml, \
                         or --compile-commands build/compile_commands.json (a CMake build with \
                         CMAKE_EXPORT_COMPILE_COMMANDS=ON writes it)"
                            .to_string(),
                    ));
                };
                let units =
                    kerncast_host::compdb::read(&db, &kerncast_host::compdb::Toolchain::discover())
                        .map_err(|e| Error::Input(e.to_string()))?;
                from_db = Some((db, units));
                None
            }
            (None, false) => {
                if Path::new("kerncast.toml").is_file() {
                    // said, not silently ignored: its workloads and thresholds do not apply
                    eprintln!(
                        "note: ./kerncast.toml is not read when files are named; pass \
                         --config kerncast.toml to use it"
                    );
                }
                None
            }
        };
        let db_files = from_db.as_ref().map(|(db, units)| compdb_files(db, units));
        if let Some(Err(e)) = &db_files {
            return Err(Error::Input(e.to_string()));
        }
        let db_files: Option<Vec<PathBuf>> = db_files.map(|r| r.unwrap_or_default());
        let files: &[PathBuf] = db_files.as_deref().unwrap_or(&self.files);
        let config = match &config_path {
            Some(p) => Some(Config::load(p)?),
            None => None,
        };
        if let Some(c) = &config {
            kerncast_passes::budget::set_from_config(&c.budgets);
        }
        let devices = if !self.devices.is_empty() {
            self.devices.clone()
        } else {
            config
                .as_ref()
                .map(|c| c.devices.clone())
                .unwrap_or_default()
        };
        if devices.is_empty() {
            return Err(Error::Device("no device: pass --device NAME (e.g. gtx-titan-x) or set `devices` in kerncast.toml".to_string()));
        }
        let base = self.lower.options_for(&devices);
        let mut jobs = match (&config, self.files.is_empty()) {
            (Some(c), true) => pipeline::jobs_from_config(c, &base),
            _ => {
                pipeline::jobs_from_paths(files, &base).map_err(|m| Error::Input(m.to_string()))?
            }
        };
        // The compilation database the host code is read with also says how each of its
        // files is built: those are lowered as the build compiles them.
        let db = match &from_db {
            Some((db, _)) => Some(db.clone()),
            None => self.host.run_spec(files).compile_commands,
        };
        if let Some(db) = db.filter(|_| config.is_none() || !self.files.is_empty()) {
            follow_compile_commands(&mut jobs, &db, &self.lower, from_db.as_ref().map(|d| &d.1))?;
        }
        for j in &mut jobs {
            j.sass_in_context = self.sass_in_context;
        }
        if jobs.is_empty() {
            return Err(Error::Workload("no kernel sources found".to_string()));
        }
        jobs.sort_by(|a, b| a.display_path.cmp(&b.display_path));
        let cache = (!self.no_cache).then(crate::cache::Cache::default_dir);
        for j in &mut jobs {
            j.cache = cache.clone();
        }
        let model = self
            .model
            .clone()
            .or_else(|| config.as_ref().and_then(|c| c.models.first().cloned()))
            .unwrap_or_else(|| "auto".into());
        // Where the reports' paths start: the config's folder (its paths are relative to it),
        // the working directory for a compilation database's files (made relative to it) and
        // for files named relative to it, else the folder that holds every file named.
        let root = match (&config_path, &from_db) {
            (Some(c), _) => {
                let dir = c.parent().unwrap_or(Path::new(""));
                crate::report::shown::absolute(dir)
            }
            (None, Some(_)) => crate::report::shown::absolute(Path::new(".")),
            (None, None) => {
                let mut named = files.to_vec();
                if files.iter().any(|f| f.is_relative()) {
                    named.push(PathBuf::from("."));
                }
                crate::report::shown::common_folder(&named)
            }
        };
        let mut thresholds = GateThresholds::default();
        if let Some(c) = &config {
            thresholds.default = c.thresholds.clone();
            for k in &c.kernels {
                if let Some(n) = &k.name {
                    thresholds
                        .per_kernel
                        .insert(n.clone(), k.thresholds.clone());
                }
            }
        }
        Ok(Resolved {
            jobs,
            options: Options {
                devices,
                model,
                jobs: self.jobs,
                progress: true,
                cache,
                hot_lines: 8,
                size_chart: self.size_chart,
                only_launches: None,
                params: crate::params::parse(&self.params)
                    .map_err(|e| Error::Flag(e.to_string()))?,
                run: {
                    let mut run = self.host.run_spec(files);
                    if let Some((db, _)) = &from_db {
                        run.compile_commands = Some(db.clone());
                    }
                    run
                },
            },
            thresholds,
            root,
        })
    }
}

/// The source files a compilation database compiles that kerncast reads (kernels and host
/// code), relative to the working directory where they are under it, so reports and baselines
/// name them the same on every machine; each once.
fn compdb_files(
    db: &Path,
    units: &[kerncast_host::compdb::UnitSpec],
) -> Result<Vec<PathBuf>, String> {
    const READ: &[&str] = &["cu", "cl", "ll", "bc", "ptx", "c", "cc", "cpp", "cxx", "py"];
    let cwd = std::env::current_dir()
        .ok()
        .and_then(|d| std::fs::canonicalize(d).ok());
    let mut out: Vec<PathBuf> = Vec::new();
    for u in units {
        let ext = u
            .file
            .extension()
            .map(|e| e.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        if !READ.contains(&ext.as_str()) || !u.file.is_file() {
            continue;
        }
        let f = std::fs::canonicalize(&u.file).unwrap_or_else(|_| u.file.clone());
        let f = match &cwd {
            Some(c) => f.strip_prefix(c).map(Path::to_path_buf).unwrap_or(f),
            None => f,
        };
        if !out.contains(&f) {
            out.push(f);
        }
    }
    if out.is_empty() {
        return Err(format!(
            "{}: the compilation database compiles no file kerncast reads (.cu, .cl, .cpp, …)",
            db.display()
        ));
    }
    Ok(out)
}

/// Each job whose file the database compiles gets the flags it is built with: a CUDA unit is
/// lowered with its own command (its compiler, architecture and flags, device side only), unless
/// the command line chose the front end or architecture; any other unit gets its `-I` and `-D`.
fn follow_compile_commands(
    jobs: &mut [Job],
    db: &Path,
    lower: &crate::lower::LowerArgs,
    units: Option<&Vec<kerncast_host::compdb::UnitSpec>>,
) -> crate::Result<()> {
    let commands = crate::lower::compile_command::read_database(db)
        .map_err(|e| Error::Input(e.to_string()))?;
    let read;
    let units = match units {
        Some(u) => u,
        None => {
            read = kerncast_host::compdb::read(db, &kerncast_host::compdb::Toolchain::discover())
                .map_err(|e| Error::Input(e.to_string()))?;
            &read
        }
    };
    let chosen = lower.frontend.is_some() || lower.arch.is_some();
    // each command's file resolved once, the first command of a file winning
    let mut by_file = std::collections::BTreeMap::new();
    for c in &commands {
        if let Ok(f) = std::fs::canonicalize(&c.file) {
            by_file.entry(f).or_insert(c);
        }
    }
    for j in jobs {
        if let Some(u) = unit_of(units, &j.path) {
            add_unit_flags(&mut j.lower, &u.args);
        }
        let command = std::fs::canonicalize(&j.path)
            .ok()
            .and_then(|f| by_file.get(&f).copied());
        if let Some(c) = command {
            crate::lower::compile_command::follow(&mut j.lower, c, chosen);
        }
    }
    Ok(())
}

/// The database's unit for `path` (compared as canonical paths).
fn unit_of<'a>(
    units: &'a [kerncast_host::compdb::UnitSpec],
    path: &Path,
) -> Option<&'a kerncast_host::compdb::UnitSpec> {
    let want = std::fs::canonicalize(path).ok()?;
    units
        .iter()
        .find(|u| std::fs::canonicalize(&u.file).is_ok_and(|f| f == want))
}

/// A unit's `-I` folders and `-D` macros (as a separate word or joined), added to how its
/// kernels are lowered: the flags the project's own build compiles the file with.
fn add_unit_flags(lower: &mut crate::lower::LowerOptions, args: &[String]) {
    let mut it = args.iter();
    while let Some(w) = it.next() {
        let value = |flag: &str, it: &mut std::slice::Iter<String>| -> Option<String> {
            match w.strip_prefix(flag)? {
                "" => it.next().cloned(),
                v => Some(v.to_string()),
            }
        };
        if let Some(dir) = value("-I", &mut it) {
            let dir = PathBuf::from(dir);
            if !lower.include_dirs.contains(&dir) {
                lower.include_dirs.push(dir);
            }
        } else if let Some(d) = value("-D", &mut it) {
            let (name, val) = match d.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (d, None),
            };
            if !lower.defines.iter().any(|(n, _)| *n == name) {
                lower.defines.push((name, val));
            }
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub inputs: Inputs,
    /// Folder for kerncast-report.{json,md,html} and kernels/*.json.
    #[arg(long, default_value = "target/kerncast")]
    pub out: PathBuf,
}

/// Analyses and writes the reports; returns the report (for tests and the other subcommands).
pub fn analyze(inputs: &Inputs, out: Option<&Path>) -> crate::Result<Report> {
    analyze_resolved(&inputs.resolve()?, out)
}

/// [`analyze`] for inputs already resolved.
pub fn analyze_resolved(r: &Resolved, out: Option<&Path>) -> crate::Result<Report> {
    let counter = crate::engine::default_counter();
    let mut report = pipeline::analyze(&r.jobs, &r.options, counter.as_ref());
    report.root = r.root.clone();
    if let Some(dir) = out {
        report::write_all(&report, dir)
            .map_err(|e| Error::Output(format!("writing reports to {}: {e}", dir.display())))?;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    /// A compile command's include folders and macros, joined or apart, reach the lowering;
    /// the options the command line gave stay first.
    #[test]
    fn a_units_flags_reach_the_lowering() {
        let mut lower = crate::lower::LowerOptions {
            defines: vec![("A".into(), Some("1".into()))],
            ..Default::default()
        };
        let args: Vec<String> = [
            "-I/p/include",
            "-I",
            "/q",
            "-DSTRIDE=32",
            "-D",
            "FOO",
            "-DA=2",
            "-isystem",
            "/sys",
            "-std=c++17",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        super::add_unit_flags(&mut lower, &args);
        assert_eq!(
            lower.include_dirs,
            [std::path::PathBuf::from("/p/include"), "/q".into()]
        );
        assert_eq!(
            lower.defines,
            [
                ("A".to_string(), Some("1".to_string())),
                ("STRIDE".into(), Some("32".into())),
                ("FOO".into(), None)
            ]
        );
    }
}
