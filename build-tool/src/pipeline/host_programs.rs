//! Programs whose host code compiles them at run time, as the host reading found them
//! ([`kerncast_host::EmbeddedSource`]): an OpenCL or CUDA program carried in a host's string
//! (CuPy, PyCUDA, PyOpenCL, PyTorch's `load_inline`, NVRTC, `clCreateProgramWithSource`), or a
//! kernel file the host reads and compiles, each lowered with the options the host builds it
//! with.

use super::{fail, lower_and_parse, prepare_unit, unit, Job, Unit};
use crate::annotations;
use crate::embedded::{EmbeddedProgram, Language};
use crate::lower;
use crate::report::Failure;
use kerncast_host::{EmbeddedSource, SourceOrigin};
use std::path::Path;

/// The unit of a program a host file (`job`, the host's) carries in a string (`source`). It is
/// lowered from a temporary `.cl` or `.cu` whose `#line` directives name the host file, so its
/// errors, `.loc` lines and hot lines point at the host file's lines.
pub fn prepare_embedded(job: &Job, source: &EmbeddedSource) -> Result<Unit, Failure> {
    let at = Some(source.line);
    let Some(program) = EmbeddedProgram::of_source(source, &job.display_path) else {
        return Err(fail(
            job,
            at,
            None,
            "lower",
            format!(
                "the {} program of the {} call at line {} is not lowered: {}",
                source.language,
                api_shown(&source.api),
                source.line,
                source.unknown.as_deref().unwrap_or("its text is unknown")
            ),
        ));
    };
    let language = program.language;
    let first_line = program.line;
    let io = |e: std::io::Error| {
        fail(
            job,
            at,
            None,
            "lower",
            format!(
                "cannot write the {} program of line {} to a temp file: {e}",
                language.name(),
                first_line
            ),
        )
    };
    // a folder of its own, where the headers NVRTC is given as strings go beside the program
    let dir = tempfile::Builder::new()
        .prefix("kerncast-embedded-")
        .tempdir()
        .map_err(io)?;
    let file = dir.path().join(format!("program.{}", language.extension()));
    let torch_inline = source.api.ends_with("load_inline");
    let program = if source.extern_c {
        program.wrapped("extern \"C\" {", "}")
    } else if torch_inline {
        // torch.utils.cpp_extension.load_inline writes these lines above `cuda_sources`
        program.preceded_by(&[
            "#include <torch/types.h>",
            "#include <cuda.h>",
            "#include <cuda_runtime.h>",
        ])
    } else {
        program
    };
    let program = with_name_expressions(&program, source, &job.display_path);
    std::fs::write(&file, &program.text).map_err(io)?;
    let headers = write_string_headers(dir.path(), source, &job.display_path).map_err(io)?;
    let mut lowering = job.clone();
    if language == Language::OpenCl {
        lowering.lower.frontend = Some(lower::Frontend::Clang);
    }
    if let Some(dir) = job.path.parent() {
        lowering.lower.include_dirs.push(dir.to_path_buf());
    }
    let notes: Vec<String> = build_options(&mut lowering, language, source, &job.display_path)
        .into_iter()
        .chain(headers)
        .collect();
    let shown = format!(
        "the {} program in the string at {}:{}",
        language.name(),
        job.display_path,
        program.line
    );
    let parsed = lower_and_parse(&lowering, &file).map_err(|mut f| {
        f.message = f.message.replace(&*file.to_string_lossy(), &shown);
        f.message = f
            .message
            .replace(&format!("{}/", dir.path().to_string_lossy()), "");
        f.line = f.line.or(at);
        with_notes(f, &notes)
    })?;
    let mut src_kernels = annotations::scan(&program.text).map_err(|e| {
        fail(
            job,
            Some(program.host_line(e.line) as u32),
            None,
            "annotation",
            e.message,
        )
    })?;
    for k in &mut src_kernels {
        k.line = program.host_line(k.line);
    }
    let compiled = match language {
        Language::OpenCl => "compiled as OpenCL C by clang".to_string(),
        Language::Cuda if torch_inline => format!(
            "built by PyTorch's `load_inline` with nvcc, here by {}",
            parsed.lowered.frontend
        ),
        Language::Cuda => format!(
            "compiled at run time by `{}`, here by {}",
            source.api, parsed.lowered.frontend
        ),
    };
    let instances = "a template that the program never instantiates, so NVRTC emits no code for it: name the instances the host uses (`nvrtcAddNameExpression(prog, \"NAME<float>\")`, CuPy's `name_expressions=[\"NAME<float>\"]`) or instantiate them in the program";
    let host_text = std::fs::read_to_string(&job.path).ok();
    let mut u = unit(
        &lowering,
        parsed,
        host_text,
        Vec::new(),
        &src_kernels,
        instances,
    )?;
    u.notes.push(format!("kernel source: {shown}, {compiled}"));
    u.notes.extend(notes);
    Ok(u)
}

/// [`prepare_unit`] for a kernel file that a host reads and compiles at run time (`source`,
/// whose text is the file's): lowered with the options the host builds it with.
pub fn prepare_compiled_file(
    job: &Job,
    source: &EmbeddedSource,
    host: &str,
) -> Result<Unit, Failure> {
    let language = Language::of(&source.language);
    let mut built = job.clone();
    let note = language.and_then(|l| build_options(&mut built, l, source, host));
    match prepare_unit(&built) {
        Ok(mut u) => {
            u.notes.extend(note);
            Ok(u)
        }
        Err(f) => Err(with_notes(f, note.as_slice())),
    }
}

/// Whether `source` is the file `path` compiled by a host: its text read from that file, or
/// (its text unknown) NVRTC's name for it is the file's name, as hosts name a program read
/// from a file.
pub fn is_file_of(source: &EmbeddedSource, path: &Path) -> bool {
    match &source.origin {
        SourceOrigin::File { path: p } => {
            let canonical = |p: &Path| std::fs::canonicalize(p).ok();
            canonical(Path::new(p)).is_some_and(|c| Some(c) == canonical(path))
        }
        _ => {
            let file_name = path.file_name().and_then(|n| n.to_str());
            source.text.is_none() && source.name.is_some() && source.name.as_deref() == file_name
        }
    }
}

/// How a report names the call that compiles a program (`RawKernel call`, `PyOpenCL Program
/// build`).
fn api_shown(api: &str) -> String {
    match api {
        "pyopencl.Program" => "PyOpenCL Program build".into(),
        "clBuildProgram" | "clCreateProgramWithSource" => "OpenCL build".into(),
        "nvrtcCreateProgram" | "nvrtcCompileProgram" => "NVRTC compile".into(),
        other => format!("{} call", other.rsplit('.').next().unwrap_or(other)),
    }
}

/// A CUDA program with the template instances the host asks for (`source.name_expressions`:
/// `nvrtcAddNameExpression(prog, "scale<float, 3>")`, CuPy's `name_expressions=[…]`) made, as
/// NVRTC makes them: by taking their addresses, at the line of the host's compile call.
fn with_name_expressions(
    program: &EmbeddedProgram,
    source: &EmbeddedSource,
    display: &str,
) -> EmbeddedProgram {
    if program.language != Language::Cuda || source.name_expressions.is_empty() {
        return program.clone();
    }
    let lines: Vec<(String, usize)> = source
        .name_expressions
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let e = e.trim().trim_start_matches('&');
            (
                format!("void *__kerncast_name_expression_{i} = (void *)&{e};"),
                source.line as usize,
            )
        })
        .collect();
    program.with_lines(&lines, display)
}

/// Adds the options a host compiles its program with (`source.options`: NVRTC's or CuPy's,
/// an OpenCL or PyOpenCL build's) to `job`'s lowering, and returns the note that says which.
fn build_options(
    job: &mut Job,
    language: Language,
    source: &EmbeddedSource,
    display: &str,
) -> Option<String> {
    let shown = source.options.join(" ");
    if shown.trim().is_empty() {
        return None;
    }
    let base = Path::new(display).parent().unwrap_or(Path::new(""));
    let ignored = match language {
        Language::OpenCl => lower::add_opencl_build_options(&mut job.lower, &shown, base),
        Language::Cuda => lower::add_nvrtc_options(&mut job.lower, &source.options, base),
    };
    let mut note = format!(
        "built with the options of the {} at {display}:{}: {shown}",
        api_shown(&source.api),
        source.line
    );
    if !ignored.is_empty() {
        note.push_str(&format!(
            " (not given to the compiler: {})",
            ignored.join(" ")
        ));
    }
    Some(note)
}

/// Writes into `dir` the headers the host gives its NVRTC program as strings, where the
/// program's `#include "name"` finds them, and returns the note that says which.
fn write_string_headers(
    dir: &Path,
    source: &EmbeddedSource,
    display: &str,
) -> std::io::Result<Option<String>> {
    if source.headers.is_empty() {
        return Ok(None);
    }
    for (name, text) in &source.headers {
        // a name that climbs out of the folder is not written
        if name.split(['/', '\\']).any(|p| p == "..") || Path::new(name).is_absolute() {
            continue;
        }
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
    }
    let names: Vec<&str> = source.headers.iter().map(|(n, _)| n.as_str()).collect();
    Ok(Some(format!(
        "headers given to nvrtcCreateProgram as strings at {display}:{}: {}",
        source.line,
        names.join(", ")
    )))
}

/// `f` with the notes on how its program was built added, for a failure they may explain.
fn with_notes(mut f: Failure, notes: &[String]) -> Failure {
    for n in notes {
        f.message.push_str(&format!("\n  note: {n}"));
    }
    f
}
