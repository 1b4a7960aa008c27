//! Lowering drivers: turn a kernel source (`.cu`, `.cl`, `.ll`/`.bc`, `.ptx`) into PTX text.
//!
//! Everything downstream (parser, counting, models) reads PTX, so this module is the single door
//! through which sources enter kerncast. It picks a front end (nvcc, clang-19, LLVM's NVPTX back
//! end or none), runs it with line info on so PTX carries `.loc`, and normalises host paths in
//! `.file` directives so that the same source gives byte-identical PTX wherever it is lowered. A
//! missing compiler is an error naming the tool and `cargo xtask bootstrap`; a compile failure
//! carries the compiler's own `file:line` diagnostics.

mod args;
mod build_options;
mod clang;
pub mod compile_command;
mod driver;
mod llvm;
mod nvcc;
mod ptxas;
mod sass;
mod tools;
mod torch;

pub use args::LowerArgs;
pub use build_options::{add_nvrtc_options, add_opencl_build_options};
pub use clang::emit_llvm_ir;
pub use driver::lower_file;
pub use ptxas::{
    parse_ptxas_report, ptxas_resources, ptxas_resources_relocatable, ptxas_resources_with_sass,
    ResourceProbe, Resources,
};
pub use sass::sass;
pub use tools::{clang as clang_tool, find_tool};

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Which compiler turns the source into PTX.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
pub enum Frontend {
    /// NVIDIA nvcc (`-ptx -lineinfo`), CUDA only.
    Nvcc,
    /// clang-19: CUDA with the kerncast prelude, OpenCL C with libclc.
    Clang,
    /// LLVM IR (`.ll`/`.bc`) through LLVM's NVPTX back end (`kerncast-llvm`).
    Llvm,
    /// The file already is PTX.
    Ptx,
}

impl Frontend {
    /// Lower-case name, as used on the command line and in `tests/ptx/<name>/`.
    pub fn name(self) -> &'static str {
        match self {
            Frontend::Nvcc => "nvcc",
            Frontend::Clang => "clang",
            Frontend::Llvm => "llvm",
            Frontend::Ptx => "ptx",
        }
    }
}

impl fmt::Display for Frontend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What language a source file is in, from its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    Cuda,
    OpenCl,
    LlvmIr,
    Ptx,
}

impl SourceKind {
    pub fn of(path: &Path) -> Option<SourceKind> {
        match path.extension()?.to_str()? {
            "cu" => Some(SourceKind::Cuda),
            "cl" => Some(SourceKind::OpenCl),
            "ll" | "bc" => Some(SourceKind::LlvmIr),
            "ptx" => Some(SourceKind::Ptx),
            _ => None,
        }
    }
}

/// How to lower a source. `Default` gives sm_80, -O3, the default front end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerOptions {
    /// `None`: nvcc when present else clang for `.cu`; clang for `.cl`; llvm for `.ll`/`.bc`;
    /// as-is for `.ptx`.
    pub frontend: Option<Frontend>,
    /// Target architecture, e.g. `sm_80`.
    pub arch: String,
    /// Why `arch` was chosen, when kerncast chose it for the devices (a report note).
    pub arch_note: Option<String>,
    /// Preprocessor macros: `-D NAME` or `-D NAME=VALUE`.
    pub defines: Vec<(String, Option<String>)>,
    pub include_dirs: Vec<PathBuf>,
    /// 0–3.
    pub opt_level: u8,
    /// Passed to the compiler verbatim, after kerncast's own flags.
    pub extra_args: Vec<String>,
    /// The unit's own compile command (a compilation database's entry): when set, the source
    /// is lowered with it, device side only ([`compile_command::lower_command`]), and the
    /// other options are not used.
    pub command: Option<compile_command::CompileCommand>,
}

impl Default for LowerOptions {
    fn default() -> Self {
        LowerOptions {
            frontend: None,
            arch: DEFAULT_ARCH.into(),
            arch_note: None,
            defines: Vec::new(),
            include_dirs: Vec::new(),
            opt_level: 3,
            extra_args: Vec::new(),
            command: None,
        }
    }
}

/// The result of lowering one source.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Lowered {
    pub ptx: String,
    pub frontend: Frontend,
    /// The command that ran, for reports and error messages (`LLVM 19 NVPTX (…/kerncast-llvm):
    /// …` for llvm).
    pub command: String,
    /// What the report should say of every kernel of the source because of how it was lowered.
    pub notes: Vec<String>,
}

/// Why lowering failed.
#[derive(Debug, thiserror::Error)]
pub enum LowerError {
    #[error("{path}: cannot read: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: unknown source kind (expected .cu, .cl, .ll, .bc or .ptx)")]
    UnknownKind { path: PathBuf },
    #[error("{path}: front end `{frontend}` cannot lower {kind} sources")]
    Unsupported {
        path: PathBuf,
        frontend: Frontend,
        kind: &'static str,
    },
    #[error("{tool} not found (needed to lower {path}); install it with `{install}`")]
    ToolMissing {
        tool: String,
        path: PathBuf,
        install: &'static str,
    },
    #[error("{path}: {frontend} failed ({status})\n  command: {command}\n{diagnostics}")]
    Compile {
        path: PathBuf,
        frontend: Frontend,
        status: String,
        command: String,
        /// The compiler's stderr, with its `file:line` locations.
        diagnostics: String,
    },
    #[error("{path}: LLVM: {message}")]
    Llvm { path: PathBuf, message: String },
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
}

impl LowerError {
    /// The first `file:line` the compiler's diagnostics name, if any.
    pub fn location(&self) -> Option<(String, u32)> {
        match self {
            LowerError::Compile { diagnostics, .. } => first_location(diagnostics),
            _ => None,
        }
    }
}

/// The target when neither `--arch` nor a device says otherwise.
pub const DEFAULT_ARCH: &str = "sm_80";

/// Install hint shown with every missing-tool error.
pub const INSTALL_HINT: &str = "cargo xtask bootstrap";

/// The front end used when none is asked for.
pub fn default_frontend(kind: SourceKind) -> Frontend {
    match kind {
        SourceKind::Cuda => {
            if find_tool("nvcc").is_some() {
                Frontend::Nvcc
            } else {
                Frontend::Clang
            }
        }
        SourceKind::OpenCl => Frontend::Clang,
        SourceKind::LlvmIr => Frontend::Llvm,
        SourceKind::Ptx => Frontend::Ptx,
    }
}

/// The front ends that can lower `kind` on this machine (tools present, features built).
pub fn available_frontends(kind: SourceKind) -> Vec<Frontend> {
    let mut out = Vec::new();
    match kind {
        SourceKind::Cuda => {
            if find_tool("nvcc").is_some() {
                out.push(Frontend::Nvcc);
            }
            if tools::clang().is_some() {
                out.push(Frontend::Clang);
            }
        }
        SourceKind::OpenCl => {
            if tools::clang().is_some() {
                out.push(Frontend::Clang);
            }
        }
        SourceKind::LlvmIr => {
            if llvm::helper().is_some() {
                out.push(Frontend::Llvm);
            }
        }
        SourceKind::Ptx => out.push(Frontend::Ptx),
    }
    out
}

/// The lowest PTX ISA version that supports `arch` (LLVM refuses to emit an older one).
pub fn ptx_feature(arch: &str) -> &'static str {
    let n: u32 = arch
        .trim_start_matches("sm_")
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .unwrap_or(80);
    // an architecture-specific target (`sm_90a`) needs PTX 8.0, where `wgmma` came in
    if n >= 90 && arch.ends_with('a') {
        return "+ptx80";
    }
    match n {
        90.. => "+ptx78",
        89 => "+ptx78",
        87 => "+ptx74",
        86 => "+ptx71",
        80..=85 => "+ptx70",
        75.. => "+ptx63",
        72.. => "+ptx61",
        70.. => "+ptx60",
        _ => "+ptx60",
    }
}

/// `-DNAME` / `-DNAME=VAL` and `-IDIR` flags, shared by nvcc and clang.
fn preprocessor_flags(opts: &LowerOptions) -> Vec<String> {
    let mut v = Vec::new();
    for (name, val) in &opts.defines {
        match val {
            Some(val) => v.push(format!("-D{name}={val}")),
            None => v.push(format!("-D{name}")),
        }
    }
    for dir in &opts.include_dirs {
        v.push(format!("-I{}", dir.display()));
    }
    v
}

/// Run a compiler that writes PTX to `out`; map failures to [`LowerError::Compile`].
fn run_compiler(
    mut cmd: Command,
    path: &Path,
    frontend: Frontend,
    out: &Path,
) -> Result<(String, String), LowerError> {
    let command = render_command(&cmd);
    let output = cmd.output().map_err(|source| LowerError::Io {
        context: format!("starting `{command}`"),
        source,
    })?;
    if !output.status.success() {
        return Err(LowerError::Compile {
            path: path.to_path_buf(),
            frontend,
            status: output.status.to_string(),
            command,
            diagnostics: with_file_notes(
                String::from_utf8_lossy(&output.stderr).into_owned(),
                cmd.get_current_dir(),
            ),
        });
    }
    let ptx = std::fs::read_to_string(out).map_err(|source| LowerError::Io {
        context: format!("reading the PTX written by `{command}`"),
        source,
    })?;
    Ok((ptx, command))
}

fn render_command(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        let a = a.to_string_lossy();
        if a.contains(' ') || a.is_empty() {
            s.push_str(&format!("'{a}'"));
        } else {
            s.push_str(&a);
        }
    }
    s
}

/// Rewrite host-specific paths in `.file` directives (and in the `// file:line` comments clang
/// puts after `.loc`): the temp dir holding the prelude becomes `kerncast-prelude`, and paths
/// under the current directory become relative.
pub fn normalize_file_paths(ptx: &str, temp_dir: Option<&Path>) -> String {
    let cwd = std::env::current_dir().ok();
    let mut out = String::with_capacity(ptx.len());
    for line in ptx.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with(".file") || t.starts_with(".loc") {
            let mut l = line.to_string();
            if let Some(t) = temp_dir {
                let t = t.to_string_lossy();
                l = l.replace(&*t, "kerncast-prelude");
                if let Ok(canon) = Path::new(&*t).canonicalize() {
                    l = l.replace(&*canon.to_string_lossy(), "kerncast-prelude");
                }
            }
            if let Some(c) = &cwd {
                let prefix = format!("\"{}/", c.display());
                l = l.replace(&prefix, "\"");
                l = l.replace(&format!("// {}/", c.display()), "// ");
            }
            l = l.replace("\"./", "\"");
            out.push_str(&l);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// The first `path:line` (`path:line:col: error` from clang, `path(line): error` from nvcc).
fn first_location(diag: &str) -> Option<(String, u32)> {
    diag.lines().find_map(error_location)
}

/// The file and line of a compiler's error line: nvcc/cudafe's `file.cu(12): error: …`, or
/// clang's `file.cu:12:5: error: …`.
fn error_location(line: &str) -> Option<(String, u32)> {
    if let Some(open) = line.find('(') {
        if let Some(close) = line[open..].find("):") {
            if let Ok(n) = line[open + 1..open + close].parse::<u32>() {
                return Some((line[..open].to_string(), n));
            }
        }
    }
    let parts: Vec<&str> = line.splitn(4, ':').collect();
    if parts.len() == 4 && parts[3].contains("error") {
        if let Ok(n) = parts[1].parse::<u32>() {
            return Some((parts[0].to_string(), n));
        }
    }
    None
}

/// A compiler's diagnostics after a note for each file its errors are in that is not what the
/// compiler took it for (a Git LFS pointer in place of a header): first, since summaries show
/// only the first lines of a failure. A relative file name is the compiler's, in `dir`.
fn with_file_notes(diagnostics: String, dir: Option<&Path>) -> String {
    let mut files: Vec<String> = diagnostics
        .lines()
        .filter_map(|l| error_location(l).map(|(f, _)| f))
        .collect();
    files.sort();
    files.dedup();
    let mut noted: String = files
        .iter()
        .filter_map(|f| {
            let path = dir.map_or(PathBuf::from(f), |d| d.join(f));
            kerncast_host::lfs_pointer_note(&path.to_string_lossy())
        })
        .map(|n| format!("note: {n}\n"))
        .collect();
    noted.push_str(&diagnostics);
    noted
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error in a header that is a Git LFS pointer gets a note that says so, once, before
    /// the compiler's own lines; an error in an ordinary file gets none.
    #[test]
    fn an_error_in_a_git_lfs_pointer_says_what_the_file_is() {
        let dir = tempfile::tempdir().unwrap();
        let pointer = dir.path().join("refdata.h");
        std::fs::write(
            &pointer,
            "version https://git-lfs.github.com/spec/v1\noid sha256:3b8a\nsize 4652389\n",
        )
        .unwrap();
        let plain = dir.path().join("main.cu");
        std::fs::write(&plain, "int main() { return x; }\n").unwrap();
        let (p, m) = (pointer.display(), plain.display());
        let diagnostics = format!(
            "{p}:1:1: error: unknown type name 'version'\n{p}:2:1: error: unknown type name 'oid'\n{m}:1:21: error: use of undeclared identifier 'x'\n"
        );
        let noted = with_file_notes(diagnostics.clone(), None);
        // the same errors as a compiler in the folder reports them
        let relative = diagnostics.replace(&format!("{}/", dir.path().display()), "");
        let noted_there = with_file_notes(relative.clone(), Some(dir.path()));
        assert!(noted_there.starts_with("note: ") && noted_there.ends_with(&relative));
        assert!(noted.ends_with(&diagnostics), "{noted}");
        assert!(noted.starts_with("note: "), "{noted}");
        let notes: Vec<&str> = noted.lines().filter(|l| l.starts_with("note:")).collect();
        assert_eq!(notes.len(), 1, "{noted}");
        assert!(
            notes[0].contains(&format!("{p} is a Git LFS pointer")),
            "{noted}"
        );
        assert!(notes[0].contains("git lfs pull"), "{noted}");
    }

    #[test]
    fn locations_from_both_compilers() {
        assert_eq!(
            first_location("k.cu(7): error: identifier \"x\" is undefined"),
            Some(("k.cu".into(), 7))
        );
        assert_eq!(
            first_location("warning: x\nk.cl:3:9: error: use of undeclared identifier 'q'"),
            Some(("k.cl".into(), 3))
        );
        assert_eq!(first_location("nothing here"), None);
    }

    #[test]
    fn ptx_versions_follow_the_arch() {
        assert_eq!(ptx_feature("sm_80"), "+ptx70");
        assert_eq!(ptx_feature("sm_90"), "+ptx78");
        assert_eq!(ptx_feature("sm_90a"), "+ptx80");
        assert_eq!(ptx_feature("sm_70"), "+ptx60");
    }

    #[test]
    fn source_kinds() {
        assert_eq!(SourceKind::of(Path::new("a/b.cu")), Some(SourceKind::Cuda));
        assert_eq!(SourceKind::of(Path::new("b.bc")), Some(SourceKind::LlvmIr));
        assert_eq!(SourceKind::of(Path::new("b.c")), None);
    }

    #[test]
    fn temp_paths_are_rewritten() {
        let ptx = "\tld.global.f32 %f1, [%rd1];\n\t.file\t2 \"/tmp/xyz/cuda_prelude.h\"\n";
        let out = normalize_file_paths(ptx, Some(Path::new("/tmp/xyz")));
        assert!(out.contains("\"kerncast-prelude/cuda_prelude.h\""), "{out}");
        assert!(out.starts_with("\tld.global.f32"));
    }
}
