//! What the counter-against-emulator tests share: a kernel around a PTX body, an emulated launch,
//! and the data-dependent assumptions of an analysis.
// Each test binary compiles this module and uses only some of it.
#![allow(dead_code)]

use kerncast_passes::count::{self, KernelStats, Options, Workload};
use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::ptx::Module;
use kerncast_passes::stats::{Assumption, BoundStats, Launch};
use std::collections::BTreeMap;

/// A kernel `k(u32 s0, …, u32 s{scalars-1}, u64 out)`: `%r20`, `%r21`, … hold the scalars in
/// order, `%rd2` the global address of `out`.
pub fn kernel(scalars: usize, body: &str) -> Module {
    let params: String = (0..scalars)
        .map(|i| format!(".param .u32 k_s{i}, "))
        .collect();
    let loads: String = (0..scalars)
        .map(|i| format!("ld.param.u32 %r{}, [k_s{i}];\n", 20 + i))
        .collect();
    let text = format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k({params}.param .u64 k_out)\n{{\n.reg .pred %p<16>;\n.reg .b32 %r<48>;\n.reg .b64 %rd<16>;\n.reg .f32 %f<16>;\n{loads}ld.param.u64 %rd1, [k_out];\ncvta.to.global.u64 %rd2, %rd1;\n{body}\n}}\n"
    );
    Module::parse(&text).expect("test PTX parses")
}

/// The emulator's counts of `k` launched with these scalars and a zeroed 64 KiB `out`.
pub fn emulate(m: &Module, grid: [u64; 3], block: [u64; 3], scalars: &[i64]) -> BoundStats {
    let mut args: Vec<KernelArg> = scalars.iter().map(|v| KernelArg::S32(*v as i32)).collect();
    args.push(KernelArg::Buffer(vec![0; 1 << 16]));
    emu::run_with(
        m,
        "k",
        &Launch { grid, block },
        &args,
        &emu::Options::default(),
    )
    .expect("emulates")
    .stats
}

/// The hint keys of assumptions about trip counts, branches and predicates.
pub fn data_dependent(a: &[Assumption]) -> Vec<String> {
    a.iter()
        .map(|a| a.hint_key.clone())
        .filter(|k| {
            ["trip.", "branch.", "pred."]
                .iter()
                .any(|p| k.starts_with(p))
        })
        .collect()
}

/// The counter's closed forms of `kernel` for this block size, the grid left symbolic.
pub fn analyze(m: &Module, kernel: &str, block: [u64; 3]) -> KernelStats {
    count::analyze_kernel_with(
        m,
        kernel,
        &Options {
            block: Some(block),
            grid: None,
        },
    )
    .expect("analyses")
}

/// A workload with parameters by position (`("0", n)`) and no hints.
pub fn workload(grid: [u64; 3], block: [u64; 3], params: &[(&str, i64)]) -> Workload {
    Workload {
        grid,
        block,
        params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        hints: BTreeMap::new(),
        reuse: false,
    }
}
