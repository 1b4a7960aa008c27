//! Functional tests of the PTX emulator: kernels compiled by nvcc (tests/tests/emu_fixtures/)
//! run on small inputs, outputs checked against Rust references. This proves the semantics the
//! counting oracle relies on.

use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::ptx::Module;
use kerncast_passes::stats::Launch;

fn fixtures() -> Module {
    let p = kerncast_tests::workspace_root().join("tests/tests/emu_fixtures/kernels.ptx");
    let text = std::fs::read_to_string(&p).expect("fixture PTX");
    Module::parse(&text).expect("fixture PTX parses")
}

fn launch(grid: [u64; 3], block: [u64; 3]) -> Launch {
    Launch { grid, block }
}

#[test]
fn saxpy() {
    let m = fixtures();
    let n = 200usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 100.0 - i as f32).collect();
    let r = emu::run(
        &m,
        "saxpy",
        &launch([4, 1, 1], [64, 1, 1]),
        &[
            KernelArg::S32(n as i32),
            KernelArg::F32(3.0),
            KernelArg::f32s(&x),
            KernelArg::f32s(&y),
        ],
    )
    .unwrap();
    let want: Vec<f32> = (0..n).map(|i| 3.0f32.mul_add(x[i], y[i])).collect();
    assert_eq!(r.f32s(3), want);
}
