//! Model C as kerncast's default DVFS/energy predictor: the fitted kNN (training points, feature
//! scaling, neighbour count, average, clock grid) written as the JSON table that
//! `kerncast-models` embeds (`models/src/dvfs_knn_gtx_titan_x.json`). The table holds only
//! micro-benchmark data, so kerncast's default never sees a test application. Formatting is fixed
//! (Rust's shortest round-trip floats), so a re-export from the same data is byte-identical and a
//! test can tell when the committed table and the validation disagree.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::features::issue_cost;
use crate::isa::Class;
use crate::knn::{Avg, Knn, Space};
use std::fmt::Write;

/// Device profile (`devices/<name>.toml`) the table was measured on.
pub const DEVICE: &str = "gtx-titan-x";

/// Where kerncast-models keeps the table, relative to the workspace root.
pub const TABLE_PATH: &str = "models/src/dvfs_knn_gtx_titan_x.json";

fn list(v: impl IntoIterator<Item = f64>) -> String {
    let items: Vec<String> = v.into_iter().map(|x| format!("{x:?}")).collect();
    format!("[{}]", items.join(", "))
}

/// The JSON table of a kNN over the memory features; an error for any other space, whose
/// features kerncast's counts do not provide in the same form.
pub fn knn_table(ds: &Dataset, m: &Knn) -> Result<String> {
    if m.space() != Space::Mem {
        return Err(Error::Model(format!(
            "only a kNN over the memory features can be exported, not {:?}",
            m.space()
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
        .map(|c| format!("\"{}\": {:?}", c.name(), issue_cost(*c)))
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
