use clap::{Parser, Subcommand};
use kerncast::cli;

// counting builds and drops many small polynomials; mimalloc makes that about a third faster
// than the system allocator (measured on the corpus with `cargo bench --bench count_corpus`)
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Predict how long a GPU kernel runs, how much power it draws and how much energy it uses,
/// from its source or PTX, without a GPU.
#[derive(Parser, Debug)]
#[command(name = "kerncast", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Lower a source (.cu, .cl, .ll/.bc) to PTX with nvcc, clang or in-process LLVM.
    Lower(cli::lower::Args),
    /// Per-kernel instruction summary of a PTX module.
    Ptx(cli::ptx::Args),
    /// Control-flow graph of a kernel (text or Graphviz).
    Cfg(cli::cfg::Args),
    /// Exact static counts of a kernel: closed forms (--symbolic) or numbers for a workload.
    Count(cli::count::Args),
    /// Run a kernel in the functional emulator: counts, loop trips, trip-count hints.
    Emulate(cli::emulate::Args),
    /// Predict every kernel and write JSON, Markdown and HTML reports.
    Analyze(cli::analyze::Args),
    /// CI gate: compare predictions with a baseline (exit 0 ok, 1 regression, 2 error).
    Check(cli::check::Args),
    /// Rank -D macro and workload variants of a kernel by predicted time, energy or EDP.
    Rank(cli::rank::Args),
    /// List device profiles, or show one with the source of every value.
    Devices(cli::devices::Args),
    /// Time, power, energy, breakdown and bottleneck of one kernel; --sweep for the DVFS grid.
    Predict(cli::predict::Args),
    /// Accuracy against real GPU measurements (needs the `validation` feature).
    Validate(cli::validate::Args),
    /// What a program launches: kernel, grid, block, arguments, how often, from its host code.
    Launches(cli::launches::Args),
    /// kerncast on real programs against their measured launches (gpuFLOPBench's layout).
    Realcode(kerncast::realcode::Args),
    /// FLOPs per PTX instruction on an architecture's SASS, from probe kernels (ptxas, nvdisasm).
    FlopTable(cli::flop_table::Args),
}

fn main() -> miette::Result<()> {
    let command = Cli::parse().command;
    // One kernel at a time: an emulated launch, which can take seconds, shows its own bar.
    if matches!(
        command,
        Command::Predict(_) | Command::Count(_) | Command::Emulate(_)
    ) {
        kerncast::progress::enable_launch_bars();
    }
    match command {
        Command::Lower(a) => cli::lower::run(a),
        Command::Ptx(a) => cli::ptx::run(a),
        Command::Cfg(a) => cli::cfg::run(a),
        Command::Count(a) => cli::count::run(a),
        Command::Emulate(a) => cli::emulate::run(a),
        Command::Analyze(a) => cli::analyze::run(a),
        Command::Check(a) => cli::check::run(a),
        Command::Rank(a) => cli::rank::run(a),
        Command::Devices(a) => cli::devices::run(a),
        Command::Predict(a) => cli::predict::run(a),
        Command::Validate(a) => cli::validate::run(a),
        Command::Launches(a) => cli::launches::run(a),
        Command::Realcode(a) => kerncast::realcode::run(a),
        Command::FlopTable(a) => cli::flop_table::run(a),
    }
}
