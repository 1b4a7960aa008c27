//! Symbolic counting of every kernel of a module that parses and verifies, under small work
//! budgets, then bound to a small launch: an error is fine, a panic or a hang is not.
#![no_main]
use kerncast_passes::{budget, count, ptx};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = ptx::parse(text) else {
        return;
    };
    if ptx::verify(&m).is_err() {
        return;
    }
    let small = budget::Budgets {
        isl_ops: 2_000_000,
        emu_steps: 100_000,
        emu_bytes: 16 << 20,
    };
    budget::scoped(small, || {
        let m = kerncast_passes::inline::inline_calls(&m).module;
        for k in m.kernels().take(2) {
            let opts = count::Options {
                block: Some([64, 1, 1]),
                grid: None,
            };
            if let Ok(stats) = count::analyze_kernel_with(&m, &k.name, &opts) {
                let w = count::Workload {
                    grid: [2, 1, 1],
                    block: [64, 1, 1],
                    params: (0..k.params.len()).map(|i| (i.to_string(), 7)).collect(),
                    hints: Default::default(),
                    reuse: false,
                };
                let _ = stats.bind(&w);
            }
        }
    });
});
