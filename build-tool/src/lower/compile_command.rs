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
use std::path::Path;
use std::process::Command;

// The database is read once, by the host crate; lowering takes its entries as written.
pub use kerncast_host::compdb::{
    read_commands as read_database, CompDbError as DatabaseError, CompileCommand, Compiler,
};

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
                && kerncast_host::compdb::absolute(&cmd.directory, &w) == cmd.file
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
        tool: tools::clang_wanted(),
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

/// A CUDA unit is lowered with its own compile command (its compiler, architecture and flags,
/// device side only), unless the command line chose the front end or architecture (`chosen`).
pub fn follow(lower: &mut super::LowerOptions, c: &CompileCommand, chosen: bool) {
    if !c.is_cuda() || chosen {
        return;
    }
    if let Some(a) = c.arch() {
        lower.arch = a;
        lower.arch_note = None;
    }
    lower.command = Some(c.clone());
}

/// The first command of `commands` that compiles `file` (compared as canonical paths).
pub fn command_for<'a>(commands: &'a [CompileCommand], file: &Path) -> Option<&'a CompileCommand> {
    let want = std::fs::canonicalize(file).ok()?;
    commands
        .iter()
        .find(|c| std::fs::canonicalize(&c.file).is_ok_and(|f| f == want))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

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
        assert_eq!(
            kerncast_host::compdb::sm_of("arch=compute_80,code=sm_80"),
            "sm_80"
        );
    }
}
