//! The gpuPTXModel GTX Titan X measurements (`shared/data/gpuptxmodel`), and kerncast's dvfs
//! sweep of a corpus kernel over the same clock grid, for the checks against measurement.

use clap::Parser;
use kerncast::ops::predict;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// (memory MHz, core MHz).
pub type Pair = (u32, u32);
/// Time s, power W, energy J.
pub type Point = [f64; 3];

/// `$KERNCAST_GPUPTXMODEL_DATA`, else `../shared/data/gpuptxmodel` beside the workspace.
pub fn data_root() -> PathBuf {
    std::env::var_os("KERNCAST_GPUPTXMODEL_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::workspace_root().join("../shared/data/gpuptxmodel"))
}

/// The measured points of every benchmark of `set` (`microbenchmarks` or `realbenchmarks`),
/// from its aggregated CSV: a line with the name, then `mem,core,time,power,energy` rows. A
/// later block of a name replaces an earlier one, as in the validation's loader.
pub fn measured(set: &str) -> BTreeMap<String, BTreeMap<Pair, Point>> {
    let path = data_root().join(format!(
        "datasets/gtxtitanx/{set}/aggregated_dataset_gtxtitanx.csv"
    ));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (set KERNCAST_GPUPTXMODEL_DATA)", path.display()));
    let mut out: BTreeMap<String, BTreeMap<Pair, Point>> = BTreeMap::new();
    let mut current = None;
    for (n, line) in text.lines().map(str::trim).enumerate() {
        let at = || format!("{}:{}", path.display(), n + 1);
        match line.split(',').collect::<Vec<_>>().as_slice() {
            [name] if !name.is_empty() => {
                out.insert(name.to_string(), BTreeMap::new());
                current = Some(name.to_string());
            }
            [m, c, t, p, e] => {
                let num = |s: &str| -> f64 {
                    s.parse()
                        .unwrap_or_else(|_| panic!("{}: not a number: {s}", at()))
                };
                let name = current
                    .as_ref()
                    .unwrap_or_else(|| panic!("{}: a row before any name", at()));
                out.get_mut(name)
                    .expect("inserted with its name")
                    .insert((num(m) as u32, num(c) as u32), [num(t), num(p), num(e)]);
            }
            _ => {}
        }
    }
    out
}

/// The dvfs model's sweep of the GTX Titan X grid for `kerncast predict FILE ARGS…`: time, power
/// and energy by clock pair (power and energy NaN where the prediction has none), and the first
/// point's notes.
pub fn dvfs_sweep(file: &std::path::Path, args: &[String]) -> (BTreeMap<Pair, Point>, String) {
    let mut v: Vec<String> = vec!["predict".into(), file.display().to_string()];
    v.extend(args.iter().cloned());
    v.extend(
        [
            "--device",
            "gtx-titan-x",
            "--model",
            "dvfs",
            "--sweep",
            "--json",
        ]
        .map(String::from),
    );
    let parsed = predict::Args::try_parse_from(&v).unwrap_or_else(|e| panic!("{v:?}: {e}"));
    let out = predict::output(&parsed).unwrap_or_else(|e| panic!("{v:?}: {e:?}"));
    let sweep: serde_json::Value = serde_json::from_str(&out).expect("predict --json");
    let points = sweep["points"].as_array().expect("points");
    let at = points
        .iter()
        .map(|p| {
            let mhz = |k: &str| p["clocks"][k].as_f64().expect("clocks") as u32;
            let x = |k: &str| p[k].as_f64().unwrap_or(f64::NAN);
            (
                (mhz("mem_mhz"), mhz("core_mhz")),
                [x("time_s"), x("power_w"), x("energy_j")],
            )
        })
        .collect();
    (at, points[0]["notes"].to_string())
}
