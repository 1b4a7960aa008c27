//! Programs whose host code is known: an OpenCL or CUDA (NVRTC) program carried in a host
//! file's strings ([`crate::embedded`]), and the options a host builds a program with
//! ([`crate::launch_sites::cl_build`], [`crate::launch_sites::nvrtc`]).

use super::{fail, lower_and_parse, prepare_unit, unit, Job, Unit};
use crate::annotations;
use crate::embedded::{EmbeddedProgram, Language};
use crate::lower;
use crate::report::Failure;
use std::path::Path;

/// The unit of the OpenCL or CUDA program in a host file's strings that defines `job.kernel` (the
/// first program when no kernel is asked for).
pub(super) fn prepare_host_file(job: &Job) -> Result<Unit, Failure> {
    let host = std::fs::read_to_string(&job.path).map_err(|e| {
        fail(
            job,
            None,
            None,
            "read",
            format!("cannot read host code: {e}"),
        )
    })?;
    let programs = programs_in(&job.path, &host, &job.display_path);
    if job.kernel.is_none() {
        if let Some(first) = programs.first() {
            return prepare_embedded(job, &host, first);
        }
    }
    let mut first_err = None;
    for p in &programs {
        match prepare_embedded(job, &host, p) {
            Ok(u) => return Ok(u),
            Err(f) => {
                first_err.get_or_insert(f);
            }
        }
    }
    Err(first_err.unwrap_or_else(|| {
        fail(
            job,
            None,
            job.kernel.as_deref(),
            "lower",
            "host code with no OpenCL or CUDA program in its strings: kerncast reads it only for the launches it makes; give the kernel's own file, with this one as --host".into(),
        )
    }))
}

/// The programs a host file carries in its strings: a C or C++ host's literals
/// ([`crate::embedded`]) or a Python host's strings ([`crate::python_host`]).
pub fn programs_in(path: &Path, host: &str, display: &str) -> Vec<EmbeddedProgram> {
    if crate::python_host::is_python(path) {
        crate::python_host::programs(host, display)
    } else {
        crate::embedded::programs(host, display)
    }
}

/// The unit of an OpenCL or CUDA program a host file carries in its strings (`embedded`). It
/// is lowered from a temporary `.cl` or `.cu` whose `#line` directives name the host file, so
/// its errors, `.loc` lines and hot lines point at the host file's lines; its kernels take
/// their launches from the same host file.
pub fn prepare_embedded(job: &Job, host: &str, program: &EmbeddedProgram) -> Result<Unit, Failure> {
    let language = program.language;
    let at = Some(program.line as u32);
    let io = |e: std::io::Error| {
        fail(
            job,
            at,
            None,
            "lower",
            format!(
                "cannot write the {} program of line {} to a temp file: {e}",
                language.name(),
                program.line
            ),
        )
    };
    // a folder of its own, where the headers NVRTC is given as strings go beside the program
    let dir = tempfile::Builder::new()
        .prefix("kerncast-embedded-")
        .tempdir()
        .map_err(io)?;
    let file = dir.path().join(format!("program.{}", language.extension()));
    let python = crate::python_host::is_python(&job.path);
    let source = program.variable.as_deref();
    // a Python host's compiling call (CuPy's, PyCUDA's, PyOpenCL's), found once
    let compile = python
        .then(|| crate::python_host::compile_call(host, program.line, source))
        .flatten();
    let torch_inline = python && language == Language::Cuda && host.contains("load_inline");
    let program = match compile.as_ref().is_some_and(|c| c.wraps_in_extern_c()) {
        true => &program.wrapped("extern \"C\" {", "}"),
        // torch.utils.cpp_extension.load_inline writes these lines above `cuda_sources`
        false if torch_inline => &program.preceded_by(&[
            "#include <torch/types.h>",
            "#include <cuda.h>",
            "#include <cuda_runtime.h>",
        ]),
        false => program,
    };
    let expressions = match (python, &compile) {
        (true, Some(c)) => c.name_expressions(),
        (true, None) => Vec::new(),
        (false, _) => crate::launch_sites::nvrtc::name_expressions(host, source),
    };
    let program = &with_name_expressions(program, expressions, &job.display_path);
    std::fs::write(&file, &program.text).map_err(io)?;
    let headers = match language {
        Language::Cuda => write_string_headers(
            dir.path(),
            host,
            &job.display_path,
            program.variable.as_deref(),
        )
        .map_err(io)?,
        Language::OpenCl => None,
    };
    let mut lowering = job.clone();
    if language == Language::OpenCl {
        lowering.lower.frontend = Some(lower::Frontend::Clang);
    }
    if let Some(dir) = job.path.parent() {
        lowering.lower.include_dirs.push(dir.to_path_buf());
    }
    let build = if python {
        python_build(&mut lowering, language, &job.display_path, compile.as_ref())
    } else {
        host_build(
            &mut lowering,
            language,
            &job.display_path,
            host,
            program.variable.as_deref(),
        )
    };
    let notes: Vec<String> = build.into_iter().chain(headers).collect();
    let shown = format!(
        "the {} program in the string at {}:{}",
        language.name(),
        job.display_path,
        program.line
    );
    let parsed = lower_and_parse(&lowering, &file).map_err(|mut f| {
        f.message = f.message.replace(&*file.to_string_lossy(), &shown);
        // a string header's errors name it as the program includes it
        f.message = f
            .message
            .replace(&format!("{}/", dir.path().to_string_lossy()), "");
        f.line = f.line.or(at);
        with_notes(f, &notes)
    })?;
    // a `load_inline` program's host functions are called from the Python code, which is
    // shaped with the program's lines in it (`python_host`)
    let launches = || crate::launch_sites::HostFile::of_host(host, &job.display_path, None, &[]);
    let scanned = match torch_inline {
        true => annotations::scan_with_host(&program.text, launches),
        false => annotations::scan(&program.text),
    };
    let mut src_kernels = scanned.map_err(|e| {
        fail(
            job,
            Some(program.host_line(e.line) as u32),
            None,
            "annotation",
            e.message,
        )
    })?;
    // a kernel the program's own launches leave without a workload takes the Python code's
    // (a `load_inline` program's were read from it already)
    let unlaunched = src_kernels.iter().any(|k| k.workloads.is_empty());
    let fallback = (unlaunched && !torch_inline).then(launches);
    for k in &mut src_kernels {
        k.line = program.host_line(k.line);
        if let Some(launches) = fallback.as_ref().filter(|_| k.workloads.is_empty()) {
            k.workloads = launches.workloads(&k.name, &k.params, &k.fields);
        }
    }
    let compiled = match language {
        Language::OpenCl => "compiled as OpenCL C by clang".to_string(),
        Language::Cuda if torch_inline => format!(
            "built by PyTorch's `load_inline` with nvcc, here by {}",
            parsed.lowered.frontend
        ),
        Language::Cuda => format!(
            "compiled at run time by NVRTC, here by {}",
            parsed.lowered.frontend
        ),
    };
    let instances = "a template that the program never instantiates, so NVRTC emits no code for it: name the instances the host uses (`nvrtcAddNameExpression(prog, \"NAME<float>\")`, CuPy's `name_expressions=[\"NAME<float>\"]`) or instantiate them in the program";
    let mut u = unit(
        &lowering,
        parsed,
        Some(host.to_string()),
        Vec::new(),
        &src_kernels,
        instances,
    )?;
    u.notes.push(format!("kernel source: {shown}, {compiled}"));
    u.notes.extend(notes);
    Ok(u)
}

/// A CUDA program with the template instances the host asks NVRTC for (`expressions`, each
/// with the line of its call: `nvrtcAddNameExpression(prog, "scale<float, 3>")`, or CuPy's
/// `name_expressions=[…]`) made, as NVRTC makes them: by taking their addresses, at the line
/// of the host's call. An expression whose name the program does not define belongs to
/// another program of the file.
fn with_name_expressions(
    program: &EmbeddedProgram,
    expressions: Vec<(String, usize)>,
    display: &str,
) -> EmbeddedProgram {
    if program.language != Language::Cuda {
        return program.clone();
    }
    let lines: Vec<(String, usize)> = expressions
        .into_iter()
        .filter(|(e, _)| defines(&program.text, e))
        .enumerate()
        .map(|(i, (e, line))| {
            let e = e.trim().trim_start_matches('&');
            (
                format!("void *__kerncast_name_expression_{i} = (void *)&{e};"),
                line,
            )
        })
        .collect();
    program.with_lines(&lines, display)
}

/// Whether `text` has the name an expression (`&ns::scale<float, 3>`) names, as a word.
fn defines(text: &str, expression: &str) -> bool {
    let head = expression
        .trim()
        .trim_start_matches('&')
        .split('<')
        .next()
        .unwrap_or("");
    let name = head.rsplit("::").next().unwrap_or(head).trim();
    crate::c_lex::has_word(text, name)
}

/// [`prepare_unit`] for a job whose host files are known, `hosts` (shown path, text): an OpenCL
/// program file, or a CUDA one a host compiles with NVRTC, is lowered with the build options
/// of the host file that reads it, the one that names it in a string
/// (`fopen("kernels.cl", "r")`).
pub fn prepare_with_hosts(job: &Job, hosts: &[(String, String)]) -> Result<Unit, Failure> {
    let file_name = job.path.file_name().and_then(|n| n.to_str());
    let language = match job.path.extension().and_then(|e| e.to_str()) {
        Some("cl") => Some(Language::OpenCl),
        Some("cu" | "cuh") => Some(Language::Cuda),
        _ => None,
    };
    let reader = language.and_then(|language| {
        hosts.iter().find(|(_, text)| {
            let builds = match language {
                Language::OpenCl => true,
                Language::Cuda => crate::launch_sites::nvrtc::compiles(text),
            };
            builds && file_name.is_some_and(|name| crate::embedded::names_file(text, name))
        })
    });
    let (Some(language), Some((display, text))) = (language, reader) else {
        return prepare_unit(job);
    };
    let mut built = job.clone();
    let note = host_build(&mut built, language, display, text, None);
    match prepare_unit(&built) {
        Ok(mut u) => {
            u.notes.extend(note);
            Ok(u)
        }
        Err(f) => Err(with_notes(f, note.as_slice())),
    }
}

/// Adds to `job`'s lowering the options the host file `host` (shown as `display`) builds its
/// program with (OpenCL's `clBuildProgram`, `launch_sites::cl_build`, or NVRTC's
/// `nvrtcCompileProgram`, `launch_sites::nvrtc`; `source` is the variable holding the
/// program's text, for an embedded one), and returns the note that says which, or why none.
fn host_build(
    job: &mut Job,
    language: Language,
    display: &str,
    host: &str,
    source: Option<&str>,
) -> Option<String> {
    use crate::launch_sites::{cl_build, nvrtc};
    let (build, found) = match language {
        Language::OpenCl => (
            "OpenCL build",
            cl_build::options_for(host, source)
                .map(|c| c.map(|c| (c.line, c.options.map(|o| vec![o])))),
        ),
        Language::Cuda => (
            "NVRTC compile",
            nvrtc::options_for(host, source).map(|c| c.map(|c| (c.line, c.options))),
        ),
    };
    with_build_options(job, language, build, display, found)
}

/// The options a Python host compiles its program with (CuPy's or PyCUDA's `options=`,
/// PyOpenCL's `build(options=…)`, of its `compile` call), added to `job`'s lowering as NVRTC's
/// or an OpenCL build's are, and the note.
fn python_build(
    job: &mut Job,
    language: Language,
    display: &str,
    compile: Option<&crate::python_host::CompileCall>,
) -> Option<String> {
    let found = compile
        .map_or(Ok(None), |c| c.options())
        .map(|c| c.map(|(line, call, options)| (line, Ok(options), call)));
    let (build, found) = match found {
        Ok(Some((line, options, call))) => (call, Ok(Some((line, options)))),
        Ok(None) => return None,
        Err(why) => ("compile".to_string(), Err(why)),
    };
    with_build_options(job, language, &build, display, found)
}

/// The call a host builds its program with: its line and the options it passes, or why they
/// are not read. `Ok(None)` when there is no such call; `Err` says why it is not known.
type FoundBuild = Result<Option<(usize, Result<Vec<String>, String>)>, String>;

/// Adds the options of a host's `build` call (`found`) to `job`'s lowering, and returns the
/// note that says which.
fn with_build_options(
    job: &mut Job,
    language: Language,
    build: &str,
    display: &str,
    found: FoundBuild,
) -> Option<String> {
    let base = Path::new(display).parent().unwrap_or(Path::new(""));
    match found {
        Ok(None) => None,
        Ok(Some((line, options))) => {
            // `options_for` gives a call only when its options were read
            let options = options.unwrap_or_default();
            let shown = options.join(" ");
            if shown.trim().is_empty() {
                return None;
            }
            let ignored = match language {
                Language::OpenCl => lower::add_opencl_build_options(&mut job.lower, &shown, base),
                Language::Cuda => lower::add_nvrtc_options(&mut job.lower, &options, base),
            };
            let mut note =
                format!("built with the options of the {build} at {display}:{line}: {shown}");
            if !ignored.is_empty() {
                note.push_str(&format!(
                    " (not given to the compiler: {})",
                    ignored.join(" ")
                ));
            }
            Some(note)
        }
        Err(why) => Some(format!(
            "built without the host's {build} options ({display}: {why}); give a macro they define with -D NAME=VALUE"
        )),
    }
}

/// Writes into `dir` the headers the host gives its NVRTC program (made from the variable
/// `source`) as strings, where the program's `#include "name"` finds them, and returns the
/// note that says which, or why they are not known.
fn write_string_headers(
    dir: &Path,
    host: &str,
    display: &str,
    source: Option<&str>,
) -> std::io::Result<Option<String>> {
    match crate::launch_sites::nvrtc::headers_for(host, source) {
        Ok(None) => Ok(None),
        Ok(Some((line, headers))) => {
            for h in &headers {
                let path = dir.join(&h.name);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                std::fs::write(path, &h.text)?;
            }
            let names: Vec<&str> = headers.iter().map(|h| h.name.as_str()).collect();
            Ok(Some(format!(
                "headers given to nvrtcCreateProgram as strings at {display}:{line}: {}",
                names.join(", ")
            )))
        }
        Err(why) => Ok(Some(format!(
            "headers given to nvrtcCreateProgram as strings not written out ({display}: {why})"
        ))),
    }
}

/// `f` with the notes on how its program was built added, for a failure they may explain.
fn with_notes(mut f: Failure, notes: &[String]) -> Failure {
    for n in notes {
        f.message.push_str(&format!("\n  note: {n}"));
    }
    f
}
