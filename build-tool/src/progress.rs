//! Progress bars on stderr, drawn only where someone watches: a terminal, outside CI.
//!
//! `analyze` and `check` draw one bar over their jobs. The single-kernel commands (`predict`,
//! `count`, `emulate`) turn on [`enable_launch_bars`], and then every emulated launch, the one
//! step of theirs that can take seconds, draws a bar over its blocks. The batch commands leave
//! it off, so their workers never draw over their own bar.

use indicatif::{ProgressBar, ProgressStyle};
use kerncast_passes::emu::{self, EmuError, EmuResult, KernelArg};
use kerncast_passes::ptx::Module;
use kerncast_passes::stats::Launch;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

static LAUNCH_BARS: AtomicBool = AtomicBool::new(false);

/// Show a bar for each emulated launch from now on (single-kernel commands).
pub fn enable_launch_bars() {
    LAUNCH_BARS.store(true, Ordering::Relaxed);
}

fn watched() -> bool {
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    !ci && std::io::stderr().is_terminal()
}

/// A bar of `len` steps in `template` (indicatif's syntax), hidden unless watched.
pub fn bar(len: u64, template: &str) -> ProgressBar {
    if !watched() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb
}

/// `emu::run_with` under a bar over the launch's blocks, shown when launch bars are on.
pub fn emulate(
    module: &Module,
    kernel: &str,
    launch: &Launch,
    args: &[KernelArg],
    opts: &emu::Options,
) -> Result<EmuResult, EmuError> {
    let blocks = opts.blocks_of(launch);
    let bar = launch_bar(kernel, blocks);
    let r = emu::run_observed(module, kernel, launch, args, opts, &mut |done, _| {
        bar.set_position(done)
    });
    bar.finish_and_clear();
    r
}

fn launch_bar(kernel: &str, blocks: u64) -> ProgressBar {
    if !LAUNCH_BARS.load(Ordering::Relaxed) {
        return ProgressBar::hidden();
    }
    let pb = bar(
        blocks,
        "{spinner} emulating {msg} [{bar:30}] {pos}/{len} blocks, {elapsed} (eta {eta})",
    );
    pb.set_message(crate::pipeline::demangle(kernel));
    pb
}
