//! Which files make a program and the flags each is built with: a `compile_commands.json`
//! (clang's compilation database, as CMake and Bear write it), or files with `-I`/`-D`/`-std`
//! given by the caller. A command is turned into what libclang needs to read the file's host
//! side: nvcc's flags into clang's, relative paths made absolute, the CUDA headers kerncast
//! bootstraps in place of the build machine's.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One translation unit: a source file and the flags libclang parses it with.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitSpec {
    pub file: PathBuf,
    pub args: Vec<String>,
    /// The program the unit belongs to, where the database says (gpuFLOPBench's `program`).
    pub program: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum CompDbError {
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

/// Where the CUDA headers kerncast parses host code against live, and the clang resource
/// folder (builtin headers) for libclang.
#[derive(Clone, Debug, Default)]
pub struct Toolchain {
    /// A CUDA installation layout clang accepts (`include/cuda.h`, `nvvm/libdevice`).
    pub cuda_path: Option<PathBuf>,
    pub resource_dir: Option<PathBuf>,
}

impl Toolchain {
    /// The bootstrapped CUDA 12 headers (`$KERNCAST_CUDA_PATH`, `$KERNCAST_TOOLCHAIN/cuda-12`,
    /// or `.toolchain/cuda-12` beside the binary, the working directory or the checkout it was
    /// built from), and clang 19's resource folder.
    pub fn discover() -> Toolchain {
        let mut candidates: Vec<PathBuf> = Vec::new();
        if let Some(p) = std::env::var_os("KERNCAST_CUDA_PATH") {
            candidates.push(PathBuf::from(p));
        }
        if let Some(t) = std::env::var_os("KERNCAST_TOOLCHAIN") {
            candidates.push(PathBuf::from(t).join("cuda-12"));
        }
        if let Ok(exe) = std::env::current_exe() {
            // target/<profile>/kerncast → the checkout's .toolchain.
            for a in exe.ancestors().skip(1).take(4) {
                candidates.push(a.join(".toolchain/cuda-12"));
            }
        }
        if let Ok(cwd) = std::env::current_dir() {
            for a in cwd.ancestors().take(6) {
                candidates.push(a.join(".toolchain/cuda-12"));
            }
        }
        // the checkout kerncast was built from: an installed binary (`cargo install --path
        // build-tool` puts it in ~/.cargo/bin) finds the bootstrapped headers as it finds nvcc
        candidates.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.toolchain/cuda-12"));
        candidates.push(PathBuf::from("/usr/local/cuda"));
        let cuda_path = candidates
            .into_iter()
            .find(|c| c.join("include/cuda_runtime.h").is_file());
        let resource_dir = ["/usr/lib/llvm-19/lib/clang/19", "/usr/lib/clang/19"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.join("include/stddef.h").is_file());
        Toolchain {
            cuda_path,
            resource_dir,
        }
    }
}

/// One entry of a compilation database as written: its command split into words, its paths
/// absolute. The host reader turns it into a [`UnitSpec`]; the build tool lowers its kernels
/// with it as the build did.
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

    /// Whether the command keeps device code relocatable, for a device link with other units'
    /// (clang's `-fgpu-rdc`; nvcc's `-rdc=true`, `--relocatable-device-code=true`, `-rdc true`,
    /// `-dc`): a kernel of one unit may then call a device function another defines.
    pub fn relocatable_device_code(&self) -> bool {
        let on = |v: &str| matches!(v, "true" | "1");
        // the last word that says wins, as in both drivers
        let mut relocatable = false;
        let mut it = self.words.iter().peekable();
        while let Some(w) = it.next() {
            let value = w
                .strip_prefix("-rdc=")
                .or_else(|| w.strip_prefix("--relocatable-device-code="));
            match (w.as_str(), value) {
                ("-fgpu-rdc" | "-dc" | "--device-c", _) => relocatable = true,
                ("-fno-gpu-rdc", _) => relocatable = false,
                (_, Some(v)) => relocatable = on(v),
                ("-rdc" | "--relocatable-device-code", None) => {
                    relocatable = it.next().is_some_and(|v| on(v));
                }
                _ => {}
            }
        }
        relocatable
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
pub fn sm_of(v: &str) -> String {
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

/// Reads a compilation database's entries. `directory` becomes absolute (relative to the
/// database's folder) and `file` too (relative to its `directory`).
pub fn read_commands(path: &Path) -> Result<Vec<CompileCommand>, CompDbError> {
    let text = std::fs::read_to_string(path).map_err(|source| CompDbError::Read {
        file: path.to_path_buf(),
        source,
    })?;
    let entries: Vec<Entry> = serde_json::from_str(&text).map_err(|e| CompDbError::Parse {
        file: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    // a bare `compile_commands.json` has the parent "", which is the working directory
    let base = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let base = std::fs::canonicalize(&base).unwrap_or(base);
    entries
        .into_iter()
        .enumerate()
        .map(|(index, e)| {
            let words = match (e.arguments, e.command) {
                (Some(a), _) => a,
                (None, Some(c)) => shlex::split(&c).ok_or_else(|| CompDbError::Command {
                    file: path.to_path_buf(),
                    index,
                })?,
                (None, None) => Vec::new(),
            };
            let directory = absolute(&base, &e.directory);
            Ok(CompileCommand {
                file: source_of(absolute(&directory, &e.file), &words, &directory),
                directory,
                words,
                program: e.program,
            })
        })
        .collect()
}

/// The source an entry compiles. Where its `file` does not exist but the command names an
/// existing source of the same file name (a database written with the wrong folder), the
/// command's source wins: it is what the build compiled.
fn source_of(file: PathBuf, words: &[String], dir: &Path) -> PathBuf {
    if file.exists() {
        return file;
    }
    let name = file.file_name().map(|n| n.to_os_string());
    words
        .iter()
        .skip(1)
        .filter(|w| {
            !w.starts_with('-') && Path::new(w).file_name().map(|n| n.to_os_string()) == name
        })
        .map(|w| absolute(dir, w))
        .find(|alt| alt.exists())
        .unwrap_or(file)
}

/// Reads a compilation database as the units libclang parses.
pub fn read(path: &Path, tools: &Toolchain) -> Result<Vec<UnitSpec>, CompDbError> {
    let mut out = Vec::new();
    for c in read_commands(path)? {
        let dir = c.directory;
        let words = expand_response_files(c.words, &dir);
        let file = c.file;
        out.push(UnitSpec {
            args: clang_args(&words, &file, &dir, tools),
            file,
            program: c.program,
        });
    }
    Ok(out)
}

/// Replaces the response files of a command (`@FILE`, nvcc's `--options-file FILE` and
/// `-optf FILE`, relative to the entry's `directory`) with the words they hold: CMake passes a
/// CUDA target's include folders to nvcc in `includes_CUDA.rsp`. A file that cannot be read
/// stays as it was (the flag is then dropped like any other the reader does not know).
pub fn expand_response_files(words: Vec<String>, dir: &Path) -> Vec<String> {
    let read = |f: &str| -> Option<Vec<String>> {
        let text = std::fs::read_to_string(absolute(dir, f)).ok()?;
        shlex::split(&text)
    };
    let mut out = Vec::with_capacity(words.len());
    let mut it = words.into_iter();
    while let Some(w) = it.next() {
        let file = if w == "--options-file" || w == "-optf" {
            match it.next() {
                Some(f) => Some(f),
                None => {
                    out.push(w);
                    continue;
                }
            }
        } else if let Some(f) = w.strip_prefix("--options-file=") {
            Some(f.to_string())
        } else {
            w.strip_prefix('@')
                .filter(|f| !f.is_empty())
                .map(str::to_string)
        };
        match file.as_deref().map(|f| (f, read(f))) {
            Some((_, Some(inner))) => out.extend(inner),
            // unreadable: the words stay as they were
            Some((f, None)) if w == "--options-file" || w == "-optf" => {
                out.push(w.clone());
                out.push(f.to_string());
            }
            _ => out.push(w),
        }
    }
    out
}

/// Finds a `compile_commands.json` the way clangd does: in the folder, its `build/`, and the
/// same up through the parents.
pub fn find_near(start: &Path) -> Option<PathBuf> {
    let start = std::fs::canonicalize(start).ok()?;
    let dir = if start.is_file() {
        start.parent()?.to_path_buf()
    } else {
        start
    };
    for a in dir.ancestors() {
        for c in [
            a.join("compile_commands.json"),
            a.join("build/compile_commands.json"),
        ] {
            if c.is_file() {
                return Some(c);
            }
        }
    }
    None
}

/// `p` relative to `base` (unless absolute), with `.` and `..` resolved without touching the
/// file system.
pub fn absolute(base: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    normalize(&joined)
}

/// `a/./b/../c` → `a/c`, without touching the file system.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
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

/// Flags taking a path as their value, as a separate word or joined.
const PATH_FLAGS: &[&str] = &[
    "-I",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-include",
    "-imacros",
];

/// nvcc flags with a value that clang has no use for.
const NVCC_VALUE_FLAGS: &[&str] = &[
    "-ccbin",
    "--compiler-bindir",
    "-Xptxas",
    "--ptxas-options",
    "-Xlinker",
    "--linker-options",
    "-maxrregcount",
    "--maxrregcount",
    "-Xnvlink",
    "-t",
    "--threads",
    "-Xcudafe",
    "-gencode",
    "--generate-code",
    "-code",
    "--gpu-code",
];

/// The flags of a compile command (compiler first) as libclang should parse `file`'s host side.
pub fn clang_args(words: &[String], file: &Path, dir: &Path, tools: &Toolchain) -> Vec<String> {
    let compiler = words.first().map(String::as_str).unwrap_or("");
    let nvcc = Path::new(compiler)
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("nvcc"));
    let ext = file
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let mut out: Vec<String> = Vec::new();
    let mut arch: Option<String> = None;
    let mut lang: Option<String> = None;
    let file_name = file.file_name().map(|f| f.to_string_lossy().into_owned());
    let mut i = 1;
    while i < words.len() {
        let w = words[i].replace("${CUDA_PATH}", "$CUDA_PATH");
        let next = words.get(i + 1).cloned();
        i += 1;
        // Outputs, dependency files and the source itself.
        if matches!(
            w.as_str(),
            "-c" | "-S" | "-E" | "-M" | "-MM" | "-MD" | "-MMD" | "-MP"
        ) {
            continue;
        }
        if matches!(w.as_str(), "-o" | "-MF" | "-MT" | "-MQ") {
            i += 1;
            continue;
        }
        if w.starts_with("-o") && w.len() > 2 && !w.starts_with("-ob") {
            continue;
        }
        if !w.starts_with('-') {
            let p = Path::new(&w);
            if p == file || p.file_name().map(|f| f.to_string_lossy().into_owned()) == file_name {
                continue;
            }
            if absolute(dir, &w) == *file {
                continue;
            }
        }
        if w.starts_with("--cuda-path") || w.starts_with("-Werror") || w == "-fcolor-diagnostics" {
            continue;
        }
        // A C++ standard for a C file (a C++ program's flags given to its C sources).
        if ext == "c" && w.starts_with("-std=") && w.contains("++") {
            continue;
        }
        if w == "-x" {
            lang = next.map(|l| if l == "cu" { "cuda".into() } else { l });
            i += 1;
            continue;
        }
        if let Some(a) = w.strip_prefix("--cuda-gpu-arch=") {
            arch = Some(a.to_string());
            continue;
        }
        if nvcc {
            if let Some(a) = nvcc_arch(&w, next.as_deref()) {
                if arch.is_none() {
                    arch = Some(a);
                }
                if !w.contains('=')
                    && (w == "-arch" || w == "--gpu-architecture" || w == "-gencode")
                {
                    i += 1;
                }
                continue;
            }
            if NVCC_VALUE_FLAGS.contains(&w.as_str()) {
                i += 1;
                continue;
            }
            if w == "-Xcompiler" || w == "--compiler-options" {
                if let Some(v) = next {
                    for part in v.split(',') {
                        if part.starts_with("-D")
                            || part.starts_with("-I")
                            || part.starts_with("-std")
                            || part.starts_with("-f")
                        {
                            out.push(part.to_string());
                        }
                    }
                }
                i += 1;
                continue;
            }
            let keep = w.starts_with("-I")
                || w.starts_with("-D")
                || w.starts_with("-U")
                || w.starts_with("-std")
                || w.starts_with("-O")
                || w.starts_with("-isystem")
                || w.starts_with("-include");
            if !keep {
                continue;
            }
        }
        if let Some(flag) = PATH_FLAGS.iter().find(|f| w == **f) {
            if let Some(v) = next {
                out.push(flag.to_string());
                out.push(absolute(dir, &v).to_string_lossy().into_owned());
                i += 1;
            }
            continue;
        }
        if let Some(flag) = PATH_FLAGS
            .iter()
            .find(|f| w.starts_with(**f) && w.len() > f.len() && **f == "-I")
        {
            out.push(format!(
                "{flag}{}",
                absolute(dir, &w[flag.len()..]).to_string_lossy()
            ));
            continue;
        }
        out.push(w);
    }
    let lang = lang.unwrap_or_else(|| {
        match ext.as_str() {
            "cu" | "cuh" => "cuda",
            "c" => "c",
            "cl" => "c",
            _ => "c++",
        }
        .to_string()
    });
    let mut head: Vec<String> = vec!["-x".into(), lang.clone()];
    if let Some(r) = &tools.resource_dir {
        head.push("-resource-dir".into());
        head.push(r.to_string_lossy().into_owned());
    }
    if lang == "cuda" {
        head.push("--cuda-host-only".into());
        head.push("-nocudalib".into());
        head.push("-Wno-unknown-cuda-version".into());
        head.push(format!(
            "--cuda-gpu-arch={}",
            arch.unwrap_or_else(|| "sm_80".into())
        ));
        match &tools.cuda_path {
            Some(p) => head.push(format!("--cuda-path={}", p.display())),
            None => head.push("-nocudainc".into()),
        }
    } else if let Some(p) = &tools.cuda_path {
        // Host files of a CUDA program include cuda_runtime.h without nvcc's paths.
        head.push("-isystem".into());
        head.push(p.join("include").to_string_lossy().into_owned());
    }
    head.push("-w".into());
    if nvcc {
        // nvcc's front end and its host compiler (gcc) warn about `register` in C++17, which
        // clang refuses: the program nvcc built must read here too
        head.push("-Wno-register".into());
    }
    let mut all = head;
    all.extend(out.into_iter().map(|a| match &tools.cuda_path {
        Some(p) => a.replace("$CUDA_PATH", &p.to_string_lossy()),
        None => a,
    }));
    all
}

/// The `sm_XX` an nvcc architecture flag names.
fn nvcc_arch(w: &str, next: Option<&str>) -> Option<String> {
    let value = if let Some(v) = w
        .strip_prefix("-arch=")
        .or_else(|| w.strip_prefix("--gpu-architecture="))
    {
        v.to_string()
    } else if w == "-arch" || w == "--gpu-architecture" {
        next?.to_string()
    } else if let Some(v) = w
        .strip_prefix("-gencode=")
        .or_else(|| w.strip_prefix("--generate-code="))
    {
        v.to_string()
    } else if w == "-gencode" || w == "--generate-code" {
        next?.to_string()
    } else if w.starts_with("-arch") {
        w.trim_start_matches("-arch").to_string()
    } else {
        return None;
    };
    let digits: String = value
        .split(['_', ','])
        .find_map(|p| {
            p.chars()
                .all(|c| c.is_ascii_digit())
                .then_some(p)
                .filter(|p| !p.is_empty())
        })
        .map(String::from)
        .or_else(|| {
            let at = value.find("sm_").or_else(|| value.find("compute_"))?;
            let rest = &value[at..];
            let rest = rest.split('_').nth(1)?;
            Some(
                rest.chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect(),
            )
        })?;
    Some(format!("sm_{digits}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn relocatable_device_code_is_read_from_either_driver_and_the_last_word_wins() {
        let cmd = |w: &str| super::CompileCommand {
            file: "/p/a.cu".into(),
            directory: "/p".into(),
            words: w.split(' ').map(str::to_string).collect(),
            program: None,
        };
        for (words, rdc) in [
            ("clang++ -x cuda -fgpu-rdc -c a.cu", true),
            ("clang++ -x cuda -fgpu-rdc -fno-gpu-rdc -c a.cu", false),
            ("clang++ -x cuda -O3 -c a.cu", false),
            ("nvcc -rdc=true -c a.cu", true),
            ("nvcc -rdc=false -c a.cu", false),
            ("nvcc --relocatable-device-code=true -c a.cu", true),
            ("nvcc -rdc true -c a.cu", true),
            ("nvcc -rdc false -c a.cu", false),
            ("nvcc -dc a.cu", true),
            ("nvcc -O3 -c a.cu", false),
        ] {
            assert_eq!(cmd(words).relocatable_device_code(), rdc, "{words}");
        }
    }

    /// CMake hands nvcc a CUDA target's include folders in a response file.
    #[test]
    fn response_files_are_expanded() {
        let dir = std::env::temp_dir().join(format!("kerncast-rsp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("inc.rsp"), "-I\"/p/include\" -I/q\n").unwrap();
        let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let out = super::expand_response_files(
            w(&[
                "nvcc",
                "-DA=1",
                "--options-file",
                "inc.rsp",
                "@inc.rsp",
                "-optf",
                "none.rsp",
                "x.cu",
            ]),
            &dir,
        );
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            out,
            w(&[
                "nvcc",
                "-DA=1",
                "-I/p/include",
                "-I/q",
                "-I/p/include",
                "-I/q",
                "-optf",
                "none.rsp",
                "x.cu"
            ])
        );
    }

    use super::*;

    fn words(s: &str) -> Vec<String> {
        shlex::split(s).unwrap_or_default()
    }

    #[test]
    fn a_clang_cuda_command_keeps_its_flags_and_reads_the_host_side() {
        let tools = Toolchain {
            cuda_path: Some(PathBuf::from("/opt/cuda12")),
            resource_dir: None,
        };
        let a = clang_args(
            &words("clang++ -Isrc/x -O3 -DNDEBUG -std=gnu++14 --cuda-gpu-arch=sm_86 --cuda-path=$CUDA_PATH -x cuda -c src/x/main.cu"),
            Path::new("/data/src/x/main.cu"),
            Path::new("/data"),
            &tools,
        );
        assert!(a.contains(&"-I/data/src/x".to_string()), "{a:?}");
        assert!(a.contains(&"--cuda-host-only".to_string()));
        assert!(a.contains(&"--cuda-gpu-arch=sm_86".to_string()));
        assert!(a.contains(&"--cuda-path=/opt/cuda12".to_string()));
        assert!(a.contains(&"-DNDEBUG".to_string()));
        assert!(!a.iter().any(|x| x == "-c" || x.ends_with("main.cu")));
    }

    /// gpuFLOPBench's `ans` names `src/main.cu` where its command compiles
    /// `src/ans-cuda/src/main.cu`: lowering and host reading both take the command's source.
    #[test]
    fn a_file_that_is_not_there_gives_way_to_the_commands_source() {
        let dir = std::env::temp_dir().join(format!("kerncast-compdb-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src/p/src")).unwrap();
        std::fs::write(dir.join("src/p/src/main.cu"), "int main() {}\n").unwrap();
        let db = dir.join("compile_commands.json");
        std::fs::write(
            &db,
            r#"[{"directory": ".", "file": "src/main.cu",
                 "command": "clang++ -x cuda -c src/p/src/main.cu"},
                {"directory": ".", "file": "src/gone.cu",
                 "command": "clang++ -x cuda -c src/p/src/gone.cu"}]"#,
        )
        .unwrap();
        let got = read_commands(&db);
        let base = std::fs::canonicalize(&dir).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let got = got.unwrap();
        assert_eq!(got[0].file, base.join("src/p/src/main.cu"));
        // neither exists: the entry's own `file` stays, and lowering says it cannot be read
        assert_eq!(got[1].file, base.join("src/gone.cu"));
    }

    #[test]
    fn an_nvcc_command_becomes_clangs() {
        let tools = Toolchain::default();
        let a = clang_args(
            &words("nvcc -arch=sm_70 -O3 --use_fast_math -Xcompiler -fopenmp,-Wall -lineinfo -I../common -DN=4 -o k k.cu"),
            Path::new("/p/k.cu"),
            Path::new("/p"),
            &tools,
        );
        assert!(a.contains(&"--cuda-gpu-arch=sm_70".to_string()), "{a:?}");
        assert!(a.contains(&"-I/common".to_string()), "{a:?}");
        assert!(a.contains(&"-DN=4".to_string()));
        assert!(a.contains(&"-fopenmp".to_string()));
        assert!(!a
            .iter()
            .any(|x| x == "--use_fast_math" || x == "-lineinfo" || x == "k"));
        // what nvcc accepts with a warning, clang must not refuse
        assert!(a.contains(&"-Wno-register".to_string()), "{a:?}");
        let clang = clang_args(
            &words("clang++ -x cuda --cuda-gpu-arch=sm_70 -c k.cu"),
            Path::new("/p/k.cu"),
            Path::new("/p"),
            &tools,
        );
        assert!(!clang.contains(&"-Wno-register".to_string()), "{clang:?}");
        assert_eq!(
            nvcc_arch("-gencode", Some("arch=compute_80,code=sm_80")).as_deref(),
            Some("sm_80")
        );
    }
}
