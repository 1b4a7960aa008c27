//! An OpenCL launch that leaves the work-group size to the runtime: the size is an
//! assumption named `local_size`, which a value given for it (the kernel's
//! `reqd_work_group_size`, or the user's) fixes, grid and all; the reading says which given
//! values the program read.

use kerncast_host::{read, Options, Program, Scalar, Toolchain};

const HOST: &str = r#"#include <CL/cl.h>
int main(void) {
    cl_program program; cl_command_queue q; cl_int err;
    cl_kernel k = clCreateKernel(program, "twice", &err);
    int n = 1 << 20;
    clSetKernelArg(k, 1, sizeof(int), &n);
    size_t g = n;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
}
"#;

fn read_with(params: &[(&str, f64)]) -> kerncast_host::HostReading {
    let dir = std::env::temp_dir().join(format!(
        "kerncast-local-size-{}-{}",
        std::process::id(),
        params.len()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("host.c");
    std::fs::write(&file, HOST).unwrap();
    let tools = Toolchain::discover();
    let opts = Options {
        params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        toolchain: tools.clone(),
        ..Options::default()
    };
    let r = read(&Program::from_files(&[file], &[], &tools), &opts).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    r
}

#[test]
fn a_work_group_size_left_to_the_runtime_is_named_and_a_given_one_sizes_the_launch() {
    let r = read_with(&[]);
    let l = &r.launches[0];
    assert_eq!(l.block[0].unknown_name(), Some("local_size"), "{l:?}");
    assert!(r.assumptions["local_size"].contains("which the OpenCL runtime picks"));
    assert!(r.params_used.is_empty());
    let r = read_with(&[("local_size", 64.0), ("unrelated", 1.0)]);
    let l = &r.launches[0];
    assert_eq!(
        (&l.grid[0], &l.block[0]),
        (&Scalar::Int(16384), &Scalar::Int(64))
    );
    assert_eq!(l.args["arg1"], Scalar::Int(1 << 20));
    let used: Vec<&str> = r.params_used.iter().map(String::as_str).collect();
    assert_eq!(used, ["local_size"]);
}
