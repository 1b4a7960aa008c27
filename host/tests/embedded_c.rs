//! Kernel programs a C or C++ host compiles at run time from its string literals: each is
//! listed with its text placed at the host's lines, and with the options, name expressions
//! and string headers of the NVRTC or OpenCL call that compiles it.

use kerncast_host::{read, Options, Program, SourceOrigin, Toolchain};

#[test]
fn programs_in_literals_carry_the_options_their_host_compiles_them_with() {
    let dir = std::env::temp_dir().join(format!("kerncast-embedded-c-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("host.cpp");
    std::fs::write(
        &file,
        r#"#include <nvrtc.h>
#include <CL/cl.h>
const char *scale_src = R"(
template <typename T, int R> __global__ void scale(T *x) { x[threadIdx.x] *= R; }
)";
static const char *cl_src =
    "__kernel void fill(__global int *x) {\n"
    "  x[get_global_id(0)] = V;\n"
    "}\n";
const char *note = "kernel void %s is not a program";
int main() {
  nvrtcProgram prog;
  nvrtcCreateProgram(&prog, scale_src, "scale.cu", 0, nullptr, nullptr);
  nvrtcAddNameExpression(prog, "scale<float, 3>");
  const char *opts[] = {"-DREPS=4", "--fmad=false"};
  nvrtcCompileProgram(prog, 2, opts);
  cl_context ctx; cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &cl_src, NULL, &err);
  clBuildProgram(p, 0, NULL, "-D V=3", NULL, NULL);
}
"#,
    )
    .unwrap();
    let tools = Toolchain::discover();
    let opts = Options {
        toolchain: tools.clone(),
        ..Options::default()
    };
    let r = read(&Program::from_files(&[file], &[], &tools), &opts).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert_eq!(r.embedded.len(), 2, "{:#?}", r.embedded);
    let nvrtc = &r.embedded[0];
    assert_eq!(
        (nvrtc.api.as_str(), nvrtc.language.as_str(), nvrtc.line),
        ("nvrtcCreateProgram", "cuda", 16)
    );
    assert_eq!(nvrtc.options, ["-DREPS=4", "--fmad=false"]);
    assert_eq!(nvrtc.name_expressions, ["scale<float, 3>"]);
    assert_eq!(nvrtc.name.as_deref(), Some("scale.cu"));
    match &nvrtc.origin {
        SourceOrigin::Lines { lines, .. } => assert_eq!(lines, &[3, 4]),
        o => panic!("{o:?}"),
    }
    let cl = &r.embedded[1];
    assert_eq!(
        (cl.api.as_str(), cl.language.as_str(), cl.line),
        ("clCreateProgramWithSource", "opencl", 19)
    );
    assert_eq!(cl.options, ["-D", "V=3"]);
    assert_eq!(
        cl.text.as_deref(),
        Some("__kernel void fill(__global int *x) {\n  x[get_global_id(0)] = V;\n}\n")
    );
    match &cl.origin {
        SourceOrigin::Lines { lines, .. } => assert_eq!(lines, &[7, 8, 9]),
        o => panic!("{o:?}"),
    }
}
