//! Which kernels each unit of a program defines, as the host reading reports them: a caller
//! that wants only some kernels lowers only the units that define one. A definition counts
//! where its body is (a header's kernel in every unit that includes it, a template by its
//! name), a declaration or a device function does not.

use kerncast_host::{read, Options, Program, Toolchain};
use std::collections::BTreeSet;

const HEADER: &str = r#"#pragma once
template <typename T> __global__ void fill(T *p, T v) { p[threadIdx.x] = v; }
__device__ float twice(float x) { return 2 * x; }
"#;

const KERNELS: &str = r#"#include "common.cuh"
namespace fp32 {
__global__ void axpy(float a, float *x) { x[threadIdx.x] *= twice(a); }
}
extern "C" __global__ void scale(float *x) { x[threadIdx.x] *= 3; }
"#;

const MAIN: &str = r#"#include "common.cuh"
namespace fp32 { __global__ void axpy(float a, float *x); }
extern "C" __global__ void scale(float *x);
int main() {
    float *x;
    cudaMalloc(&x, 128 * sizeof(float));
    fp32::axpy<<<1, 128>>>(2.0f, x);
    scale<<<1, 128>>>(x);
    fill<<<1, 128>>>(x, 1.0f);
}
"#;

#[test]
fn each_unit_lists_the_kernels_its_translation_unit_defines() {
    let dir = std::env::temp_dir().join(format!("kerncast-defined-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in [
        ("common.cuh", HEADER),
        ("kernels.cu", KERNELS),
        ("main.cu", MAIN),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let tools = Toolchain::discover();
    let opts = Options {
        toolchain: tools.clone(),
        ..Options::default()
    };
    let files = [dir.join("kernels.cu"), dir.join("main.cu")];
    let r = read(&Program::from_files(&files, &[], &tools), &opts).unwrap();
    let defined = r.kernels_defined.clone().expect("a CUDA program says");
    let names = |file: &str| -> BTreeSet<&str> {
        let (_, k) = defined
            .iter()
            .find(|(f, _)| f.ends_with(file))
            .unwrap_or_else(|| panic!("{file} not in {defined:?}"));
        k.iter().map(String::as_str).collect()
    };
    let kernels = names("kernels.cu");
    let main = names("main.cu");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(kernels, BTreeSet::from(["axpy", "fill", "scale"]));
    // main.cu only declares axpy and scale; the header's template is defined in both
    assert_eq!(main, BTreeSet::from(["fill"]));
    // the reading itself is unchanged by it: three launches
    assert_eq!(r.launches.len(), 3, "{:?}", r.launches);
}

/// A unit whose opening `#include <…>`s are loaded precompiled (once seen twice) lists the
/// kernels of those headers too: libclang gives a unit its own declarations, not a precompiled
/// header's, so the list saved beside the precompiled preamble supplies them.
#[test]
fn a_kernel_of_a_precompiled_preamble_is_listed_from_the_preambles_own_list() {
    let dir = std::env::temp_dir().join(format!("kerncast-defined-pre-{}", std::process::id()));
    let cache = dir.join("cache");
    // a library's folder, not the program's own (whose headers a preamble never holds)
    let library = dir.join("library");
    std::fs::create_dir_all(&library).unwrap();
    std::fs::write(library.join("kernels.cuh"), HEADER).unwrap();
    std::fs::write(
        dir.join("main.cu"),
        "#include <kernels.cuh>\n__global__ void own(float *x) { x[0] = 1; }\n\
         int main() {\n  float *x;\n  cudaMalloc(&x, 512);\n  fill<<<1, 128>>>(x, 1.0f);\n}\n",
    )
    .unwrap();
    let tools = Toolchain::discover();
    let opts = Options {
        toolchain: tools.clone(),
        prelude_cache: Some(cache.clone()),
        ..Options::default()
    };
    let flags = vec!["-isystem".to_string(), library.display().to_string()];
    let program = Program::from_files(&[dir.join("main.cu")], &flags, &tools);
    // seen at the first reading, built at the second, taken at the third
    let readings: Vec<_> = (0..3).map(|_| read(&program, &opts).unwrap()).collect();
    let saved: Vec<String> = std::fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            n.starts_with("preamble-") && n.ends_with(".kernels")
        })
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(saved, ["fill"], "the preamble's own list");
    let listed = |r: &kerncast_host::HostReading| -> Option<BTreeSet<String>> {
        let defined = r.kernels_defined.as_ref().expect("a CUDA program says");
        defined
            .iter()
            .find(|(f, _)| f.ends_with("main.cu"))
            .map(|(_, k)| k.clone())
    };
    let both = BTreeSet::from(["fill".to_string(), "own".to_string()]);
    for (i, r) in readings.iter().enumerate() {
        assert_eq!(listed(r).as_ref(), Some(&both), "reading {i}");
        assert_eq!(r.launches.len(), 1, "reading {i}");
    }
}
