//! The options a host program builds its kernels with at run time (OpenCL's `clBuildProgram`,
//! NVRTC's `nvrtcCompileProgram`), given to the compiler that lowers them for kerncast.
//!
//! Macros and include folders always pass. Flags that change the code (fast math, contraction,
//! the language standard) pass in the compiler's own spelling. What has no effect on the PTX
//! kerncast reads, or is kerncast's own to choose (the architecture), is returned as not given,
//! for the report's note.

use super::{default_frontend, Frontend, LowerOptions, SourceKind};
use std::path::Path;

/// What an OpenCL build-options string (`clBuildProgram`'s, `-D TILE=32 -cl-mad-enable`)
/// adds to `opts`: its macros (ones `opts` already defines keep their value: the command line
/// wins), its include folders (relative ones from `base`) and its `-cl-*` and warning flags, put
/// before the user's own compiler arguments. Returns the options clang is not given.
pub fn add_opencl_build_options(
    opts: &mut LowerOptions,
    options: &str,
    base: &Path,
) -> Vec<String> {
    let mut ignored = Vec::new();
    let mut flags = Vec::new();
    let mut words = options.split_whitespace();
    while let Some(w) = words.next() {
        let joined =
            |prefix: &str, words: &mut std::str::SplitWhitespace| match w.strip_prefix(prefix) {
                Some("") => words.next().map(str::to_string),
                other => other.map(str::to_string),
            };
        if w.starts_with("-D") {
            let Some(d) = joined("-D", &mut words) else {
                continue;
            };
            add_define(opts, &d);
        } else if w.starts_with("-I") {
            if let Some(dir) = joined("-I", &mut words) {
                opts.include_dirs.push(base.join(dir));
            }
        } else if w.starts_with("-cl-") || w == "-w" || w.starts_with("-Werror") {
            flags.push(w.to_string());
        } else {
            ignored.push(w.to_string());
        }
    }
    opts.extra_args.splice(0..0, flags);
    ignored
}

/// What NVRTC's options (`nvrtcCompileProgram`'s list: `-DREPS=4`, `--fmad=false`) add to
/// `opts`, in the spelling of the front end that lowers CUDA: macros (the command line wins),
/// include folders (relative ones from `base`), pre-included headers, the C++ standard and the
/// floating-point flags. Returns the options not given, the architecture among them: kerncast
/// lowers for the device it predicts.
pub fn add_nvrtc_options(opts: &mut LowerOptions, options: &[String], base: &Path) -> Vec<String> {
    let frontend = opts
        .frontend
        .unwrap_or_else(|| default_frontend(SourceKind::Cuda));
    let nvcc = frontend == Frontend::Nvcc;
    let mut ignored = Vec::new();
    let mut flags: Vec<String> = Vec::new();
    let mut words = options.iter().map(|o| o.trim()).filter(|o| !o.is_empty());
    while let Some(w) = words.next() {
        // `--long=value`, `-Xvalue`, or `-X` then `value` as the next option
        let mut value = |long: &str, short: &str| -> Option<String> {
            if let Some(v) = w.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
                return Some(v.to_string());
            }
            match w.strip_prefix(short) {
                Some("") => words.next().map(str::to_string),
                Some(v) => Some(v.strip_prefix('=').unwrap_or(v).to_string()),
                None => None,
            }
        };
        if let Some(d) = value("--define-macro", "-D") {
            add_define(opts, &d);
        } else if let Some(u) = value("--undefine-macro", "-U") {
            flags.push(format!("-U{u}"));
        } else if let Some(dir) = value("--include-path", "-I") {
            opts.include_dirs.push(base.join(dir));
        } else if let Some(h) = value("--pre-include", "-include") {
            flags.extend(["-include".to_string(), base.join(h).display().to_string()]);
        } else if let Some(std) = value("--std", "-std") {
            flags.push(format!("-std={std}"));
        } else if w == "--use_fast_math" || w == "-use_fast_math" {
            flags.extend(
                if nvcc {
                    vec!["--use_fast_math"]
                } else {
                    vec![
                        "-ffast-math",
                        "-fgpu-flush-denormals-to-zero",
                        "-fgpu-approx-transcendentals",
                    ]
                }
                .into_iter()
                .map(str::to_string),
            );
        } else if let Some(on) = value("--fmad", "-fmad") {
            flags.push(match (nvcc, on == "true") {
                (true, _) => format!("--fmad={on}"),
                (false, true) => "-ffp-contract=fast".into(),
                (false, false) => "-ffp-contract=off".into(),
            });
        } else if let Some(on) = value("--ftz", "-ftz") {
            match (nvcc, on == "true") {
                (true, _) => flags.push(format!("--ftz={on}")),
                (false, true) => flags.push("-fgpu-flush-denormals-to-zero".into()),
                (false, false) => {}
            }
        } else if w == "-w"
            || nvcc && (w.starts_with("--prec-div=") || w.starts_with("--prec-sqrt="))
        {
            flags.push(w.to_string());
        } else {
            ignored.push(w.to_string());
        }
    }
    opts.extra_args.splice(0..0, flags);
    ignored
}

/// Defines `NAME` or `NAME=VALUE` unless `opts` already does: the command line wins.
fn add_define(opts: &mut LowerOptions, d: &str) {
    let (name, val) = match d.split_once('=') {
        Some((n, v)) => (n.to_string(), Some(v.to_string())),
        None => (d.to_string(), None),
    };
    if !opts.defines.iter().any(|(n, _)| *n == name) {
        opts.defines.push((name, val));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn opencl_build_options_become_flags_and_the_command_line_wins() {
        let mut o = LowerOptions {
            defines: vec![("TILE".into(), Some("64".into()))],
            extra_args: vec!["-O1".into()],
            ..LowerOptions::default()
        };
        let ignored = add_opencl_build_options(
            &mut o,
            "-D TILE=32 -DN=4 -DFAST -I inc -cl-mad-enable -cl-std=CL2.0 -g -w",
            Path::new("/p"),
        );
        assert_eq!(ignored, vec!["-g".to_string()]);
        assert_eq!(
            o.defines,
            vec![
                ("TILE".to_string(), Some("64".to_string())),
                ("N".to_string(), Some("4".to_string())),
                ("FAST".to_string(), None),
            ]
        );
        assert_eq!(o.include_dirs, vec![PathBuf::from("/p/inc")]);
        assert_eq!(
            o.extra_args,
            ["-cl-mad-enable", "-cl-std=CL2.0", "-w", "-O1"]
        );
    }

    #[test]
    fn nvrtc_options_in_each_front_end_s_spelling() {
        let options: Vec<String> = [
            "--gpu-architecture=compute_80",
            "-DREPS=4",
            "--define-macro=N",
            "-D",
            "TILE=16",
            "--include-path=inc",
            "-std=c++17",
            "--use_fast_math",
            "--fmad=false",
            "-lineinfo",
        ]
        .map(String::from)
        .to_vec();
        let mut nv = LowerOptions {
            frontend: Some(Frontend::Nvcc),
            defines: vec![("TILE".into(), Some("32".into()))],
            ..LowerOptions::default()
        };
        let ignored = add_nvrtc_options(&mut nv, &options, Path::new("/p"));
        assert_eq!(ignored, ["--gpu-architecture=compute_80", "-lineinfo"]);
        assert_eq!(
            nv.defines,
            vec![
                ("TILE".to_string(), Some("32".to_string())),
                ("REPS".to_string(), Some("4".to_string())),
                ("N".to_string(), None),
            ]
        );
        assert_eq!(nv.include_dirs, vec![PathBuf::from("/p/inc")]);
        assert_eq!(
            nv.extra_args,
            ["-std=c++17", "--use_fast_math", "--fmad=false"]
        );
        let mut cl = LowerOptions {
            frontend: Some(Frontend::Clang),
            ..LowerOptions::default()
        };
        add_nvrtc_options(&mut cl, &options, Path::new("/p"));
        assert_eq!(
            cl.extra_args,
            [
                "-std=c++17",
                "-ffast-math",
                "-fgpu-flush-denormals-to-zero",
                "-fgpu-approx-transcendentals",
                "-ffp-contract=off"
            ]
        );
    }
}
