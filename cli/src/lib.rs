//! kerncast's command line: `kerncast` and `cargo kerncast`. One module per subcommand, each
//! with its clap `Args` and a `run` that turns them into the library's (`kerncast`) inputs,
//! calls it and prints the result.

pub mod cargo_kerncast;
pub mod commands;

use kerncast::ops;

use clap::{Parser, Subcommand};

/// Predict how long a GPU kernel runs, how much power it draws and how much energy it uses,
/// from its source or PTX, without a GPU.
#[derive(Parser, Debug)]
#[command(name = "kerncast", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    budgets: BudgetFlags,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Lower a source (.cu, .cl, .ll/.bc) to PTX with nvcc, clang or in-process LLVM.
    Lower(ops::lower::Args),
    /// Per-kernel instruction summary of a PTX module.
    Ptx(ops::ptx::Args),
    /// Control-flow graph of a kernel (text or Graphviz).
    Cfg(ops::cfg::Args),
    /// Exact static counts of a kernel: closed forms (--symbolic) or numbers for a workload.
    Count(ops::count::Args),
    /// Run a kernel in the functional emulator: counts, loop trips, trip-count hints.
    Emulate(ops::emulate::Args),
    /// Predict every kernel and write JSON, Markdown and HTML reports.
    Analyze(ops::analyze::Args),
    /// CI gate: compare predictions with a baseline (exit 0 ok, 1 regression, 2 error).
    Check(ops::check::Args),
    /// Rank -D macro and workload variants of a kernel by predicted time, energy or EDP.
    Rank(ops::rank::Args),
    /// List device profiles, or show one with the source of every value.
    Devices(ops::devices::Args),
    /// Time, power, energy, breakdown and bottleneck of one kernel; --sweep for the DVFS grid.
    Predict(ops::predict::Args),
    /// Accuracy against real GPU measurements (needs the `validation` feature).
    Validate(ops::validate::Args),
    /// What a program launches: kernel, grid, block, arguments, how often, from its host code.
    Launches(ops::launches::Args),
    /// kerncast on real programs against their measured launches (gpuFLOPBench's layout).
    Realcode(kerncast::realcode::Args),
    /// FLOPs per PTX instruction on an architecture's SASS, from probe kernels (ptxas, nvdisasm).
    FlopTable(ops::flop_table::Args),
    /// Fit the linear model on measured launches (realcode's --json rows), with 5-fold
    /// cross-validation grouped by program, and write the weights into a device profile.
    Fit(ops::fit::Args),
}

/// Budgets of work, for every subcommand (they override `[budgets]` in kerncast.toml).
#[derive(clap::Args, Debug)]
struct BudgetFlags {
    /// isl operations one analysis may do per isl context before the kernel is refused (or
    /// handed to the emulator), instead of a time limit: the same on any machine.
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    isl_ops: Option<u64>,
    /// Warp-instruction steps one emulated run may take (an infinite loop stops here).
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    emu_steps: Option<u64>,
    /// Bytes one emulated run may hold (buffers, module variables, a block's memory).
    #[arg(long, global = true, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    emu_bytes: Option<u64>,
}

/// The `kerncast` command line (the binary's `main`, and test binaries that run the same CLI).
pub fn main() -> miette::Result<()> {
    quit_quietly_on_closed_output();
    free_memory_promptly();
    // before any thread starts: it sets an environment variable
    kerncast_host::clang::prefer_packaged_libclang();
    let cli = Cli::parse();
    kerncast_passes::budget::set_from_flags(&kerncast_passes::budget::Overrides {
        isl_ops: cli.budgets.isl_ops,
        emu_steps: cli.budgets.emu_steps,
        emu_bytes: cli.budgets.emu_bytes,
    });
    let command = cli.command;
    // One kernel at a time: an emulated launch, which can take seconds, shows its own bar.
    if matches!(
        command,
        Command::Predict(_) | Command::Count(_) | Command::Emulate(_)
    ) {
        kerncast::progress::enable_launch_bars();
    }
    match command {
        Command::Lower(a) => commands::lower::run(a),
        Command::Ptx(a) => commands::ptx::run(a),
        Command::Cfg(a) => commands::cfg::run(a),
        Command::Count(a) => commands::count::run(a),
        Command::Emulate(a) => commands::emulate::run(a),
        Command::Analyze(a) => commands::analyze::run(a),
        Command::Check(a) => commands::check::run(a),
        Command::Rank(a) => commands::rank::run(a),
        Command::Devices(a) => commands::devices::run(a),
        Command::Predict(a) => commands::predict::run(a),
        Command::Validate(a) => commands::validate::run(a),
        Command::Launches(a) => commands::launches::run(a),
        Command::Realcode(a) => Ok(kerncast::realcode::run(a)?),
        Command::FlopTable(a) => commands::flop_table::run(a),
        Command::Fit(a) => commands::fit::run(a),
    }
}

/// `kerncast … | head` should stop as `cat` or `grep` do, not print a panic: Rust ignores
/// SIGPIPE, so a write to a closed pipe is an error that `println!` turns into one. With the
/// default action back, the process ends quietly at that write. kerncast writes to no child's
/// stdin, so no other pipe can end it this way, and its files are written atomically.
fn quit_quietly_on_closed_output() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists; it sets a signal's action
    // to the default and installs no handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// mimalloc keeps freed pages a while before it gives them back (1 s in the version built
/// here). The reuse walk tallies on a thread of its own, whose heap the growing sector map
/// leaves behind table after table that no other allocation of that thread takes up: held,
/// they raised gesummv's predict peak from 246 to 290 MB; given back at once, it is 250 MB,
/// and over the corpus the kernels above 150 MB fell from 43 to 19, at no measured cost in
/// time (`cargo xtask bench`, predict section).
fn free_memory_promptly() {
    // `mi_option_purge_delay` in mimalloc.h's `mi_option_e`, the same in its v2 and v3, which
    // libmimalloc-sys 0.1.49 builds; the crate names no constant for it
    const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // SAFETY: sets an option's value; mimalloc reads it when it next purges.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) }
}
