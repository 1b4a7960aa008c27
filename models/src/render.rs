//! Text rendering of predictions and sweeps (deterministic, fixed float formatting), kept in the
//! library so the CLI stays thin and snapshots test exactly what users see.

use crate::model::Prediction;
use crate::sweep::Sweep;
use std::fmt::Write;

fn opt(v: Option<f64>, scale: f64, prec: usize) -> String {
    v.map_or_else(|| "n/a".to_string(), |x| format!("{:.*}", prec, x * scale))
}

pub fn render_prediction(p: &Prediction) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "model      {}", p.model);
    let _ = writeln!(
        s,
        "clocks     core {:.0} MHz, memory {:.0} MHz",
        p.clocks.core_mhz, p.clocks.mem_mhz
    );
    let _ = writeln!(s, "time       {:.3} us", p.time_s * 1e6);
    let _ = writeln!(s, "power      {} W", opt(p.power_w, 1.0, 2));
    let _ = writeln!(s, "energy     {} uJ", opt(p.energy_j, 1e6, 3));
    let _ = writeln!(s, "bottleneck {}", p.bottleneck);
    let _ = writeln!(
        s,
        "error band +/-{:.1} % ({})",
        p.error_band.rel * 100.0,
        p.error_band.source
    );
    let _ = writeln!(s, "breakdown");
    for (k, v) in &p.breakdown {
        let share = if p.time_s > 0.0 {
            v / p.time_s * 100.0
        } else {
            0.0
        };
        let _ = writeln!(s, "  {k:<16} {:>12.3} us {share:>6.1} %", v * 1e6);
    }
    if !p.activity.is_empty() {
        let _ = writeln!(s, "activity");
        for (k, v) in &p.activity {
            let _ = writeln!(s, "  {k:<16} {v:>6.3}");
        }
    }
    for n in &p.notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}

pub fn render_sweep(sw: &Sweep) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "kernel {} on {}: {} clock pairs",
        sw.kernel,
        sw.device,
        sw.points.len()
    );
    let _ = writeln!(
        s,
        "{:>8} {:>8} {:>12} {:>9} {:>12} {:>14}  marks",
        "core MHz", "mem MHz", "time us", "power W", "energy uJ", "EDP uJ*us"
    );
    for (i, p) in sw.points.iter().enumerate() {
        let mut marks = Vec::new();
        if sw.min_energy == Some(i) {
            marks.push("min-energy");
        }
        if sw.min_edp == Some(i) {
            marks.push("min-edp");
        }
        if sw.pareto.contains(&i) {
            marks.push("pareto");
        }
        let _ = writeln!(
            s,
            "{:>8.0} {:>8.0} {:>12.3} {:>9} {:>12} {:>14}  {}",
            p.clocks.core_mhz,
            p.clocks.mem_mhz,
            p.time_s * 1e6,
            opt(p.power_w, 1.0, 2),
            opt(p.energy_j, 1e6, 3),
            opt(p.edp(), 1e12, 3),
            marks.join(",")
        );
    }
    let pick = |i: Option<usize>| {
        i.map_or("n/a (no power data)".to_string(), |i| {
            let p = &sw.points[i];
            format!(
                "core {:.0} MHz, memory {:.0} MHz",
                p.clocks.core_mhz, p.clocks.mem_mhz
            )
        })
    };
    let _ = writeln!(s, "minimum energy: {}", pick(sw.min_energy));
    let _ = writeln!(s, "minimum EDP:    {}", pick(sw.min_edp));
    let _ = writeln!(
        s,
        "pareto set:     {} of {} pairs",
        sw.pareto.len(),
        sw.points.len()
    );
    if let Some(p) = sw.points.first() {
        let _ = writeln!(
            s,
            "model {}, error band +/-{:.1} % ({})",
            p.model,
            p.error_band.rel * 100.0,
            p.error_band.source
        );
        for n in &p.notes {
            let _ = writeln!(
                s,
                "note (at {:.0} MHz core, {:.0} MHz memory): {n}",
                p.clocks.core_mhz, p.clocks.mem_mhz
            );
        }
    }
    s
}

/// One line per device: name, full name, architecture, SMs, default clocks, DVFS grid size.
pub fn render_device_list(devices: &[crate::Device]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<12} {:<30} {:<8} {:>4} {:>10} {:>6}  {:<25} power",
        "name", "full name", "arch", "SMs", "clocks", "pairs", "time models"
    );
    for d in devices {
        let arch =
            d.hw.arch
                .as_ref()
                .map_or("?".to_string(), |v| v.value.clone());
        let sms =
            d.hw.sm_count
                .as_ref()
                .map_or("?".to_string(), |v| v.value.to_string());
        let clocks = d.default_clocks().map_or("?".to_string(), |c| {
            format!("{:.0}/{:.0}", c.core_mhz, c.mem_mhz)
        });
        let pairs = d.clock_grid().map_or(0, |g| g.len());
        let caps = crate::capability::capabilities(d);
        let usable = caps.usable();
        let models = if usable.is_empty() {
            "none (see `devices NAME`)".to_string()
        } else {
            usable.join(", ")
        };
        let power = if caps.power.is_ok() { "yes" } else { "no" };
        let _ = writeln!(
            s,
            "{:<12} {:<30} {:<8} {:>4} {:>10} {:>6}  {:<25} {}",
            d.name, d.full_name, arch, sms, clocks, pairs, models, power
        );
    }
    s
}

/// Every value of a device with its source, `section.key = value  (source)`, in file order of
/// sections and sorted keys.
pub fn render_device(d: &crate::Device) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{} ({})", d.name, d.full_name);
    let _ = writeln!(s, "file: {}", d.path.display());
    let caps = crate::capability::capabilities(d);
    let _ = writeln!(
        s,
        "[models] (each run on a reference SAXPY at the default clocks)"
    );
    for (m, r) in caps
        .models
        .iter()
        .map(|(m, r)| (m.to_string(), r))
        .chain([("power".to_string(), &caps.power)])
    {
        match r {
            Ok(()) => {
                let _ = writeln!(s, "  {m}: usable");
            }
            Err(e) => {
                let _ = writeln!(s, "  {m}: not usable: {e}");
            }
        }
    }
    let v = toml::Value::try_from(d).unwrap_or(toml::Value::Table(Default::default()));
    if let toml::Value::Table(t) = v {
        for section in [
            "hw", "clocks", "latency", "schedule", "dvfs", "power", "linear",
        ] {
            if let Some(toml::Value::Table(sec)) = t.get(section) {
                if sec.is_empty() {
                    continue;
                }
                let _ = writeln!(s, "[{section}]");
                for (k, e) in sec {
                    let (val, src) = match e {
                        toml::Value::Table(e) => (
                            e.get("value").map_or(String::new(), |x| x.to_string()),
                            e.get("source")
                                .and_then(|x| x.as_str())
                                .unwrap_or("")
                                .to_string(),
                        ),
                        other => (other.to_string(), String::new()),
                    };
                    let _ = writeln!(s, "  {k} = {val}");
                    let _ = writeln!(s, "      source: {src}");
                }
            }
        }
    }
    s
}
