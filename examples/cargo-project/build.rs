// Predict the kernels' time and energy at build time; fail the build on a regression beyond
// kerncast.toml's thresholds (compared with kerncast-baseline.json).
fn main() {
    let out = kerncast_build::Kerncast::new()
        .config("kerncast.toml")
        .baseline("kerncast-baseline.json")
        .fail_on_regression(true)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "cargo:rustc-env=KERNCAST_REPORT={}",
        out.out_dir.join("kerncast-report.html").display()
    );
}
