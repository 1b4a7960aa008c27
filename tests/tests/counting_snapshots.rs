//! `kerncast count --symbolic` closed forms for corpus kernels, as insta snapshots under
//! `snapshots/count/`: a change in any count formula shows up as a reviewable diff.

use kerncast_passes::count::{analyze_kernel_with, Options};
use kerncast_passes::ptx::Module;
use kerncast_tests::{ptx_dir, snapshot_settings};

/// (PTX file under tests/ptx/nvcc, kernel, block size from its workload annotation)
const KERNELS: &[(&str, &str, [u64; 3])] = &[
    ("saxpy", "saxpy", [256, 1, 1]),
    ("vecadd", "vecadd", [256, 1, 1]),
    ("daxpy", "daxpy", [256, 1, 1]),
    ("matmul_tiled", "matmul_tiled", [16, 16, 1]),
    ("transpose_naive", "transpose_naive", [16, 16, 1]),
    ("transpose_tiled", "transpose_tiled", [32, 32, 1]),
    ("triangular", "triangular", [128, 1, 1]),
    ("strided", "stride2", [256, 1, 1]),
    ("strided_loop", "strided_loop", [128, 1, 1]),
    ("jacobi1d", "jacobi1d", [256, 1, 1]),
    ("reduce_shared", "reduce_shared", [256, 1, 1]),
    ("dot_unroll4", "dot_unroll4", [256, 1, 1]),
    ("noinline_horner", "noinline_horner", [256, 1, 1]),
    ("warp_segments", "warp_segments", [128, 1, 1]),
    ("loopy/triangle", "loopy_triangle", [32, 1, 1]),
    (
        "loopy/matmul_prefetch",
        "loopy_matmul_prefetch",
        [16, 16, 1],
    ),
];

#[test]
fn symbolic_counts_of_corpus_kernels() {
    let settings = snapshot_settings("count");
    for (file, kernel, block) in KERNELS {
        let p = ptx_dir().join("nvcc").join(format!("{file}.ptx"));
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let m = kerncast_passes::inline::inline_calls(
            &Module::parse(&text).expect("corpus PTX parses"),
        )
        .module;
        let stats = analyze_kernel_with(
            &m,
            kernel,
            &Options {
                block: Some(*block),
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{file}: {e}"));
        let name = file.replace('/', "_");
        settings.bind(|| insta::assert_snapshot!(name, stats.symbolic_text()));
    }
}
