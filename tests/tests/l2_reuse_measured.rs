//! The L2 reuse profile against measurements. `l2_reread.cu` and `dram_sweep.cu` have the access
//! patterns of the "L2" and "DRAM" micro-benchmarks of the gpuPTXModel data set
//! (`shared/data/gpuptxmodel`, GTX Titan X). Their measured times at 810 MHz memory are 1.01×
//! and 3.46× those at 3505 MHz (core 975 MHz both): one is served by the L2, the other by the
//! DRAM, and nothing in their instruction counts says which.
//!
//! The dvfs model with the hit rate the profile derives must tell them apart. Without the
//! profile (every sector from DRAM, as before it) both scale like the DRAM-bound one and the L2
//! check fails.

use clap::Parser;
use kerncast::cli::predict;
use kerncast_tests::{ptx_dir, workspace_root};
use std::path::PathBuf;

fn data_root() -> PathBuf {
    std::env::var_os("KERNCAST_GPUPTXMODEL_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/data/gpuptxmodel"))
}

/// Measured time at (memory, core) MHz of micro-benchmark `name`, from the aggregated CSV
/// (a line with the name, then `mem,core,time,power,energy` rows).
fn measured_time(name: &str, mem: u32, core: u32) -> f64 {
    let path =
        data_root().join("datasets/gtxtitanx/microbenchmarks/aggregated_dataset_gtxtitanx.csv");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (set KERNCAST_GPUPTXMODEL_DATA)", path.display()));
    let mut current = "";
    for line in text.lines().map(str::trim) {
        let f: Vec<&str> = line.split(',').collect();
        match f.as_slice() {
            [n] => current = n,
            [m, c, t, _, _]
                if current == name && *m == mem.to_string() && *c == core.to_string() =>
            {
                return t.parse().unwrap()
            }
            _ => {}
        }
    }
    panic!("{}: no row for {name} at {mem}/{core}", path.display())
}

/// The dvfs model's sweep of a corpus kernel's nvcc PTX on the GTX Titan X: predicted time at
/// 810 MHz memory over the time at 3505 MHz (core 975 MHz), the measured factor of `bench`,
/// and the notes.
fn memory_clock_factor(kernel: &str, bench: &str, launch: &[&str]) -> (f64, f64, String) {
    let ptx = ptx_dir().join(format!("nvcc/{kernel}.ptx"));
    let mut v: Vec<String> = vec!["predict".into(), ptx.display().to_string()];
    v.extend(launch.iter().map(|s| s.to_string()));
    v.extend(
        [
            "--device",
            "gtx-titan-x",
            "--model",
            "dvfs",
            "--sweep",
            "--json",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    let out = predict::output(&predict::Args::try_parse_from(v).unwrap()).unwrap();
    let sweep: serde_json::Value = serde_json::from_str(&out).unwrap();
    let points = sweep["points"].as_array().expect("points");
    let time_at = |mem: f64| {
        points
            .iter()
            .find(|p| p["clocks"]["core_mhz"] == 975.0 && p["clocks"]["mem_mhz"] == mem)
            .and_then(|p| p["time_s"].as_f64())
            .unwrap_or_else(|| panic!("no point at 975/{mem} in\n{out}"))
    };
    let predicted = time_at(810.0) / time_at(3505.0);
    let measured = measured_time(bench, 810, 975) / measured_time(bench, 3505, 975);
    (predicted, measured, points[0]["notes"].to_string())
}

#[test]
fn the_profile_tells_an_l2_resident_kernel_from_a_dram_bound_one() {
    let (l2, l2_meas, l2_notes) = memory_clock_factor(
        "l2_reread",
        "L2",
        &[
            "--grid",
            "32760",
            "--block",
            "1024",
            "--param",
            "l2_reread_param_2=160",
        ],
    );
    let (dram, dram_meas, dram_notes) = memory_clock_factor(
        "dram_sweep",
        "DRAM",
        &[
            "--grid",
            "32768",
            "--block",
            "1024",
            "--param",
            "dram_sweep_param_2=33554432",
            "--param",
            "dram_sweep_param_3=65536",
            "--param",
            "dram_sweep_param_4=32",
        ],
    );
    eprintln!("time at 810 / 3505 MHz memory: l2_reread predicted {l2:.2} (measured L2 {l2_meas:.2}), dram_sweep predicted {dram:.2} (measured DRAM {dram_meas:.2})");
    assert!(l2_meas < 1.1 && dram_meas > 3.0, "the data set changed");
    assert!(l2_notes.contains("l2_hit_rate"), "{l2_notes}");
    assert!(
        l2 < 1.1,
        "l2_reread scales as if DRAM-bound: {l2:.2}\n{l2_notes}"
    );
    assert!(
        dram > 2.0,
        "dram_sweep scales as if cached: {dram:.2}\n{dram_notes}"
    );
}
