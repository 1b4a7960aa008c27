//! `emu::run_observed` reports each finished block, so a command waiting on a long launch can
//! show how far it is.

use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::stats::Launch;

mod common;
use common::kernel;

#[test]
fn every_block_is_reported_once_in_order_with_the_launch_total() {
    let m = kernel(0, "ret;");
    let mut seen = Vec::new();
    emu::run_observed(
        &m,
        "k",
        &Launch {
            grid: [3, 2, 2],
            block: [32, 1, 1],
        },
        &[KernelArg::Buffer(vec![0; 64])],
        &emu::Options::default(),
        &mut |done, total| seen.push((done, total)),
    )
    .expect("emulates");
    let expected: Vec<(u64, u64)> = (1..=12).map(|d| (d, 12)).collect();
    assert_eq!(seen, expected);
}
