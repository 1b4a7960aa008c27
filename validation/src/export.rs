//! Model C as kerncast's default DVFS/energy predictor: the fitted kNN (training points, feature
//! scaling, neighbour count, average, clock grid) written as the JSON table that
//! `kerncast-models` embeds (`models/src/dvfs_knn_gtx_titan_x.json`). The fit holds only
//! micro-benchmark data, so kerncast's default never sees a test application; the applications
//! enter only as the per-clock-pair error measured on them, which kerncast reports as the error
//! band of a scaled prediction. Formatting is fixed
//! (Rust's shortest round-trip floats), so a re-export from the same data is byte-identical and a
//! test can tell when the committed table and the validation disagree.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::isa::Class;
use crate::knn::{Avg, Knn, Space};
use crate::model::Predictor;
use std::fmt::Write;

/// Device profile (`devices/<name>.toml`) the table was measured on.
pub const DEVICE: &str = "gtx-titan-x";

/// Where kerncast-models keeps the table, relative to the workspace root.
pub const TABLE_PATH: &str = "models/src/dvfs_knn_gtx_titan_x.json";

fn list(v: impl IntoIterator<Item = f64>) -> String {
    let items: Vec<String> = v.into_iter().map(|x| format!("{x:?}")).collect();
    format!("[{}]", items.join(", "))
}

/// Mean relative error of the predicted (time, power, energy) factors at each grid point over the
/// test applications: what a user of the table should expect at that clock pair.
fn held_out_error(ds: &Dataset, m: &Knn) -> Vec<[f64; 3]> {
    let mut sum = vec![[0.0; 3]; ds.grid.len()];
    for b in &ds.real {
        for ((s, p), y) in sum.iter_mut().zip(m.predict(b)).zip(ds.scaling(b)) {
            for k in 0..3 {
                s[k] += (p[k] - y[k]).abs() / y[k];
            }
        }
    }
    let n = ds.real.len().max(1) as f64;
    sum.iter().map(|s| s.map(|v| v / n)).collect()
}

/// The JSON table of a kNN over the memory features; an error for any other space, whose
/// features kerncast's counts do not provide in the same form.
pub fn knn_table(ds: &Dataset, m: &Knn) -> Result<String> {
    if m.space() != Some(Space::Mem) {
        return Err(Error::Model(format!(
            "only a kNN over the memory features can be exported, not {}",
            m.name()
        )));
    }
    let avg = match m.avg() {
        Avg::Geo => "geo",
        Avg::Arith => "mean",
        Avg::RelMedian => "rel_median",
    };
    let (mu, sd) = m.scaling();
    let mut o = String::new();
    let _ = writeln!(o, "{{");
    let _ = writeln!(
        o,
        "  \"source\": \"kerncast-validation (docs/validation.md, model C), fitted on the {} gpuPTXModel micro-benchmarks only; regenerate with `cargo run --release -p kerncast-validation --example export_default_model`\",",
        ds.micro.len()
    );
    let _ = writeln!(o, "  \"device\": \"{DEVICE}\",");
    let _ = writeln!(
        o,
        "  \"features\": [\"ln(global bytes per issue cost + 0.001)\", \"ln(global accesses per thread + 1)\", \"ln(max(instructions per thread, 1))\"],"
    );
    let costs: Vec<String> = Class::ALL
        .iter()
        .map(|c| format!("\"{}\": {:?}", c.name(), ds.issue_costs.of(*c)))
        .collect();
    let _ = writeln!(o, "  \"issue_cost\": {{{}}},", costs.join(", "));
    let _ = writeln!(o, "  \"k\": {},", m.k());
    let _ = writeln!(o, "  \"average\": \"{avg}\",");
    let r = ds.grid[ds.reference];
    let _ = writeln!(
        o,
        "  \"reference\": {{\"mem_mhz\": {}, \"core_mhz\": {}}},",
        r.mem_mhz, r.core_mhz
    );
    let grid: Vec<String> = ds
        .grid
        .iter()
        .map(|c| format!("[{}, {}]", c.mem_mhz, c.core_mhz))
        .collect();
    let _ = writeln!(o, "  \"grid\": [{}],", grid.join(", "));
    let _ = writeln!(
        o,
        "  \"held_out_source\": \"mean relative error of these factors at each grid point over the {} gpuPTXModel applications, which play no part in the fit or the choice (cargo xtask validate, docs/validation.md)\",",
        ds.real.len()
    );
    let err: Vec<String> = held_out_error(ds, m)
        .iter()
        .map(|e| list(e.iter().copied()))
        .collect();
    let _ = writeln!(o, "  \"held_out_error\": [{}],", err.join(", "));
    let _ = writeln!(o, "  \"mu\": {},", list(mu.iter().copied()));
    let _ = writeln!(o, "  \"sd\": {},", list(sd.iter().copied()));
    let _ = writeln!(o, "  \"points\": [");
    let pts: Vec<(&str, &[f64], &crate::metrics::Curve)> = m.training_points().collect();
    for (i, (name, x, curve)) in pts.iter().enumerate() {
        let c: Vec<String> = curve.iter().map(|v| list(v.iter().copied())).collect();
        let _ = write!(
            o,
            "    {{\"name\": \"{name}\", \"x\": {}, \"curve\": [{}]}}",
            list(x.iter().copied()),
            c.join(", ")
        );
        let _ = writeln!(o, "{}", if i + 1 < pts.len() { "," } else { "" });
    }
    let _ = writeln!(o, "  ]");
    let _ = writeln!(o, "}}");
    Ok(o)
}
