//! The functional emulator on every kernel of a module that parses and verifies, with small
//! step and byte budgets and zero-filled buffers: an error is fine, a panic or a hang is not.
#![no_main]
use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::ptx;
use kerncast_passes::stats::Launch;
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
    let m = kerncast_passes::inline::inline_calls(&m).module;
    let opts = emu::Options {
        max_steps: 200_000,
        max_bytes: 16 << 20,
        dynamic_shared: 1024,
        keep_buffers: false,
        ..emu::Options::default()
    };
    let launch = Launch {
        grid: [2, 1, 1],
        block: [64, 1, 1],
    };
    for k in m.kernels().take(2) {
        let args: Vec<KernelArg> = k
            .params
            .iter()
            .map(|p| match p.ty.bits() {
                64 => KernelArg::Buffer(vec![0; 4096]),
                _ => KernelArg::U32(5),
            })
            .collect();
        let _ = emu::run_with(&m, &k.name, &launch, &args, &opts);
    }
});
