//! `kerncast rank` on a tiled matmul: every (TILE, n) combination is lowered with `-D TILE=…`,
//! predicted, and ranked; the workload's launch follows the macro (`block=(TILE,TILE)`).

use kerncast::engine::default_counter;
use kerncast::lower::LowerOptions;
use kerncast::rank::{rank, render, Objective, RankOptions};

const MATMUL: &str = r#"// Tiled matmul with a compile-time tile size.
// kerncast: workload n=64 grid=(n/TILE,n/TILE) block=(TILE,TILE)
#ifndef TILE
#define TILE 16
#endif
extern "C" __global__ void matmul_tiled(int n, const float *A, const float *B, float *C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
        int ac = t * TILE + threadIdx.x;
        int br = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? A[row * n + ac] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (br < n && col < n) ? B[br * n + col] : 0.0f;
        __syncthreads();
        for (int p = 0; p < TILE; ++p)
            acc += As[threadIdx.y][p] * Bs[p][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n)
        C[row * n + col] = acc;
}
"#;

/// Ranking options for `matmul_tiled` in `file` by time on the GTX Titan X.
fn tiled(file: std::path::PathBuf, vary: &[(&str, &[&str])]) -> RankOptions {
    RankOptions {
        file,
        kernel: Some("matmul_tiled".into()),
        vary: vary
            .iter()
            .map(|(k, vs)| (k.to_string(), vs.iter().map(|v| v.to_string()).collect()))
            .collect(),
        objective: Objective::Time,
        device: "gtx-titan-x".into(),
        model: "auto".into(),
        lower: LowerOptions::default(),
        workload: None,
    }
}

#[test]
fn ranks_tile_sizes_and_workloads() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("matmul_tiled.cu");
    std::fs::write(&file, MATMUL).unwrap();
    let opts = tiled(file, &[("TILE", &["16", "8"]), ("n", &["64", "32"])]);
    let counter = default_counter();
    let r = rank(&opts, counter.as_ref()).expect("rank runs");
    assert!(r.failed.is_empty(), "{:#?}", r.failed);
    assert_eq!(r.ranked.len(), 4);
    for w in r.ranked.windows(2) {
        assert!(w[0].time_s <= w[1].time_s, "sorted by time");
    }
    // The reference point (TILE=16, n=64) has speed-up 1.
    let refp = r
        .ranked
        .iter()
        .find(|x| x.values["TILE"] == "16" && x.values["n"] == "64")
        .expect("reference ranked");
    assert!((refp.speedup - 1.0).abs() < 1e-12);
    // Half the problem size is faster than the full one at the same tile.
    let small = r
        .ranked
        .iter()
        .find(|x| x.values["TILE"] == "16" && x.values["n"] == "32")
        .unwrap();
    assert!(small.speedup > 1.0, "{small:?}");
    let text = render(&r, 3);
    assert_eq!(text.lines().count(), 2 + 3, "{text}");
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["ranked"][0]["rank"], 1);
}

/// The bundled example's tile size is a real knob: its `#ifndef TILE` default gives way to
/// `--vary TILE=…`, and its launch (`block=(TILE,TILE)`) follows, so each tile is a different
/// kernel with a different prediction.
#[test]
fn example_matmul_tile_is_variable() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/kernels/matmul_tiled.cu");
    let opts = tiled(file, &[("TILE", &["8", "16"]), ("n", &["64"])]);
    let r = rank(&opts, default_counter().as_ref()).expect("rank runs");
    assert!(r.failed.is_empty(), "{:#?}", r.failed);
    assert_eq!(r.ranked.len(), 2);
    let (a, b) = (r.ranked[0].time_s, r.ranked[1].time_s);
    assert!(
        (a - b).abs() > 1e-3 * a.max(b),
        "TILE=8 and TILE=16 predicted alike ({a} s, {b} s): the macro had no effect"
    );
}

/// A varied macro that changes neither the code nor the launch ranks its values as ties; the
/// ranking says so, and why, instead of presenting identical predictions as a choice. Here a
/// plain `#define TILE 16` (no `#ifndef`) wins over `-D TILE=…`, and `UNROLLX` is not in the
/// source at all; `n` is a workload value and is never flagged.
#[test]
fn a_macro_that_changes_nothing_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("matmul_plain_define.cu");
    let plain = MATMUL
        .replace("#ifndef TILE\n#define TILE 16\n#endif", "#define TILE 16")
        .replace(
            "grid=(n/TILE,n/TILE) block=(TILE,TILE)",
            "grid=(n/16,n/16) block=(16,16)",
        );
    assert!(plain.contains("#define TILE 16\nextern"), "{plain}");
    std::fs::write(&file, plain).unwrap();
    let opts = tiled(
        file,
        &[
            ("TILE", &["8", "16"]),
            ("UNROLLX", &["1", "2"]),
            ("n", &["64", "32"]),
        ],
    );
    let r = rank(&opts, default_counter().as_ref()).expect("rank runs");
    assert!(r.failed.is_empty(), "{:#?}", r.failed);
    assert_eq!(r.notes.len(), 2, "{:#?}", r.notes);
    assert!(
        r.notes[0].starts_with("TILE=8,16 lower to the same PTX")
            && r.notes[0].contains("#ifndef TILE"),
        "{:#?}",
        r.notes
    );
    assert!(
        r.notes[1].starts_with("UNROLLX=1,2") && r.notes[1].contains("does not name UNROLLX"),
        "{:#?}",
        r.notes
    );
    assert!(render(&r, 8).contains("note: TILE=8,16"));
    // The tiled source whose macro is a real knob gets no note.
    let real = dir.path().join("matmul_tiled.cu");
    std::fs::write(&real, MATMUL).unwrap();
    let opts = tiled(real, &[("TILE", &["8", "16"])]);
    assert_eq!(
        rank(&opts, default_counter().as_ref()).unwrap().notes,
        Vec::<String>::new()
    );
}

/// saxpy whose block size is a macro only its launch reads: every block size moves the same
/// bytes, so on a memory-bound device every variant is predicted at the same time.
const SAXPY_BLOCK: &str = r#"// kerncast: workload n=16777216 grid=(n/BLOCK) block=BLOCK
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
"#;

const CLI: &str = env!("CARGO_BIN_EXE_kerncast-cli");

/// `kerncast rank FILE ARGS…` as a user runs it; its stdout and stderr.
fn rank_cli(file: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> (String, String) {
    let out = std::process::Command::new(CLI)
        .arg("rank")
        .arg(file)
        .args(args)
        .envs(env.iter().copied())
        .env("NO_COLOR", "1")
        .output()
        .expect("kerncast-cli runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr)
}

/// On the A100 every block size of saxpy is bound by DRAM bandwidth and predicted alike; the
/// ranking says which variants tie and why, in the table and in `--json`, instead of leaving
/// three equal rows to read as a choice.
#[test]
fn variants_that_tie_at_the_bandwidth_limit_are_explained() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("saxpy_block.cu");
    std::fs::write(&file, SAXPY_BLOCK).unwrap();
    let note = "BLOCK=128,256,512 tie at 129.470 µs: each is bound by dram (the device's DRAM \
                bandwidth), so changing BLOCK does not move the predicted time";
    let args = ["--device", "a100", "--vary", "BLOCK=128,256,512"];
    let (text, _) = rank_cli(&file, &args, &[]);
    let rows: Vec<&str> = text.lines().filter(|l| l.contains("BLOCK=")).collect();
    assert_eq!(
        rows.len(),
        1 + 3 + 1,
        "header, three rows, the note:\n{text}"
    );
    for row in &rows[1..4] {
        assert!(
            row.contains("129.470 µs") && row.contains(" dram ") && row.ends_with("1.00x"),
            "{text}"
        );
    }
    assert!(text.contains(&format!("note: {note}\n")), "{text}");

    let (json, _) = rank_cli(&file, &[&args[..], &["--json"]].concat(), &[]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["notes"], serde_json::json!([note]), "{json:#}");
    assert_eq!(json["ranked"][2]["bottleneck"], "dram");

    // Variants that do not tie get no such note.
    let (text, _) = rank_cli(
        &file,
        &[
            "--device",
            "a100",
            "--vary",
            "BLOCK=256",
            "--vary",
            "n=1048576,16777216",
        ],
        &[],
    );
    assert!(!text.contains("note:"), "{text}");
}

/// The ratio column says what it divides: a speed-up under `time`, an energy ratio under
/// `energy`, an EDP ratio under `edp`, with the reference named in the header. In `--json`,
/// `objective_ratio` is the ranked ratio and `speedup` stays a ratio of times.
#[test]
fn the_ratio_column_is_named_for_the_objective() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/kernels/matmul_tiled.cu");
    let base = [
        "--device",
        "gtx-titan-x",
        "--vary",
        "TILE=8,16",
        "--vary",
        "n=256",
        "--objective",
    ];
    for (objective, column, noun) in [
        ("time", "speedup", "time"),
        ("energy", "energy ratio", "energy"),
        ("edp", "EDP ratio", "energy-delay product"),
    ] {
        let (text, _) = rank_cli(&file, &[&base[..], &[objective]].concat(), &[]);
        let mut lines = text.lines();
        let header = lines.next().unwrap_or_default();
        assert_eq!(
            header,
            format!(
                "kernel matmul_tiled on gtx-titan-x, objective {noun}; {column} = the \
                 reference's {noun} / each one's (> 1 is better), reference TILE=8 n=256"
            ),
            "{text}"
        );
        let columns = lines.next().unwrap_or_default();
        assert!(columns.trim_end().ends_with(column), "{text}");
        if objective != "time" {
            assert!(!columns.contains("speedup"), "{text}");
        }
        assert_eq!(columns.contains("EDP "), objective == "edp", "{text}");
    }
    let (json, _) = rank_cli(&file, &[&base[..], &["edp", "--json"]].concat(), &[]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let ranked = json["ranked"].as_array().unwrap();
    let at = |tile: &str| {
        ranked
            .iter()
            .find(|r| r["values"]["TILE"] == tile)
            .unwrap_or_else(|| panic!("TILE={tile} ranked: {json:#}"))
    };
    let (reference, other) = (at("8"), at("16"));
    let f = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap();
    let edp_ratio = f(reference, "edp") / f(other, "edp");
    let time_ratio = f(reference, "time_s") / f(other, "time_s");
    assert!((f(other, "objective_ratio") - edp_ratio).abs() < 1e-9 * edp_ratio);
    assert!((f(other, "speedup") - time_ratio).abs() < 1e-9 * time_ratio);
    assert!(
        (edp_ratio - time_ratio).abs() > 1e-3,
        "the two ratios differ here"
    );
}

/// In a CI log (stderr not a terminal) a rank over several compiles prints plain progress
/// lines, as analyze does, so a long sweep shows it is alive.
#[test]
fn rank_prints_progress_lines_when_not_watched() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("saxpy_block.cu");
    std::fs::write(&file, SAXPY_BLOCK).unwrap();
    let (_, stderr) = rank_cli(
        &file,
        &["--device", "a100", "--vary", "BLOCK=128,256,512,1024"],
        &[("KERNCAST_PROGRESS_SECS", "0.01")],
    );
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("kerncast: ranking variants: "))
        .collect();
    assert!(!lines.is_empty(), "{stderr}");
    assert!(lines.iter().all(|l| l.contains("/4 (")), "{stderr}");
}
