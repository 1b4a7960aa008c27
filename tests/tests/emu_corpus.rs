//! The emulator over the whole checked-in corpus (tests/ptx/{nvcc,clang,llvm}): every kernel
//! runs at three small workloads derived from its source's `// kerncast: workload` annotation,
//! and is classified as having static or data-dependent counts by running it twice, on zero and
//! on pseudo-random buffers. The static set is what the counting oracle test compares against the
//! symbolic counter (`emu_oracle.rs`); the helpers here are shared with it.

mod emu_common;

use emu_common::*;

#[test]
fn every_corpus_kernel_runs_and_is_classified() {
    let cases = corpus_cases();
    assert!(cases.len() >= 50, "corpus has {} kernels", cases.len());
    let mut short = Vec::new();
    let mut dynamic = Vec::new();
    for c in &cases {
        for (k, w) in c.workloads.iter().enumerate() {
            let zero = run_case(c, w, Fill::Zero)
                .unwrap_or_else(|e| panic!("{} {} at {}: {e}", c.file, c.kernel, w.name));
            assert_eq!(
                zero.get(&Feature::Threads),
                w.launch.blocks() as f64 * w.launch.threads_per_block() as f64
            );
            // Data dependence shows at the smallest size already; one random run per kernel.
            if k + 1 != c.workloads.len() {
                continue;
            }
            let same = match run_case(c, w, Fill::Random) {
                Ok(r) => r.features == zero.features && r.block_execs == zero.block_execs,
                Err(_) => false,
            };
            if !same {
                dynamic.push(format!("{}:{}", c.file, c.kernel));
            }
        }
        assert!(
            !c.workloads.is_empty(),
            "{} {}: no workload fits",
            c.file,
            c.kernel
        );
        if c.workloads.len() < 3 {
            short.push(format!("{} {} {:?}", c.file, c.kernel, c.skipped));
        }
    }
    dynamic.dedup();
    // Fewer than three small workloads only where the annotation fixes a large grid.
    eprintln!("kernels with fewer than 3 workloads: {short:#?}");
    assert!(
        short.iter().all(|s| s.contains("hdot_partial")),
        "{short:#?}"
    );
    // Kernels whose loops or addresses follow the data must be found out...
    for k in ["spmv_csr", "while_collatz", "histogram"] {
        assert!(
            dynamic.iter().any(|d| d.ends_with(&format!(":{k}"))),
            "{k} not detected as data-dependent: {dynamic:?}"
        );
    }
    // ...and the affine ones must not be.
    for k in [
        "saxpy",
        "matmul_tiled",
        "transpose_padded",
        "pb_gemm",
        "triangular",
    ] {
        assert!(
            !dynamic.iter().any(|d| d.ends_with(&format!(":{k}"))),
            "{k} wrongly data-dependent: {dynamic:?}"
        );
    }
}
