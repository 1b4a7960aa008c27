//! Where the external compilers are. The project-local toolchain (`.toolchain/bin`, filled by
//! `cargo xtask bootstrap` with nvcc, ptxas, nvdisasm) wins over PATH, so a build uses the
//! compiler the project pinned rather than whatever the host has.

use std::path::{Path, PathBuf};

/// Look for an executable `name` in `$KERNCAST_TOOLCHAIN/bin`, then `.toolchain/bin` of the
/// current directory and each ancestor, then `.toolchain/bin` of the kerncast workspace, then PATH.
/// When `KERNCAST_TOOLCHAIN` is set it is authoritative: the `.toolchain` discovery is skipped, so
/// a user (or a test) can point kerncast at exactly one toolchain.
pub fn find_tool(name: &str) -> Option<PathBuf> {
    search_dirs()
        .into_iter()
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn search_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(tc) = std::env::var_os("KERNCAST_TOOLCHAIN") {
        dirs.push(PathBuf::from(tc).join("bin"));
    } else {
        if let Ok(cwd) = std::env::current_dir() {
            for a in cwd.ancestors() {
                dirs.push(a.join(".toolchain/bin"));
            }
        }
        dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.toolchain/bin"));
    }
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    dirs
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// The clang that lowers CUDA and OpenCL: `KERNCAST_CLANG` where it is set (a path, or a name
/// looked up as [`find_tool`] does), so device code is compiled by the same clang as the build
/// being predicted; else clang-19 (the version the probes validated), else
/// `/usr/lib/llvm-19/bin/clang`.
pub fn clang() -> Option<PathBuf> {
    if let Some(chosen) = std::env::var_os("KERNCAST_CLANG") {
        let p = PathBuf::from(&chosen);
        return if p.components().count() > 1 {
            is_executable(&p).then_some(p)
        } else {
            find_tool(&p.to_string_lossy())
        };
    }
    find_tool("clang-19").or_else(|| {
        let p = PathBuf::from("/usr/lib/llvm-19/bin/clang");
        is_executable(&p).then_some(p)
    })
}

/// The clang [`clang`] looks for, as an error names it.
pub fn clang_wanted() -> String {
    std::env::var("KERNCAST_CLANG")
        .map(|c| format!("{c} (KERNCAST_CLANG)"))
        .unwrap_or_else(|_| "clang-19".into())
}

/// libclc's NVPTX bitcode (Debian package libclc-19), which resolves the OpenCL built-ins.
/// `KERNCAST_LIBCLC=<file>` picks another bitcode file; `KERNCAST_LIBCLC=none` forces the
/// macro prelude instead.
pub fn libclc() -> Option<PathBuf> {
    if let Some(v) = std::env::var_os("KERNCAST_LIBCLC") {
        return (v != "none")
            .then(|| PathBuf::from(v))
            .filter(|p| p.is_file());
    }
    [
        "/usr/lib/clc/nvptx64--nvidiacl.bc",
        "/usr/lib/llvm-19/lib/clc/nvptx64--nvidiacl.bc",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_sh_on_path_and_not_a_made_up_tool() {
        assert!(find_tool("sh").is_some());
        assert!(find_tool("kerncast-no-such-tool-xyz").is_none());
    }
}
