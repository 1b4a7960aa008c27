//! OpenCL programs whose host code is known: a program carried in a host file's strings
//! ([`crate::embedded_cl`]), and the build options a host builds a program with
//! ([`crate::launch_sites::cl_build`]).

use super::{fail, lower_and_parse, prepare_unit, unit, Job, Unit};
use crate::annotations;
use crate::lower;
use crate::report::Failure;
use std::path::Path;

/// The unit of the OpenCL program in a host file's strings that defines `job.kernel` (the
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
    let programs = crate::embedded_cl::programs(&host, &job.display_path);
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
            "host code with no OpenCL program in its strings: kerncast reads it only for the launches it makes; give the kernel's own file, with this one as --host".into(),
        )
    }))
}

/// The unit of an OpenCL program a host file carries in its strings (`embedded_cl`). It is
/// lowered from a temporary `.cl` whose `#line` directives name the host file, so its errors,
/// `.loc` lines and hot lines point at the host file's lines; its kernels take their launches
/// from the same host file.
pub fn prepare_embedded(
    job: &Job,
    host: &str,
    program: &crate::embedded_cl::EmbeddedProgram,
) -> Result<Unit, Failure> {
    let at = Some(program.line as u32);
    let io = |e: std::io::Error| {
        fail(
            job,
            at,
            None,
            "lower",
            format!(
                "cannot write the OpenCL program of line {} to a temp file: {e}",
                program.line
            ),
        )
    };
    let file = tempfile::Builder::new()
        .prefix("kerncast-embedded-")
        .suffix(".cl")
        .tempfile()
        .map_err(io)?;
    std::fs::write(file.path(), &program.text).map_err(io)?;
    let mut lowering = job.clone();
    lowering.lower.frontend = Some(lower::Frontend::Clang);
    if let Some(dir) = job.path.parent() {
        lowering.lower.include_dirs.push(dir.to_path_buf());
    }
    let build = host_build(
        &mut lowering,
        &job.display_path,
        host,
        program.variable.as_deref(),
    );
    let shown = format!(
        "the OpenCL program in the string at {}:{}",
        job.display_path, program.line
    );
    let parsed = lower_and_parse(&lowering, file.path()).map_err(|mut f| {
        f.message = f.message.replace(&*file.path().to_string_lossy(), &shown);
        f.line = f.line.or(at);
        with_note(f, &build)
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
    let launches = crate::launch_sites::HostFile::new(host, None);
    for k in &mut src_kernels {
        k.line = program.host_line(k.line);
        if k.workloads.is_empty() {
            k.workloads = launches.workloads(&k.name, &k.params, &k.fields);
        }
    }
    let mut u = unit(
        &lowering,
        parsed,
        Some(host.to_string()),
        Vec::new(),
        &src_kernels,
    )?;
    u.notes.push(format!(
        "kernel source: {shown}, compiled as OpenCL C by clang"
    ));
    u.notes.extend(build);
    Ok(u)
}

/// [`prepare_unit`] for a job whose host files are known, `hosts` (shown path, text): an OpenCL
/// program file is lowered with the build options of the host file that reads it, the one
/// that names it in a string (`fopen("kernels.cl", "r")`).
pub fn prepare_with_hosts(job: &Job, hosts: &[(String, String)]) -> Result<Unit, Failure> {
    let file_name = job.path.file_name().and_then(|n| n.to_str());
    let is_opencl = job.path.extension().is_some_and(|e| e == "cl");
    let reader = hosts.iter().find(|(_, text)| {
        is_opencl && file_name.is_some_and(|name| crate::embedded_cl::names_file(text, name))
    });
    let Some((display, text)) = reader else {
        return prepare_unit(job);
    };
    let mut built = job.clone();
    let note = host_build(&mut built, display, text, None);
    match prepare_unit(&built) {
        Ok(mut u) => {
            u.notes.extend(note);
            Ok(u)
        }
        Err(f) => Err(with_note(f, &note)),
    }
}

/// Adds to `job`'s lowering the options the host file `host` (shown as `display`) builds its
/// OpenCL program with (`launch_sites::cl_build`; `source` is the variable holding the
/// program's text, for an embedded one), and returns the note that says which, or why none.
fn host_build(job: &mut Job, display: &str, host: &str, source: Option<&str>) -> Option<String> {
    let base = Path::new(display).parent().unwrap_or(Path::new(""));
    match crate::launch_sites::cl_build::options_for(host, source) {
        Ok(None) => None,
        Ok(Some(call)) => {
            let options = call.options.unwrap_or_default();
            if options.trim().is_empty() {
                return None;
            }
            let ignored = lower::add_opencl_build_options(&mut job.lower, &options, base);
            let mut note = format!(
                "built with the options of the OpenCL build at {display}:{}: {options}",
                call.line
            );
            if !ignored.is_empty() {
                note.push_str(&format!(" (not given to clang: {})", ignored.join(" ")));
            }
            Some(note)
        }
        Err(why) => Some(format!(
            "built without the host's OpenCL build options ({display}: {why}); give a macro they define with -D NAME=VALUE"
        )),
    }
}

/// `f` with the build-options note added, for a failure the options may explain.
fn with_note(mut f: Failure, note: &Option<String>) -> Failure {
    if let Some(n) = note {
        f.message.push_str(&format!("\n  note: {n}"));
    }
    f
}
