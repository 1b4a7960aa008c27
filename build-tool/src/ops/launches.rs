//! `kerncast launches PROGRAM… [--compile-commands F] [--args "…"] [--json]`: what kerncast
//! thinks a program launches (the host reading of `kerncast-host`), launch by launch, then
//! what it could not resolve and why.

use crate::Error;
use kerncast_host::{HostReading, Launch, Options, Program, Toolchain};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Source files or folders of the program (host and kernels).
    #[arg(required = true)]
    pub program: Vec<PathBuf>,
    /// A compilation database (`compile_commands.json`); without it one is looked for beside
    /// the program and in `build/`, as clangd does, else the files are read with -I/-D/-std.
    #[arg(long)]
    pub compile_commands: Option<PathBuf>,
    /// The program's command line (without the program's name), e.g. `--args "2048 100"`.
    #[arg(long, allow_hyphen_values = true)]
    pub args: Option<String>,
    /// A value for a name the host code leaves unknown: `--param n=4096`.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Answer the host code's device queries (`cudaGetDeviceProperties`) for this device.
    #[arg(long)]
    pub device: Option<String>,
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    #[arg(short = 'D', value_name = "MACRO[=VALUE]")]
    pub define: Vec<String>,
    /// The C++ standard (`c++17`).
    #[arg(long = "std")]
    pub std: Option<String>,
    /// The folder the program runs in, where the files it opens by relative paths are
    /// (default: the current folder); a file it reads that is not there is listed.
    #[arg(long, value_name = "DIR")]
    pub run_dir: Option<PathBuf>,
    /// Machine-readable output: a list of launch objects.
    #[arg(long)]
    pub json: bool,
}

/// The program the arguments name, read.
pub fn read(args: &Args) -> crate::Result<HostReading> {
    let tools = Toolchain::discover();
    let program = program_of(args, &tools)?;
    let mut opts = Options {
        toolchain: tools,
        // one program, named by the user: its `main` may be in a file beside the one named
        find_main_beside: true,
        prelude_cache: Some(crate::cache::Cache::host_preludes_dir()),
        run_dir: args
            .run_dir
            .clone()
            .or_else(|| std::env::current_dir().ok()),
        ..Options::default()
    };
    for p in &args.params {
        let (name, value) = p
            .split_once('=')
            .ok_or_else(|| Error::Flag(format!("--param {p}: expected NAME=VALUE")))?;
        let v: f64 = value
            .trim()
            .parse()
            .map_err(|_| Error::Flag(format!("--param {p}: `{value}` is not a number")))?;
        opts.params.insert(name.trim().to_string(), v);
    }
    if let Some(d) = &args.device {
        opts.device = device_props(d)?;
    }
    let reading = kerncast_host::read(&program, &opts).map_err(|e| Error::Input(e.to_string()))?;
    unknown_params(&opts, &reading)?;
    Ok(reading)
}

/// A `--param` the program never read is a typo or a name it does not have: an error listing
/// the names it has (the values its launches leave unknown, and those it read).
fn unknown_params(opts: &Options, reading: &HostReading) -> crate::Result<()> {
    let unused: Vec<&String> = opts
        .params
        .keys()
        .filter(|k| !reading.params_used.contains(*k))
        .collect();
    if unused.is_empty() {
        return Ok(());
    }
    let mut names: std::collections::BTreeSet<String> =
        reading.assumptions.keys().cloned().collect();
    names.extend(reading.params_used.iter().cloned());
    for l in &reading.launches {
        let scalars = l
            .grid
            .iter()
            .chain(&l.block)
            .chain(std::iter::once(&l.shared_bytes));
        for s in scalars.chain(l.args.values()) {
            if let Some(n) = s.unknown_name() {
                names.insert(n.to_string());
            }
        }
    }
    let listed = if names.is_empty() {
        "it has none".to_string()
    } else {
        format!(
            "the names it has: {}",
            names.into_iter().collect::<Vec<_>>().join(", ")
        )
    };
    Err(Error::Flag(format!(
        "--param {}: the program has no value of that name ({listed})",
        unused
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

fn program_of(args: &Args, tools: &Toolchain) -> crate::Result<Program> {
    let mut files = Vec::new();
    for p in &args.program {
        if !p.exists() {
            return Err(Error::Input(format!(
                "{}: no such file or folder",
                p.display()
            )));
        }
        if p.is_dir() {
            files.extend(sources_in(p));
        } else {
            files.push(p.clone());
        }
    }
    let files: Vec<PathBuf> = files
        .iter()
        .map(|f| std::fs::canonicalize(f).unwrap_or_else(|_| f.clone()))
        .collect();
    let db = match &args.compile_commands {
        Some(c) => Some(c.clone()),
        None => args
            .program
            .first()
            .and_then(|p| kerncast_host::compdb::find_near(p)),
    };
    let mut program = match db {
        Some(db) => {
            let units =
                kerncast_host::compdb::read(&db, tools).map_err(|e| Error::Input(e.to_string()))?;
            let units: Vec<_> = units
                .into_iter()
                .filter(|u| files.iter().any(|f| u.file == *f || u.file.starts_with(f)))
                .collect();
            if units.is_empty() {
                from_flags(args, &files, tools)
            } else {
                Program { units, args: None }
            }
        }
        None => from_flags(args, &files, tools),
    };
    program.args = args.args.as_ref().map(|a| {
        shlex::split(a).unwrap_or_else(|| a.split_whitespace().map(String::from).collect())
    });
    Ok(program)
}

fn from_flags(args: &Args, files: &[PathBuf], tools: &Toolchain) -> Program {
    let mut flags: Vec<String> = args
        .include
        .iter()
        .map(|i| format!("-I{}", i.display()))
        .collect();
    flags.extend(args.define.iter().map(|d| format!("-D{d}")));
    if let Some(s) = &args.std {
        flags.push(format!("-std={s}"));
    }
    Program::from_files(files, &flags, tools)
}

/// The C, C++ and CUDA sources of a folder, in name order.
fn sources_in(dir: &Path) -> Vec<PathBuf> {
    const SOURCES: &[&str] = &["c", "cc", "cpp", "cxx", "cu"];
    let mut out: Vec<PathBuf> = ignore::WalkBuilder::new(dir)
        .build()
        .filter_map(|e| e.ok().map(|e| e.into_path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|e| SOURCES.contains(&e.to_string_lossy().as_ref()))
        })
        .collect();
    out.sort();
    out
}

/// What the host code can ask of a bundled device profile.
pub fn device_props(name: &str) -> crate::Result<kerncast_host::DeviceProps> {
    let d = kerncast_models::Device::load(name).map_err(|e| Error::Device(e.to_string()))?;
    Ok(crate::host_workloads::program::device_props(&d))
}

fn dims(d: &[kerncast_host::Scalar; 3]) -> String {
    format!("({}, {}, {})", d[0], d[1], d[2])
}

/// The text report: each launch, then what is unknown, never reached, or assumed.
pub fn render(r: &HostReading) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} launch{}",
        r.launches.len(),
        if r.launches.len() == 1 { "" } else { "es" }
    );
    for l in &r.launches {
        let _ = writeln!(
            out,
            "  {}:{}  {}  grid {}  block {}{}  x{}",
            short_path(&l.file),
            l.line,
            l.kernel,
            dims(&l.grid),
            dims(&l.block),
            match &l.shared_bytes {
                kerncast_host::Scalar::Int(0) => String::new(),
                s => format!("  shared {s}"),
            },
            l.count
        );
        let scalars: Vec<String> = l
            .args
            .iter()
            .filter(|(_, v)| {
                matches!(
                    v,
                    kerncast_host::Scalar::Int(_) | kerncast_host::Scalar::Float(_)
                )
            })
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        if !scalars.is_empty() {
            let _ = writeln!(out, "      args: {}", scalars.join(", "));
        }
        // the device allocations the pointer arguments point into (bytes from the pointer on)
        let buffers: Vec<String> = l
            .buffer_bytes
            .iter()
            .map(|(n, v)| {
                // whether the emulator gets the bytes the host wrote into it
                let data = match l.buffer_data.get(n) {
                    Some(d) if d.after_a_kernel => ", the host's data (a kernel ran on it since)",
                    Some(d) if d.drawn.as_ref().is_some_and(|d| !d.is_exact()) => {
                        ", values like the host's"
                    }
                    Some(_) => ", the host's data",
                    None => "",
                };
                match v.unknown_reason() {
                    Some(why) => format!("{n}=? ({why})"),
                    None => format!("{n}={v} B{data}"),
                }
            })
            .collect();
        if !buffers.is_empty() {
            let _ = writeln!(out, "      buffers: {}", buffers.join(", "));
        }
        if !l.via.is_empty() {
            let _ = writeln!(out, "      via: {}", l.via.join(" → "));
        }
        for c in &l.conditions {
            let _ = writeln!(out, "      only if {c}");
        }
        if let Some(n) = &l.count_note {
            let _ = writeln!(out, "      count: at least {} ({n})", l.count);
        }
        for (what, why) in l.unknowns() {
            let _ = writeln!(out, "      unknown {what}: {why}");
        }
    }
    if !r.unreached.is_empty() {
        let _ = writeln!(out, "not reached:");
        for u in &r.unreached {
            let _ = writeln!(
                out,
                "  {}:{}  {}  ({})",
                short_path(&u.file),
                u.line,
                u.kernel.as_deref().unwrap_or(&u.api),
                u.reason
            );
        }
    }
    if !r.assumptions.is_empty() {
        let _ = writeln!(out, "unknown names (give them with --param NAME=VALUE):");
        for (n, why) in &r.assumptions {
            let _ = writeln!(out, "  {n}: {why}");
        }
    }
    if !r.missing_inputs.is_empty() {
        let _ = writeln!(
            out,
            "files it reads that are not where it runs (what it reads from them is unknown):"
        );
        for (file, by) in &r.missing_inputs {
            let _ = writeln!(out, "  {file} (read by `{by}`)");
        }
    }
    for n in &r.notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

fn short_path(p: &str) -> String {
    let cwd = std::env::current_dir().ok();
    match cwd.and_then(|c| Path::new(p).strip_prefix(&c).ok().map(Path::to_path_buf)) {
        Some(rel) => rel.display().to_string(),
        None => p.to_string(),
    }
}

/// One launch as the JSON list gives it.
pub fn json_row(l: &Launch) -> serde_json::Value {
    let args: BTreeMap<&String, &kerncast_host::Scalar> = l.args.iter().collect();
    let unknown: BTreeMap<String, String> = l.unknowns().into_iter().collect();
    let mut row = serde_json::json!({
        "kernel": l.kernel,
        "name": l.name,
        "symbol": l.symbol,
        "grid": l.grid,
        "block": l.block,
        "shared_bytes": l.shared_bytes,
        "count": l.count,
        "count_note": l.count_note,
        "args": args,
        "file": l.file,
        "line": l.line,
        "api": l.api,
        "conditions": l.conditions,
        "unknown": unknown,
    });
    // the device allocations the pointer arguments point into, where the host sizes any
    if !l.buffer_bytes.is_empty() {
        row["buffer_bytes"] = serde_json::json!(l.buffer_bytes);
    }
    row
}
