//! kerncast's build system, written in Rust (`cargo xtask <command>`).

mod bootstrap;
mod cmd;
mod fuzz;
mod modgraph;
mod regen;
mod validate;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use cmd::{cargo, run_checked};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "kerncast's build system")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Install what kerncast needs (Debian packages, CUDA compiler from PyPI), only what is missing.
    Bootstrap,
    /// Bootstrap, build, analyse the bundled example kernels for a bundled device, print a summary.
    Demo,
    /// Bootstrap, lint (as `lint`), then run every test of the workspace.
    Test {
        /// Extra arguments passed to `cargo test`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// The lint floor CI holds: `cargo fmt --check`, clippy with warnings denied on every
    /// target, and no unwrap/expect/panic in library and binary code (tests may).
    Lint,
    /// Lower the kernel corpus (tests/kernels) with every available front end into tests/ptx.
    Regen,
    /// Validate the models against the real GTX Titan X measurements (shared/data/gpuptxmodel).
    Validate {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// kerncast on real programs (the shared gpuFLOPBench folder by default): launches found,
    /// and with `--json FILE` one row per measured launch. Extra arguments go to `kerncast realcode`.
    Realcode {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Coverage-guided fuzzing (cargo-fuzz, libFuzzer) of the PTX parser and verifier, the
    /// counter, the emulator, device profiles, kerncast.toml and baselines.
    Fuzz {
        /// Minutes in all, shared out evenly over the targets.
        #[arg(long, default_value_t = 6.0)]
        minutes: f64,
        /// Only these targets (ptx, count, emulate, device_toml, config_toml, baseline,
        /// host_python, host_c).
        targets: Vec<String>,
    },
    /// The import graph between each crate's modules (one per file, parsed with syn) and its
    /// cycles; exits non-zero when there is one.
    Modgraph {
        /// Crate folders (default: every crate of the workspace).
        crates: Vec<String>,
    },
    /// Build-time cost, side by side with its targets (issue 50): `predict` over the corpus
    /// PTX, counting loop nests with a launch, `rank` points per second, `analyze
    /// tests/kernels` cold and unchanged, a `.cu` beside `nvcc -c`; then the criterion
    /// benchmarks of the same paths (`--no-criterion` skips them). Other arguments go to the
    /// whole-process benchmark (`--only predict,nest,rank,analyze,cu`, `--compare
    /// target/kerncast-bench/bench.json`).
    Bench {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn main() -> Result<()> {
    let root = workspace_root()?;
    std::env::set_current_dir(&root)?;
    match Cli::parse().command {
        Cmd::Bootstrap => bootstrap::run(&root),
        Cmd::Demo => demo(&root),
        Cmd::Test { args } => test(&root, &args),
        Cmd::Lint => {
            bootstrap::run(&root)?;
            lint(&root)
        }
        Cmd::Regen => {
            bootstrap::run(&root)?;
            regen::run(&root)
        }
        Cmd::Validate { args } => validate::run(&root, &args),
        Cmd::Realcode { args } => realcode(&root, &args),
        Cmd::Fuzz { minutes, targets } => fuzz::run(&root, minutes, &targets),
        Cmd::Modgraph { crates } => modgraph::run(&root, &crates),
        Cmd::Bench { args } => {
            bootstrap::run(&root)?;
            bench(&root, &args)
        }
    }
}

fn workspace_root() -> Result<PathBuf> {
    let xtask = Path::new(env!("CARGO_MANIFEST_DIR"));
    xtask.parent().map(Path::to_path_buf).with_context(|| {
        format!(
            "{} has no parent folder to be the workspace",
            xtask.display()
        )
    })
}

fn test(root: &Path, extra: &[String]) -> Result<()> {
    bootstrap::run(root)?;
    lint(root)?;
    let mut c = cargo(root);
    c.args(["test", "--workspace"]).args(extra);
    if std::env::var_os("CI").is_some() {
        // A CI clone builds once; incremental state would only take disk (4 GB here).
        c.env("CARGO_INCREMENTAL", "0");
    }
    run_checked(c)
}

/// The lint floor (issue 49): formatting, clippy's warnings on every target, and no
/// `unwrap`/`expect`/`panic!` in library and binary code. clippy.toml lets tests use them; build
/// scripts are not lib or bin targets; kerncast-tests is the integration-test crate (its
/// binaries are test drivers). A `#[allow]` of one of these lints says why beside it.
fn lint(root: &Path) -> Result<()> {
    for (sub, component) in [("fmt", "rustfmt"), ("clippy", "clippy")] {
        let ok = cargo(root)
            .args([sub, "--version"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            bail!("`cargo {sub}` is not installed: rustup component add {component}");
        }
    }
    let mut fmt = cargo(root);
    fmt.args(["fmt", "--all", "--check"]);
    run_checked(fmt).context("formatting differs from rustfmt's: run `cargo fmt --all`")?;
    let mut warnings = cargo(root);
    warnings.args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]);
    run_checked(warnings)?;
    let mut floor = cargo(root);
    floor.args([
        "clippy",
        "--workspace",
        "--exclude",
        "kerncast-tests",
        "--lib",
        "--bins",
        "--",
        "-D",
        "warnings",
        "-D",
        "clippy::unwrap_used",
        "-D",
        "clippy::expect_used",
        "-D",
        "clippy::panic",
    ]);
    run_checked(floor)
}

/// The whole-process benchmark (`kerncast-bench`, release, against a release `kerncast`), then
/// the criterion benchmarks of the paths it measures.
fn bench(root: &Path, args: &[String]) -> Result<()> {
    let criterion = !args.iter().any(|a| a == "--no-criterion");
    let pass: Vec<&String> = args.iter().filter(|a| *a != "--no-criterion").collect();
    cmd::build_kerncast(root, &["--release"])?;
    let mut whole = cargo(root);
    whole
        .args([
            "run",
            "--release",
            "--quiet",
            "--package",
            "kerncast-tests",
            "--bin",
            "kerncast-bench",
            "--",
            "--kerncast",
        ])
        .arg(root.join("target/release/kerncast"))
        .args(&pass);
    run_checked(whole)?;
    if criterion {
        let mut c = cargo(root);
        c.args([
            "bench",
            "--package",
            "kerncast",
            "--bench",
            "rank",
            "--bench",
            "predict_path",
        ]);
        run_checked(c)?;
        // the emulator alone, which the kernels whose counts depend on data pay per run
        let mut e = cargo(root);
        e.args([
            "bench",
            "--package",
            "kerncast-passes",
            "--bench",
            "emulate",
        ]);
        run_checked(e)?;
    }
    Ok(())
}

fn realcode(root: &Path, extra: &[String]) -> Result<()> {
    bootstrap::run(root)?;
    cmd::build_kerncast(root, &["--release"])?;
    let mut c = Command::new(root.join("target/release/kerncast"));
    c.current_dir(root)
        .env("KERNCAST_TOOLCHAIN", root.join(".toolchain"))
        .arg("realcode");
    if !extra.iter().any(|a| a == "--data") {
        c.arg("--data")
            .arg(root.join("../shared/data/gpuflopbench"));
        // the shared programs are lowered by the compiler they were measured with
        if std::env::var_os("KERNCAST_CLANG").is_none() {
            match bootstrap::ensure_clang18(root) {
                Ok(clang) => {
                    c.env("KERNCAST_CLANG", clang);
                }
                Err(e) => eprintln!(
                    "realcode: lowering with clang-19, not the measured build's clang 18: {e:#}"
                ),
            }
        }
    }
    c.args(extra);
    run_checked(c)
}

fn demo(root: &Path) -> Result<()> {
    bootstrap::run(root)?;
    cmd::build_kerncast(root, &["--release"])?;
    let kerncast = root.join("target/release/kerncast");
    let out = root.join("target/kerncast-demo");
    let mut c = Command::new(&kerncast);
    c.current_dir(root)
        .env("KERNCAST_TOOLCHAIN", root.join(".toolchain"))
        .args([
            "analyze",
            "examples/kernels",
            "--device",
            "gtx-titan-x",
            "--size-chart",
            "--out",
        ])
        .arg(&out);
    run_checked(c)?;
    eprintln!("demo: reports in {}", out.display());
    Ok(())
}
