//! Lowering a translation unit as its own build did: the compile command of a compilation
//! database (`compile_commands.json`), turned into the same compiler's device-side command
//! that writes PTX. `clang++ -x cuda -O3 --cuda-gpu-arch=sm_86 -D… -I… file.cu` becomes
//! `clang++ … --cuda-device-only -S -o out.ptx` with `--cuda-path` pointing at the CUDA headers
//! kerncast bootstrapped (the whole real translation unit, host code and real headers
//! included; no prelude); `nvcc … -c file.cu` becomes `nvcc … -ptx -o out.ptx`. Outputs,
//! dependency files and host-only flags are dropped; every other flag is kept as written, so
//! the PTX is the one the measured build made (up to the compiler's version). A failure carries
//! the compiler's own diagnostics.

use super::{normalize_file_paths, run_compiler, tools, Frontend, LowerError, Lowered};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One entry of a compilation database, as written (the command split into words).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CompileCommand {
    /// The source, absolute.
    pub file: PathBuf,
    /// The folder the command runs in, absolute.
    pub directory: PathBuf,
    /// The command's words, compiler first.
    pub words: Vec<String>,
    /// gpuFLOPBench's `program` key, where the database has one.
    pub program: Option<String>,
}

#[derive(Deserialize)]
struct Entry {
    directory: String,
    file: String,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    arguments: Option<Vec<String>>,
    #[serde(default)]
    program: Option<String>,
}

/// Why a database could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DatabaseError {
    #[error("{file}: cannot read the compilation database: {source}")]
    Read {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{file}:{line}:{column}: not a compilation database: {message}")]
    Parse {
        file: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: entry {index} has a command kerncast cannot split into words")]
    Command { file: PathBuf, index: usize },
}

/// Reads a compilation database; `directory` and `file` become absolute (a relative
/// `directory` is relative to the database's folder).
pub fn read_database(path: &Path) -> Result<Vec<CompileCommand>, DatabaseError> {
    let text = std::fs::read_to_string(path).map_err(|source| DatabaseError::Read {
        file: path.to_path_buf(),
        source,
    })?;
    let entries: Vec<Entry> = serde_json::from_str(&text).map_err(|e| DatabaseError::Parse {
        file: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let base = path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let base = std::fs::canonicalize(&base).unwrap_or(base);
    entries
        .into_iter()
        .enumerate()
        .map(|(index, e)| {
            let words = match (e.arguments, e.command) {
                (Some(a), _) => a,
                (None, Some(c)) => shlex::split(&c).ok_or_else(|| DatabaseError::Command {
                    file: path.to_path_buf(),
                    index,
                })?,
                (None, None) => Vec::new(),
            };
            let directory = join(&base, &e.directory);
            Ok(CompileCommand {
                file: join(&directory, &e.file),
                directory,
                words,
                program: e.program,
            })
        })
        .collect()
}

fn join(base: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Which compiler a command runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compiler {
    Clang,
    Nvcc,
}

impl CompileCommand {
    /// The compiler the command runs, from its first word.
    pub fn compiler(&self) -> Option<Compiler> {
        let name = Path::new(self.words.first()?)
            .file_name()?
            .to_string_lossy()
            .into_owned();
        if name.starts_with("nvcc") {
            Some(Compiler::Nvcc)
        } else if name.starts_with("clang") {
            Some(Compiler::Clang)
        } else {
            None
        }
    }

    /// Whether the unit has device code: a CUDA source (`-x cuda`, `-x cu`, `.cu`), or any
    /// source nvcc compiles as CUDA (`.cu`, or `-x cu`).
    pub fn is_cuda(&self) -> bool {
        let ext = self
            .file
            .extension()
            .map(|e| e.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        let mut lang: Option<&str> = None;
        for w in self.words.windows(2) {
            if w[0] == "-x" {
                lang = Some(w[1].as_str());
            }
        }
        match lang {
            Some(l) => l == "cuda" || l == "cu",
            None => ext == "cu",
        }
    }

    /// The architecture the command compiles device code for (`--cuda-gpu-arch=`, `-arch=`,
    /// `-gencode arch=…,code=…`), the first where several are given.
    pub fn arch(&self) -> Option<String> {
        let mut it = self.words.iter().peekable();
        while let Some(w) = it.next() {
            if let Some(a) = w.strip_prefix("--cuda-gpu-arch=") {
                return Some(a.to_string());
            }
            if let Some(a) = w
                .strip_prefix("-arch=")
                .or_else(|| w.strip_prefix("--gpu-architecture="))
            {
                return Some(sm_of(a));
            }
            if w == "-arch" || w == "--gpu-architecture" {
                return it.peek().map(|a| sm_of(a));
            }
            if w == "-gencode" || w == "--generate-code" {
                return it.peek().map(|a| sm_of(a));
            }
            if let Some(a) = w.strip_prefix("-gencode=") {
                return Some(sm_of(a));
            }
        }
        None
    }
}

/// `sm_86` from `sm_86`, `compute_86`, `arch=compute_86,code=sm_86`.
fn sm_of(v: &str) -> String {
    let digits: String = v
        .split(['_', ',', '='])
        .find(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        .unwrap_or("")
        .to_string();
    if digits.is_empty() {
        v.to_string()
    } else {
        format!("sm_{digits}")
    }
}

/// Flags that end a command's work early or write something other than the object file, with
/// the value they take as the next word.
const OUTPUT_WITH_VALUE: &[&str] = &["-o", "-MF", "-MT", "-MQ", "--output-file", "-odir"];
const OUTPUT_ALONE: &[&str] = &[
    "-c",
    "-S",
    "-E",
    "-M",
    "-MM",
    "-MD",
    "-MMD",
    "-MP",
    "--compile",
    "-ptx",
    "--ptx",
    "-cubin",
    "-fatbin",
    "-dc",
    "-rdc=true",
    "--cuda-host-only",
    "--cuda-device-only",
    "--cuda-compile-host-device",
    "-fcolor-diagnostics",
];

/// The device-side command of `cmd` that writes PTX to `out`: the same compiler and flags, the
/// output and host-only flags replaced. `cuda_path` stands in for `$CUDA_PATH` and for the
/// command's own `--cuda-path` (the build machine's toolkit); `clang` and `nvcc` are the
/// compilers that run.
pub fn device_command(
    cmd: &CompileCommand,
    out: &Path,
    cuda_path: Option<&Path>,
    clang: &Path,
    nvcc: Option<&Path>,
) -> Result<Command, String> {
    let compiler = cmd.compiler().ok_or_else(|| {
        format!(
            "`{}` is neither clang nor nvcc",
            cmd.words.first().map(String::as_str).unwrap_or("")
        )
    })?;
    let file_name = cmd.file.file_name().map(|f| f.to_os_string());
    let mut args: Vec<String> = Vec::new();
    let mut i = 1;
    while i < cmd.words.len() {
        let w = cmd.words[i].replace("${CUDA_PATH}", "$CUDA_PATH");
        i += 1;
        if OUTPUT_ALONE.contains(&w.as_str()) {
            continue;
        }
        if OUTPUT_WITH_VALUE.contains(&w.as_str()) {
            i += 1;
            continue;
        }
        if w.starts_with("-o") && w.len() > 2 && compiler == Compiler::Clang {
            continue;
        }
        if w.starts_with("-MF") || w.starts_with("-MT") || w.starts_with("-MQ") {
            continue;
        }
        if w.starts_with("--cuda-path") {
            continue;
        }
        // the source: kerncast names it last
        if !w.starts_with('-') && {
            let p = Path::new(&w);
            p.file_name().map(|f| f.to_os_string()) == file_name
                && join(&cmd.directory, &w) == cmd.file
        } {
            continue;
        }
        args.push(match cuda_path {
            Some(p) => w.replace("$CUDA_PATH", &p.to_string_lossy()),
            None => w,
        });
    }
    let mut c = match compiler {
        Compiler::Clang => {
            let mut c = Command::new(clang);
            c.args(&args);
            if !args.iter().any(|a| a == "-x") {
                c.args(["-x", "cuda"]);
            }
            match cuda_path {
                Some(p) => {
                    c.arg(format!("--cuda-path={}", p.display()));
                }
                None => {
                    return Err(
                        "no CUDA headers to compile against: run `cargo xtask bootstrap` (or set KERNCAST_CUDA_PATH)"
                            .into(),
                    )
                }
            }
            // the headers kerncast bootstraps are newer than the clang it runs knows
            c.args([
                "--cuda-device-only",
                "-S",
                "-Wno-unknown-cuda-version",
                "-gline-tables-only",
                "-gdwarf-4",
            ]);
            c
        }
        Compiler::Nvcc => {
            let nvcc = nvcc.ok_or_else(|| {
                format!(
                    "nvcc not found (the command runs nvcc); install it with `{}`",
                    super::INSTALL_HINT
                )
            })?;
            let mut c = Command::new(nvcc);
            c.args(&args).args(["-ptx", "-lineinfo"]);
            c
        }
    };
    c.current_dir(&cmd.directory)
        .arg("-o")
        .arg(out)
        .arg(&cmd.file);
    Ok(c)
}

/// Lowers one unit of a compilation database to PTX with its own command, device side only.
/// `cuda_path`: the CUDA install layout clang compiles against (`.toolchain/cuda-12`).
pub fn lower_command(
    cmd: &CompileCommand,
    cuda_path: Option<&Path>,
) -> Result<Lowered, LowerError> {
    let clang = tools::clang().ok_or_else(|| LowerError::ToolMissing {
        tool: "clang-19".into(),
        path: cmd.file.clone(),
        install: super::INSTALL_HINT,
    })?;
    let nvcc = tools::find_tool("nvcc");
    let tmp = tempfile::tempdir().map_err(|source| LowerError::Io {
        context: "creating a temp dir for the device-side compile".into(),
        source,
    })?;
    let out = tmp.path().join("out.ptx");
    let frontend = match cmd.compiler() {
        Some(Compiler::Nvcc) => Frontend::Nvcc,
        _ => Frontend::Clang,
    };
    let command = device_command(cmd, &out, cuda_path, &clang, nvcc.as_deref()).map_err(|why| {
        LowerError::Compile {
            path: cmd.file.clone(),
            frontend,
            status: "not run".into(),
            command: cmd.words.join(" "),
            diagnostics: why,
        }
    })?;
    let (ptx, command) = run_compiler(command, &cmd.file, frontend, &out)?;
    Ok(Lowered {
        ptx: normalize_file_paths(&ptx, Some(tmp.path())),
        frontend,
        command: command.replace(&*tmp.path().to_string_lossy(), "$TMP"),
        notes: vec![format!(
            "lowered with the unit's own compile command, device side ({})",
            cmd.words.first().map(String::as_str).unwrap_or("")
        )],
    })
}

/// The cause of a lowering failure in a few words, from the compiler's diagnostics (for
/// summaries: a missing header, an error in the program's code, a compiler crash).
pub fn failure_cause(e: &LowerError) -> String {
    match e {
        LowerError::Compile { diagnostics, .. } => {
            let d = diagnostics;
            if d.contains("file not found") || d.contains("No such file") {
                let header = d
                    .lines()
                    .find(|l| l.contains("file not found"))
                    .and_then(|l| l.split('\'').nth(1))
                    .unwrap_or("?");
                format!("a header is missing ({header})")
            } else if d.contains("PLEASE submit a bug report") || d.contains("Stack dump") {
                "the compiler crashed".into()
            } else if d.contains("error:") || d.contains(": error") {
                let first = d
                    .lines()
                    .find(|l| l.contains("error"))
                    .map(|l| {
                        let l = l.split("error:").nth(1).unwrap_or(l).trim();
                        l.chars().take(80).collect::<String>()
                    })
                    .unwrap_or_default();
                format!("the compiler reports an error: {first}")
            } else {
                "the compiler failed".into()
            }
        }
        LowerError::ToolMissing { tool, .. } => format!("{tool} not found"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(words: &str, file: &str) -> CompileCommand {
        CompileCommand {
            file: PathBuf::from("/data").join(file),
            directory: PathBuf::from("/data"),
            words: shlex::split(words).unwrap_or_default(),
            program: None,
        }
    }

    fn args(c: &Command) -> Vec<String> {
        c.get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn a_clang_command_keeps_its_flags_and_compiles_the_device_side() {
        let c = cmd(
            "clang++ -Isrc/x -O3 -DNDEBUG -std=gnu++14 --cuda-gpu-arch=sm_86 --cuda-path=$CUDA_PATH -x cuda -c src/x/main.cu",
            "src/x/main.cu",
        );
        assert_eq!(c.compiler(), Some(Compiler::Clang));
        assert!(c.is_cuda());
        assert_eq!(c.arch().as_deref(), Some("sm_86"));
        let d = device_command(
            &c,
            Path::new("/tmp/o.ptx"),
            Some(Path::new("/cuda12")),
            Path::new("clang-19"),
            None,
        )
        .unwrap();
        let a = args(&d);
        for want in [
            "-Isrc/x",
            "-O3",
            "-DNDEBUG",
            "-std=gnu++14",
            "--cuda-gpu-arch=sm_86",
            "--cuda-path=/cuda12",
            "--cuda-device-only",
            "-S",
        ] {
            assert!(a.iter().any(|x| x == want), "{want} missing in {a:?}");
        }
        assert!(
            !a.iter().any(|x| x == "-c" || x == "--cuda-path=$CUDA_PATH"),
            "{a:?}"
        );
        // the source comes last, once
        assert_eq!(a.last().map(String::as_str), Some("/data/src/x/main.cu"));
        assert_eq!(a.iter().filter(|x| x.ends_with("main.cu")).count(), 1);
    }

    #[test]
    fn an_nvcc_command_writes_ptx() {
        let c = cmd("nvcc -arch=sm_70 -O3 -DN=4 -o k.o -c k.cu", "k.cu");
        assert_eq!(c.compiler(), Some(Compiler::Nvcc));
        assert_eq!(c.arch().as_deref(), Some("sm_70"));
        let d = device_command(
            &c,
            Path::new("/tmp/o.ptx"),
            None,
            Path::new("clang-19"),
            Some(Path::new("nvcc")),
        )
        .unwrap();
        let a = args(&d);
        assert!(a.iter().any(|x| x == "-ptx"), "{a:?}");
        assert!(!a.iter().any(|x| x == "k.o" || x == "-c"), "{a:?}");
        assert!(a.iter().any(|x| x == "-DN=4"));
    }

    #[test]
    fn host_sources_have_no_device_code() {
        assert!(!cmd("clang++ -O3 -c util.cpp", "util.cpp").is_cuda());
        assert!(cmd("clang++ -x cuda -O3 -c k.cpp", "k.cpp").is_cuda());
        assert_eq!(sm_of("arch=compute_80,code=sm_80"), "sm_80");
    }
}
