//! `kerncast predict` keeps a `.cu`'s lowered PTX and ptxas's resources in the content cache
//! `analyze` uses: a second predict of the unchanged file reads them back and prints the same
//! prediction; `--no-cache` neither reads nor writes it.

use std::path::Path;
use std::process::Command;

const CLI: &str = env!("CARGO_BIN_EXE_kerncast-cli");

const KERNEL: &str = "extern \"C\" __global__ void scale(int n, float a, float *x) {\n\
  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] *= a;\n}\n";

/// `predict` of `scale.cu` in `dir` with the cache at `dir/cache`: its JSON output.
fn predict(dir: &Path, extra: &[&str]) -> String {
    let out = Command::new(CLI)
        .current_dir(dir)
        .args([
            "predict", "scale.cu", "--kernel", "scale", "--device", "rtx-3080",
        ])
        .args([
            "--grid", "64", "--block", "256", "--param", "n=16384", "--json",
        ])
        .args(extra)
        .env("KERNCAST_CACHE", dir.join("cache"))
        .env("NO_COLOR", "1")
        .output()
        .expect("kerncast-cli runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 JSON")
}

/// The cache's entries.
fn entries(cache: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for shard in std::fs::read_dir(cache).into_iter().flatten().flatten() {
        for e in std::fs::read_dir(shard.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            out.push(e.file_name().to_string_lossy().into_owned());
        }
    }
    out.sort();
    out
}

#[test]
fn a_second_predict_of_an_unchanged_file_reads_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("scale.cu"), KERNEL).unwrap();
    let cache = dir.path().join("cache");

    let bypassed = predict(dir.path(), &["--no-cache"]);
    assert!(
        entries(&cache).is_empty(),
        "--no-cache wrote {:?}",
        entries(&cache)
    );

    let first = predict(dir.path(), &[]);
    let kept = entries(&cache);
    // the lowered PTX and ptxas's registers
    assert!(kept.len() >= 2, "cache after one predict: {kept:?}");
    let second = predict(dir.path(), &[]);
    assert_eq!(entries(&cache), kept, "a hit adds nothing");
    assert_eq!(second, first);
    assert_eq!(bypassed, first);
}
