//! Calibrate the physical power model of a device from the released GTX Titan X measurements
//! (data/gpuptxmodel/.../aggregated_dataset_gtxtitanx.csv: a benchmark name line, then
//! `mem_MHz,core_MHz,time_ms,power_W,energy_mJ` rows).
//!
//! Utilisations are assigned by benchmark purpose, not measured: `SP`/`INT` saturate the SP
//! cores (sp = 1), `DP` the FP64 units (dpu = 1), `DRAM` the DRAM bandwidth (dram = 1),
//! `Shared` the load/store units (lsu = 1). The fit is NNLS per exponent γ over 0..4.
//! Usage: cargo run -p kerncast-models --example calibrate_power -- CSV DEVICE

use kerncast_models::power::{fit_physical, PowerRow};
use kerncast_models::{Clocks, Device};
use std::collections::BTreeMap;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (csv, dev) = match args.as_slice() {
        [_, c, d] => (c.clone(), d.clone()),
        _ => return Err("usage: calibrate_power CSV DEVICE".into()),
    };
    let d = Device::load(&dev)?;
    let text = std::fs::read_to_string(&csv)?;
    let mut current = String::new();
    let mut rows = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() == 1 {
            current = f[0].trim().to_string();
            continue;
        }
        let class = match current.as_str() {
            "SP" | "INT" => "sp",
            "DP" => "dpu",
            "DRAM" => "dram",
            "Shared" => "lsu",
            _ => continue,
        };
        let mem: f64 = f[0].parse()?;
        let core: f64 = f[1].parse()?;
        let power: f64 = f[3].parse()?;
        let c = Clocks::new(core, mem);
        let activity: BTreeMap<String, f64> = [(class.to_string(), 1.0)].into();
        rows.push(PowerRow {
            clocks: c,
            activity,
            idle_w: d.idle_power(c)?,
            measured_w: power,
        });
    }
    let reference = d.default_clocks()?;
    let gammas: Vec<f64> = (0..=40).map(|k| k as f64 * 0.1).collect();
    let (p, rms) = fit_physical(&rows, reference, &gammas).ok_or("no rows")?;
    println!("# {} rows, RMS error {rms:.2} W", rows.len());
    println!("{}", serde_json::to_string_pretty(&p)?);
    Ok(())
}
