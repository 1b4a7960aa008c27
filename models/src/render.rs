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
            let _ = writeln!(s, "note: {n}");
        }
    }
    s
}
