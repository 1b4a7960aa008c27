//! `cargo kerncast [analyze|check|update-baseline] [--manifest-path P] [--device D]`.
//! Exit 0 ok, 1 regression, 2 error (the worst over all packages).

use clap::Parser;

// counting builds and drops many small polynomials; mimalloc makes that about a third faster
// than the system allocator (measured on the corpus with `cargo bench --bench count_corpus`)
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "cargo", bin_name = "cargo")]
enum Cargo {
    /// Predict GPU kernel time and energy for every package with [package.metadata.kerncast].
    Kerncast(Args),
}

#[derive(clap::Args)]
struct Args {
    /// analyze, check (against each package's baseline) or update-baseline.
    #[arg(default_value = "check", value_parser = ["analyze", "check", "update-baseline"])]
    mode: String,
    #[arg(long)]
    manifest_path: Option<std::path::PathBuf>,
    /// Device (repeatable); default: each package's kerncast.toml.
    #[arg(long = "device")]
    devices: Vec<String>,
}

fn main() {
    let Cargo::Kerncast(a) = Cargo::parse();
    let (code, text) =
        kerncast_cli::cargo_kerncast::run_all(&a.mode, a.manifest_path.as_ref(), &a.devices);
    print!("{text}");
    std::process::exit(code);
}
