//! `cargo xtask bootstrap`: installs what kerncast needs, and only what is missing.
//!
//! Two sources, both from package registries:
//! - Debian packages (clang-19 and LLVM 19 for the NVPTX back end, libisl for counting, libclc for
//!   OpenCL builtins, PoCL for a real OpenCL device, cmake for the CMake example, chromium for the
//!   report test), checked with one `dpkg-query` call and installed with `apt-get` when absent.
//! - The real CUDA compiler (nvcc 13, ptxas, nvdisasm) and curand's device headers from PyPI into
//!   `.toolchain/venv`, git-ignored, with small wrapper scripts in `.toolchain/bin` that the
//!   lowering drivers find.
//!
//! With everything present it runs two quick probes and installs nothing.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Debian packages kerncast uses, with the reason each is needed.
const DEBIAN_PACKAGES: &[(&str, &str)] = &[
    ("clang-19", "CUDA and OpenCL front ends"),
    ("llvm-19-dev", "LLVM NVPTX back end (inkwell)"),
    ("libclang-19-dev", "bindgen for isl-sys"),
    (
        "libpolly-19-dev",
        "required by llvm-config-19 --link-static",
    ),
    ("libzstd-dev", "LLVM link dependency"),
    ("libisl-dev", "integer set library for exact counting"),
    ("libclc-19", "OpenCL builtins for NVPTX"),
    ("pkg-config", "finds libisl"),
    ("pocl-opencl-icd", "a real OpenCL device on the CPU"),
    ("ocl-icd-opencl-dev", "OpenCL ICD loader"),
    ("cmake", "the CMake example project"),
    ("chromium", "headless check of the HTML report"),
    (
        "python3-venv",
        "project-local virtualenv for the CUDA compiler",
    ),
];

/// PyPI packages that together give a working nvcc 13 with ptxas and nvdisasm, and curand's
/// device headers, each with a file (relative to the wheels' shared `nvidia/cu13` folder) whose
/// presence says it is installed.
const CUDA_WHEELS: &[(&str, &str)] = &[
    ("nvidia-cuda-nvcc", "bin/nvcc"),
    ("nvidia-nvvm", "nvvm/bin/cicc"),
    ("nvidia-cuda-crt", "include/crt/host_defines.h"),
    ("nvidia-cuda-runtime", "include/cuda_runtime.h"),
    ("nvidia-cuda-cccl", "include/cccl/cuda/std/version"),
    ("nvidia-cuda-nvdisasm", "bin/nvdisasm"),
    // the device API (`curand_kernel.h`) is header-only; Monte Carlo kernels include it
    ("nvidia-curand", "include/curand_kernel.h"),
];

/// CUDA 12.6 headers (the toolkit gpuFLOPBench's programs were built with, and the newest that
/// clang 19 parses), from PyPI wheels: host code is read by libclang against them, and real
/// programs include the libraries' headers too (cuBLAS, cuSPARSE, cuFFT, cuRAND, CUB/Thrust,
/// the profiler API, NVRTC). Only `include/` folders and libdevice are kept, in
/// `.toolchain/cuda-12`, laid out as a CUDA installation clang accepts (`--cuda-path`).
const CUDA12_WHEELS: &[&str] = &[
    "nvidia-cuda-runtime-cu12==12.6.77",
    "nvidia-cuda-nvcc-cu12==12.6.85",
    "nvidia-cuda-cccl-cu12==12.6.77",
    "nvidia-cuda-profiler-api-cu12==12.6.77",
    "nvidia-cuda-nvrtc-cu12==12.6.77",
    "nvidia-curand-cu12==10.3.7.77",
    "nvidia-cublas-cu12==12.6.4.1",
    "nvidia-cusparse-cu12==12.5.4.2",
    "nvidia-cufft-cu12==11.3.0.4",
];

/// Tools exposed in `.toolchain/bin`, relative to the wheel's `nvidia/cu13` folder.
const CUDA_TOOLS: &[&str] = &["nvcc", "ptxas", "nvdisasm", "cuobjdump"];

pub fn run(root: &Path) -> Result<()> {
    let started = std::time::Instant::now();
    let installed_debs = ensure_debian_packages()?;
    let installed_cuda = ensure_cuda(root)?;
    let installed_headers = ensure_cuda12_headers(root)?;
    if !installed_debs && !installed_cuda && !installed_headers {
        eprintln!(
            "bootstrap: everything present, nothing installed ({:.1} s)",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

fn ensure_debian_packages() -> Result<bool> {
    if !Path::new("/usr/bin/dpkg-query").exists() {
        eprintln!("bootstrap: not a Debian system (no dpkg-query); install the equivalents of:");
        for (p, why) in DEBIAN_PACKAGES {
            eprintln!("  {p:<20} {why}");
        }
        return Ok(false);
    }
    let missing = missing_debian_packages()?;
    if missing.is_empty() {
        return Ok(false);
    }
    eprintln!(
        "bootstrap: installing Debian packages: {}",
        missing.join(" ")
    );
    for p in &missing {
        let why = DEBIAN_PACKAGES
            .iter()
            .find(|(n, _)| n == p)
            .map(|(_, w)| *w)
            .unwrap_or("");
        eprintln!("  {p:<20} {why}");
    }
    let sudo = needs_sudo();
    let apt = |args: &[&str]| -> Result<()> {
        let mut c = if sudo {
            Command::new("sudo")
        } else {
            Command::new("apt-get")
        };
        if sudo {
            c.arg("apt-get");
        }
        c.args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdin(Stdio::null());
        let status = c.status().context("could not run apt-get")?;
        if !status.success() {
            bail!("apt-get {} failed ({status})", args.join(" "));
        }
        Ok(())
    };
    // A fresh machine has no package lists; an install without them finds nothing.
    apt(&["update", "-qq"])?;
    let mut args = vec!["install", "-y", "-qq", "--no-install-recommends"];
    args.extend(missing.iter().map(|s| s.as_str()));
    apt(&args)?;
    let still = missing_debian_packages()?;
    if !still.is_empty() {
        bail!(
            "after apt-get install these packages are still missing: {}",
            still.join(" ")
        );
    }
    Ok(true)
}

fn missing_debian_packages() -> Result<Vec<String>> {
    let names: Vec<&str> = DEBIAN_PACKAGES.iter().map(|(n, _)| *n).collect();
    let out = Command::new("dpkg-query")
        .args(["-W", "-f=${Package} ${db:Status-Abbrev}\n"])
        .args(&names)
        .stderr(Stdio::null())
        .output()
        .context("could not run dpkg-query")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let installed: Vec<&str> = text
        .lines()
        .filter_map(|l| {
            let (name, status) = l.split_once(' ')?;
            status
                .starts_with("ii")
                .then_some(name.split(':').next().unwrap_or(name))
        })
        .collect();
    Ok(names
        .into_iter()
        .filter(|n| !installed.contains(n))
        .map(String::from)
        .collect())
}

fn needs_sudo() -> bool {
    let uid = Command::new("id").arg("-u").output().ok();
    let is_root = uid.is_some_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    !is_root
}

/// The folder with nvcc & co. inside the virtualenv, whatever its Python version.
fn cuda_home(venv: &Path) -> Option<PathBuf> {
    let lib = venv.join("lib");
    for e in std::fs::read_dir(lib).ok()?.flatten() {
        let cand = e.path().join("site-packages/nvidia/cu13");
        if cand.join("bin/nvcc").exists() {
            return Some(cand);
        }
    }
    None
}

fn ensure_cuda(root: &Path) -> Result<bool> {
    let toolchain = root.join(".toolchain");
    let venv = toolchain.join("venv");
    let bin = toolchain.join("bin");
    let missing: Vec<&str> = match cuda_home(&venv) {
        Some(home) => CUDA_WHEELS
            .iter()
            .filter(|(_, marker)| !home.join(marker).exists())
            .map(|(wheel, _)| *wheel)
            .collect(),
        None => CUDA_WHEELS.iter().map(|(wheel, _)| *wheel).collect(),
    };
    let installed = !missing.is_empty();
    if installed {
        eprintln!(
            "bootstrap: installing from PyPI into .toolchain/venv (about 450 MB for all of the CUDA wheels): {}",
            missing.join(" ")
        );
        if !venv.join("bin/python").exists() {
            let python = which("python3").context("python3 is needed to create .toolchain/venv")?;
            let st = Command::new(python)
                .args(["-m", "venv"])
                .arg(&venv)
                .status()?;
            if !st.success() {
                bail!("python3 -m venv {} failed", venv.display());
            }
        }
        let st = Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .args(&missing)
            .stdin(Stdio::null())
            .status()
            .context("could not run pip")?;
        if !st.success() {
            bail!("pip install {} failed", missing.join(" "));
        }
    }
    let home = cuda_home(&venv).context("pip finished but nvcc is not in .toolchain/venv")?;
    if let Some((wheel, marker)) = CUDA_WHEELS.iter().find(|(_, m)| !home.join(m).exists()) {
        bail!(
            "pip installed {wheel} but {} is missing",
            home.join(marker).display()
        );
    }
    std::fs::create_dir_all(&bin)?;
    for tool in CUDA_TOOLS {
        let target = home.join("bin").join(tool);
        let wrapper = bin.join(tool);
        if !target.exists() {
            continue;
        }
        // A wrapper, not a symlink: nvcc finds its nvcc.profile and cicc relative to its real path.
        let script = format!("#!/bin/sh\nexec '{}' \"$@\"\n", target.display());
        if std::fs::read_to_string(&wrapper).ok().as_deref() != Some(script.as_str()) {
            std::fs::write(&wrapper, script)?;
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))?;
        }
    }
    Ok(installed)
}

/// `.toolchain/cuda-12`: the CUDA 12 headers (and libdevice) from [`CUDA12_WHEELS`]. A marker
/// file lists the wheels it was made from; a different list remakes it.
fn ensure_cuda12_headers(root: &Path) -> Result<bool> {
    let dest = root.join(".toolchain/cuda-12");
    let marker = dest.join(".wheels");
    let want = CUDA12_WHEELS.join("\n");
    if std::fs::read_to_string(&marker).ok().as_deref() == Some(want.as_str()) {
        return Ok(false);
    }
    eprintln!(
        "bootstrap: fetching the CUDA 12.6 headers from PyPI into .toolchain/cuda-12 (about 1.1 GB of wheels, 25 MB kept)"
    );
    let venv = root.join(".toolchain/venv");
    let downloads = root.join(".toolchain/wheels-cuda12");
    std::fs::create_dir_all(&downloads)?;
    let st = Command::new(venv.join("bin/pip"))
        .args([
            "download",
            "--quiet",
            "--no-deps",
            "--disable-pip-version-check",
            "--dest",
        ])
        .arg(&downloads)
        .args(CUDA12_WHEELS)
        .stdin(Stdio::null())
        .status()
        .context("could not run pip download")?;
    if !st.success() {
        bail!("pip download {} failed", CUDA12_WHEELS.join(" "));
    }
    if dest.exists() {
        std::fs::remove_dir_all(&dest)?;
    }
    // Each wheel's nvidia/<lib>/include/** goes to include/, libdevice to nvvm/libdevice.
    let script = r#"
import sys, zipfile, pathlib, os
src, dest = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for whl in sorted(src.glob('*.whl')):
    with zipfile.ZipFile(whl) as z:
        for name in z.namelist():
            parts = name.split('/')
            if len(parts) < 4 or parts[0] != 'nvidia' or name.endswith('/'):
                continue
            if parts[2] == 'include' and parts[-1] != '__init__.py':
                out = dest / 'include' / '/'.join(parts[3:])
            elif parts[2] == 'nvvm' and parts[3] == 'libdevice':
                out = dest / 'nvvm' / 'libdevice' / parts[-1]
            else:
                continue
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(z.read(name))
(dest / 'bin').mkdir(parents=True, exist_ok=True)
"#;
    let st = Command::new(venv.join("bin/python"))
        .args(["-c", script])
        .arg(&downloads)
        .arg(&dest)
        .status()
        .context("could not run the wheel extraction")?;
    if !st.success() || !dest.join("include/cuda_runtime.h").is_file() {
        bail!(
            "extracting the CUDA 12 headers into {} failed",
            dest.display()
        );
    }
    std::fs::write(&marker, want)?;
    std::fs::remove_dir_all(&downloads)?;
    Ok(true)
}

/// The wheel that carries clang 18 ([`ensure_clang18`]).
const ZIG_WHEEL: &str = "ziglang==0.13.0";

/// The folder of the ziglang wheel inside the virtualenv, whatever its Python version.
fn zig_home(venv: &Path) -> Option<PathBuf> {
    std::fs::read_dir(venv.join("lib"))
        .ok()?
        .flatten()
        .map(|e| e.path().join("site-packages/ziglang"))
        .find(|home| home.join("zig").is_file())
}

/// `.toolchain/bin/clang-18`: the clang release gpuFLOPBench's programs were built with (its
/// README: "compiled with clang++ 18 -O3"), for `cargo xtask realcode`, so that device code is
/// lowered by the measured build's compiler (clang 19 turns MRCGradient2's `-y * (a - b) + m <
/// 0` into a compare of `y * (a - b)` with `m`, one FLOP fewer than clang 18's FMA). Debian 12
/// has no clang 18; the ziglang wheel on PyPI carries one (`zig clang`), with its builtin headers
/// as the resource folder. Only `realcode` asks for it, so the bootstrap of a build or of the
/// tests does not download it.
pub fn ensure_clang18(root: &Path) -> Result<PathBuf> {
    let venv = root.join(".toolchain/venv");
    if zig_home(&venv).is_none() {
        eprintln!(
            "bootstrap: installing clang 18 (the measured build's compiler) from PyPI into .toolchain/venv: {ZIG_WHEEL} (about 50 MB)"
        );
        let st = Command::new(venv.join("bin/pip"))
            .args([
                "install",
                "--quiet",
                "--disable-pip-version-check",
                ZIG_WHEEL,
            ])
            .stdin(Stdio::null())
            .status()
            .context("could not run pip")?;
        if !st.success() {
            bail!("pip install {ZIG_WHEEL} failed");
        }
    }
    let home = zig_home(&venv).context("pip finished but the ziglang wheel has no zig")?;
    let bin = root.join(".toolchain/bin");
    std::fs::create_dir_all(&bin)?;
    let wrapper = bin.join("clang-18");
    // zig's own default target is musl; the programs are built for the host's glibc
    let script = format!(
        "#!/bin/sh\nexec '{}' clang --target={}-unknown-linux-gnu -resource-dir '{}' \"$@\"\n",
        home.join("zig").display(),
        std::env::consts::ARCH,
        home.join("lib").display()
    );
    if std::fs::read_to_string(&wrapper).ok().as_deref() != Some(script.as_str()) {
        std::fs::write(&wrapper, script)?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))?;
    }
    let out = Command::new(&wrapper)
        .arg("--version")
        .output()
        .context("could not run .toolchain/bin/clang-18")?;
    let version = String::from_utf8_lossy(&out.stdout);
    if !version.contains("clang version 18.") {
        bail!(
            "{} is not clang 18: {}",
            wrapper.display(),
            version.lines().next().unwrap_or("")
        );
    }
    Ok(wrapper)
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}
