//! The validation reads any GPU in the gpuPTXModel layout, not only the released GTX Titan X: the
//! repository's `gpu_info` describes four GPUs with different grids (the Titan V and Tesla T4 have
//! one memory level). The fixture here is such a GPU, `onemem`, built from the released files:
//! the Titan X rows at 3505 MHz memory of 40 micro-benchmarks and 6 applications, their
//! sequence folders linked, and a `gpu_info` with one memory level.

use kerncast_validation::data::{default_root, gpus, parse_aggregated, pick_gpu, Dataset};
use kerncast_validation::run::{run, Options};
use std::fmt::Write;
use std::path::{Path, PathBuf};

const MICRO: usize = 40;
const APPS: usize = 6;
const MEM: u32 = 3505;

fn released() -> PathBuf {
    let ws = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    default_root(&ws).unwrap_or_else(|e| panic!("{e}"))
}

/// Writes `<dir>/<suite>/aggregated_dataset_onemem.csv` with the first `n` blocks of the released
/// suite at `MEM` only, and links each benchmark's sequence folder.
fn suite(src: &Path, dst: &Path, n: usize) {
    let csv = src.join("aggregated_dataset_gtxtitanx.csv");
    let blocks = parse_aggregated(&csv, &std::fs::read_to_string(&csv).unwrap()).unwrap();
    std::fs::create_dir_all(dst).unwrap();
    let mut out = String::new();
    for (name, rows) in blocks.iter().take(n) {
        let _ = writeln!(out, "{name}");
        for (c, m) in rows.iter().filter(|r| r.0.mem_mhz == MEM) {
            let _ = writeln!(
                out,
                "{},{},{},{},{}",
                c.mem_mhz, c.core_mhz, m.time_s, m.power_w, m.energy_j
            );
        }
        std::os::unix::fs::symlink(src.join(name), dst.join(name)).unwrap();
    }
    std::fs::write(dst.join("aggregated_dataset_onemem.csv"), out).unwrap();
}

/// The `onemem` data set; returns its root.
fn fixture(dir: &Path) -> PathBuf {
    let src = released();
    let root = dir.join("gpuptxmodel");
    let ds = root.join("datasets/onemem");
    let titanx = src.join("datasets/gtxtitanx");
    suite(
        &titanx.join("microbenchmarks"),
        &ds.join("microbenchmarks"),
        MICRO,
    );
    suite(
        &titanx.join("realbenchmarks"),
        &ds.join("realbenchmarks"),
        APPS,
    );
    let info = root.join("gpu_info/onemem");
    std::fs::create_dir_all(&info).unwrap();
    // Levels as the released files list them (descending), then the default.
    std::fs::write(info.join("clks_mem_onemem.txt"), format!("{MEM}\n{MEM}\n")).unwrap();
    let cores = [
        1164, 1126, 1088, 1050, 1013, 975, 937, 899, 861, 823, 785, 747, 709, 671, 633, 595,
    ];
    let mut text: String = cores.iter().map(|c| format!("{c}\n")).collect();
    text.push_str("975\n");
    std::fs::write(info.join(format!("clks_core_onemem_{MEM}.txt")), text).unwrap();
    // The released Titan X idle powers at 3505 MHz memory, core ascending.
    let idle = [
        77, 77, 77, 77, 77, 77, 77, 78, 78, 78, 78, 79, 81, 83, 87, 89,
    ];
    let text: String = idle.iter().map(|w| format!("{w}\n")).collect();
    std::fs::write(info.join("idle_pows_onemem.txt"), text).unwrap();
    root
}

#[test]
fn a_gpu_with_one_memory_level_loads_on_its_own_grid() {
    let tmp = tempfile::tempdir().unwrap();
    let root = fixture(tmp.path());
    assert_eq!(gpus(&root).unwrap(), vec!["onemem".to_string()]);
    assert_eq!(pick_gpu(&root, None).unwrap(), "onemem");
    let d = Dataset::load(&root, "onemem").unwrap();
    assert_eq!((d.micro.len(), d.real.len()), (MICRO, APPS));
    assert_eq!(d.grid.len(), 16);
    assert!(d.grid.iter().all(|c| c.mem_mhz == MEM));
    let at = |i: usize| (d.grid[i].mem_mhz, d.grid[i].core_mhz);
    assert_eq!(at(d.reference), (MEM, 975));
    assert_eq!(at(d.fmax), (MEM, 1164));
    // Idle power is paired by clock: 77 W at the lowest core clock, 89 W at the highest.
    let idle_at =
        |core: u32| d.idle_power_w[d.grid.iter().position(|c| c.core_mhz == core).unwrap()];
    assert_eq!(
        (idle_at(595), idle_at(1050), idle_at(1164)),
        (77.0, 81.0, 89.0)
    );
}

#[test]
fn the_whole_validation_runs_on_another_gpu_and_says_what_it_lacks() {
    let tmp = tempfile::tempdir().unwrap();
    let root = fixture(tmp.path());
    let out = tmp.path().join("out");
    let mut o = Options::new(Path::new(env!("CARGO_MANIFEST_DIR")));
    o.data = Some(root);
    o.out = Some(out.clone());
    o.no_lstm = true;
    let mut log = Vec::new();
    let text = run(&o, |l| log.push(l.to_string())).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.contains(&format!(
            "onemem, {APPS} test applications x 16 clock pairs, trained on {MICRO} micro-benchmarks"
        )),
        "{text}"
    );
    // No published figures and no quoted baseline for a GPU the paper did not measure.
    assert!(
        text.contains("the paper publishes no figures for `onemem`"),
        "{text}"
    );
    assert!(!text.contains("notes: per-clock mean baseline"), "{text}");
    // No device profile is named like it: both physical models are left out, with the reason,
    // and model C is chosen from the rest of the pool.
    assert!(
        text.contains("model B left out: no device profile matches the data set's GPU `onemem`"),
        "{text}"
    );
    assert!(!text.contains("B analytical roofline"), "{text}");
    assert!(
        text.contains("issue costs CC 5.2's table (no device profile"),
        "{text}"
    );
    assert!(!text.contains("Roofline"), "{text}");
    assert!(text.contains("C (micro-CV pick): "), "{text}");
    // kerncast's default table is the Titan X's: not checked against another GPU's run.
    assert!(!text.contains("kerncast's default (auto)"), "{text}");
    assert!(
        log.iter()
            .any(|l| l.starts_with("onemem: loaded 46 benchmarks")),
        "{log:?}"
    );
    let svgs = std::fs::read_dir(&out)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "svg")
        })
        .count();
    assert_eq!(svgs, APPS);
}

#[test]
fn a_wrong_gpu_or_gpu_info_is_an_error_naming_what_exists() {
    let tmp = tempfile::tempdir().unwrap();
    let root = fixture(tmp.path());
    let e = pick_gpu(&root, Some("titanv")).unwrap_err().to_string();
    assert!(e.contains("`titanv`") && e.contains("found: onemem"), "{e}");
    std::fs::create_dir_all(root.join("datasets/other")).unwrap();
    let e = pick_gpu(&root, None).unwrap_err().to_string();
    assert!(e.contains("--gpu") && e.contains("onemem, other"), "{e}");
    // One idle power short: the file and the counts are named.
    let idle = root.join("gpu_info/onemem/idle_pows_onemem.txt");
    let text = std::fs::read_to_string(&idle).unwrap();
    std::fs::write(&idle, &text[..text.trim_end().rfind('\n').unwrap() + 1]).unwrap();
    let e = Dataset::load(&root, "onemem").unwrap_err().to_string();
    assert!(
        e.contains("idle_pows_onemem.txt") && e.contains("15 idle powers for 16 clock pairs"),
        "{e}"
    );
}

#[test]
fn a_benchmark_off_the_common_grid_is_named_and_rows_in_any_order_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let root = fixture(tmp.path());
    let csv = root.join("datasets/onemem/microbenchmarks/aggregated_dataset_onemem.csv");
    let blocks = parse_aggregated(&csv, &std::fs::read_to_string(&csv).unwrap()).unwrap();
    let row = |c: &kerncast_validation::Clock, m: &kerncast_validation::Measurement| {
        format!(
            "{},{},{},{},{}\n",
            c.mem_mhz, c.core_mhz, m.time_s, m.power_w, m.energy_j
        )
    };
    let mut text = String::new();
    for (i, (name, rows)) in blocks.iter().enumerate() {
        text.push_str(&format!("{name}\n"));
        let rows: Vec<_> = match i {
            // The first benchmark lost its 595 MHz measurement.
            0 => rows.iter().filter(|r| r.0.core_mhz != 595).collect(),
            // The second lists its rows highest clock first.
            1 => rows.iter().rev().collect(),
            _ => rows.iter().collect(),
        };
        for (c, m) in rows {
            text.push_str(&row(c, m));
        }
    }
    std::fs::write(&csv, text).unwrap();
    let d = Dataset::load(&root, "onemem").unwrap();
    assert_eq!(d.micro.len(), MICRO - 1);
    assert_eq!(d.stats.benchmarks, MICRO - 1 + APPS);
    assert_eq!(
        d.stats.off_grid,
        vec![format!("{} (15 pairs, 15 of the grid's 16)", blocks[0].0)]
    );
    // The reversed benchmark's measurements follow the grid, not the file.
    let second = d.micro.iter().find(|b| b.name == blocks[1].0).unwrap();
    let at = |core: u32| {
        let i = d.grid.iter().position(|c| c.core_mhz == core).unwrap();
        second.meas[i].time_s
    };
    let in_file = |core: u32| {
        blocks[1]
            .1
            .iter()
            .find(|r| r.0.core_mhz == core)
            .unwrap()
            .1
            .time_s
    };
    assert_eq!((at(595), at(1164)), (in_file(595), in_file(1164)));
    assert_ne!(in_file(595), in_file(1164));
}
