//! Range checks of a device profile at load time, so that a bad number (`sm_count = 0`, a
//! bandwidth of 0 or NaN, a negative latency) is refused with the file and line of the value
//! instead of dividing by zero or predicting nonsense deep inside a model.
//!
//! Why here and not in each model: every model divides by some of these numbers, and one check
//! at the door keeps all of them (and the reports) free of the case. The line comes from a
//! second, span-keeping parse of the same text with `toml_edit`.

use crate::device::{Device, Sourced};
use std::ops::Range;

/// One step of the path to a value in the TOML document.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// A value out of range: where it is (path from the root) and why.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Bad {
    pub path: Vec<Seg>,
    pub message: String,
}

impl Bad {
    /// `hw.sm_count`, `clocks.core_levels_mhz[3]`: the key a profile's author knows (the
    /// `value` inside each `{ value, source }` left out).
    pub fn key(&self) -> String {
        let mut s = String::new();
        for seg in &self.path {
            match seg {
                Seg::Key(k) if k == "value" => {}
                Seg::Key(k) if s.is_empty() => s.push_str(k),
                Seg::Key(k) => {
                    s.push('.');
                    s.push_str(k);
                }
                Seg::Index(i) => s.push_str(&format!("[{i}]")),
            }
        }
        s
    }
}

/// Collects the bad values of one profile.
struct Checker {
    bad: Vec<Bad>,
}

fn keys(parts: &[&str]) -> Vec<Seg> {
    parts.iter().map(|p| Seg::Key((*p).to_string())).collect()
}

impl Checker {
    fn push(&mut self, mut path: Vec<Seg>, message: String) {
        // point at the number itself (`sm_count = { value = 0, … }`)
        if !matches!(path.last(), Some(Seg::Index(_))) {
            path.push(Seg::Key("value".into()));
        }
        self.bad.push(Bad { path, message });
    }

    /// A count a model divides by or multiplies with: at least 1, at most `max`.
    fn count<T: Copy + Into<u64>>(&mut self, v: &Option<Sourced<T>>, at: &[&str], max: u64) {
        if let Some(s) = v {
            let n: u64 = s.value.into();
            if n == 0 || n > max {
                self.push(keys(at), format!("must be between 1 and {max}, not {n}"));
            }
        }
    }

    /// A finite number above 0 (a bandwidth, a clock, a size).
    fn positive(&mut self, v: f64, path: Vec<Seg>) {
        if !(v.is_finite() && v > 0.0) {
            self.push(path, format!("must be a finite number above 0, not {v}"));
        }
    }

    /// A finite number at or above 0 (a latency, a power).
    fn non_negative(&mut self, v: f64, path: Vec<Seg>) {
        if !(v.is_finite() && v >= 0.0) {
            self.push(
                path,
                format!("must be a finite number, 0 or above, not {v}"),
            );
        }
    }

    /// Any finite number (a fitted coefficient).
    fn finite(&mut self, v: f64, path: Vec<Seg>) {
        if !v.is_finite() {
            self.push(path, format!("must be a finite number, not {v}"));
        }
    }

    fn opt_positive(&mut self, v: &Option<Sourced<f64>>, at: &[&str]) {
        if let Some(s) = v {
            self.positive(s.value, keys(at));
        }
    }

    /// Every element of a list value, each checked by `f` at `at.value[i]`.
    fn each(&mut self, vals: &[f64], at: &[&str], f: fn(&mut Checker, f64, Vec<Seg>)) {
        for (i, v) in vals.iter().enumerate() {
            let mut p = keys(at);
            p.push(Seg::Key("value".into()));
            p.push(Seg::Index(i));
            f(self, *v, p);
        }
    }

    /// A table of named numbers (`[latency]`, `[linear]`): `f` on each.
    fn table(
        &mut self,
        t: &std::collections::BTreeMap<String, Sourced<f64>>,
        at: &str,
        f: fn(&mut Checker, f64, Vec<Seg>),
    ) {
        for (k, s) in t {
            f(self, s.value, keys(&[at, k]));
        }
    }
}

/// Every value of `d` out of its range, in file order of sections.
pub(crate) fn bad_values(d: &Device) -> Vec<Bad> {
    let mut c = Checker { bad: Vec::new() };
    let hw = &d.hw;
    // Counts: a zero is a division by zero somewhere; the upper bounds are far above any GPU
    // and only stop a typo from overflowing an occupancy product.
    const MANY: u64 = 1 << 20;
    for (v, k) in [
        (&hw.sm_count, "sm_count"),
        (&hw.cores_per_sm, "cores_per_sm"),
        (&hw.sfu_per_sm, "sfu_per_sm"),
        (&hw.dpu_per_sm, "dpu_per_sm"),
        (&hw.tensor_f16_f32_fma_per_sm, "tensor_f16_f32_fma_per_sm"),
        (&hw.lsu_per_sm, "lsu_per_sm"),
        (&hw.warp_schedulers_per_sm, "warp_schedulers_per_sm"),
        (&hw.dispatch_units_per_sm, "dispatch_units_per_sm"),
        (&hw.max_threads_per_sm, "max_threads_per_sm"),
        (&hw.max_threads_per_block, "max_threads_per_block"),
        (&hw.max_warps_per_sm, "max_warps_per_sm"),
        (&hw.max_blocks_per_sm, "max_blocks_per_sm"),
        (&hw.regs_per_sm, "regs_per_sm"),
        (&hw.regs_per_block, "regs_per_block"),
        (&hw.reg_alloc_unit, "reg_alloc_unit"),
        (&hw.mem_bus_bits, "mem_bus_bits"),
    ] {
        c.count(v, &["hw", k], MANY);
    }
    // 32 on NVIDIA, 64 on AMD; the counter's warp-granular counts assume at most 64 lanes
    c.count(&hw.warp_size, &["hw", "warp_size"], 64);
    for (v, k) in [
        (&hw.shared_bytes_per_sm, "shared_bytes_per_sm"),
        (&hw.shared_bytes_per_block, "shared_bytes_per_block"),
        (&hw.l2_bytes, "l2_bytes"),
    ] {
        c.count(v, &["hw", k], 1 << 40);
    }
    for (v, k) in [
        (&hw.mem_transfers_per_clock, "mem_transfers_per_clock"),
        (&hw.mem_bandwidth_gbs, "mem_bandwidth_gbs"),
        (&hw.l2_read_gbs, "l2_read_gbs"),
        (&hw.l2_write_gbs, "l2_write_gbs"),
        (&hw.tdp_w, "tdp_w"),
    ] {
        c.opt_positive(v, &["hw", k]);
    }
    if let Some(dirty) = &hw.l2_dirty_at_exit_bytes {
        let l2 = hw.l2_bytes.as_ref().map(|l| l.value);
        if l2.is_none_or(|l2| dirty.value > l2) {
            c.push(
                keys(&["hw", "l2_dirty_at_exit_bytes"]),
                format!(
                    "must be at most hw.l2_bytes ({}), not {}",
                    l2.map(|l| l.to_string())
                        .unwrap_or_else(|| "not given".into()),
                    dirty.value
                ),
            );
        }
    }
    if let (Some(block), Some(sm)) = (&hw.max_threads_per_block, &hw.max_threads_per_sm) {
        if block.value > sm.value {
            c.push(
                keys(&["hw", "max_threads_per_block"]),
                format!(
                    "{} is more than hw.max_threads_per_sm ({})",
                    block.value, sm.value
                ),
            );
        }
    }

    let cl = &d.clocks;
    c.opt_positive(&cl.default_core_mhz, &["clocks", "default_core_mhz"]);
    c.opt_positive(&cl.default_mem_mhz, &["clocks", "default_mem_mhz"]);
    for (v, k) in [
        (&cl.core_levels_mhz, "core_levels_mhz"),
        (&cl.mem_levels_mhz, "mem_levels_mhz"),
    ] {
        if let Some(s) = v {
            if s.value.is_empty() {
                c.push(keys(&["clocks", k]), "must list at least one level".into());
            }
            c.each(&s.value, &["clocks", k], Checker::positive);
        }
    }
    if let Some(s) = &cl.idle_power_w {
        for (i, [mem, core, w]) in s.value.iter().enumerate() {
            let at = |j: usize| {
                let mut p = keys(&["clocks", "idle_power_w", "value"]);
                p.extend([Seg::Index(i), Seg::Index(j)]);
                p
            };
            c.positive(*mem, at(0));
            c.positive(*core, at(1));
            c.non_negative(*w, at(2));
        }
    }

    c.table(&d.latency, "latency", Checker::non_negative);

    let sc = &d.schedule;
    let flat = |c: &mut Checker, vals: &[f64], at: &[&str]| c.each(vals, at, Checker::finite);
    if let Some(s) = &sc.global_latency_pieces {
        for (i, piece) in s.value.iter().enumerate() {
            for (j, v) in piece.iter().enumerate() {
                let mut p = keys(&["schedule", "global_latency_pieces", "value"]);
                p.extend([Seg::Index(i), Seg::Index(j)]);
                c.finite(*v, p);
            }
        }
    }
    if let Some(s) = &sc.launch_overhead_us {
        flat(&mut c, &s.value, &["schedule", "launch_overhead_us"]);
    }
    for (v, k) in [(&sc.tp_global, "tp_global"), (&sc.tp_shared, "tp_shared")] {
        if let Some(s) = v {
            flat(&mut c, &s.value, &["schedule", k]);
        }
    }
    if let Some(s) = &sc.throughput_peakwarps {
        for (k, pair) in &s.value {
            for (j, v) in pair.iter().enumerate() {
                let mut p = keys(&["schedule", "throughput_peakwarps", "value", k]);
                p.push(Seg::Index(j));
                c.positive(*v, p);
            }
        }
    }

    let dv = &d.dvfs;
    if let Some(s) = &dv.baseline_mhz {
        c.each(&s.value, &["dvfs", "baseline_mhz"], Checker::positive);
    }
    if let Some(s) = &dv.dm_lat_fit {
        flat(&mut c, &s.value, &["dvfs", "dm_lat_fit"]);
    }
    for (v, k) in [
        (&dv.dm_del_base, "dm_del_base"),
        (&dv.l2_lat, "l2_lat"),
        (&dv.l2_del, "l2_del"),
    ] {
        if let Some(s) = v {
            c.non_negative(s.value, keys(&["dvfs", k]));
        }
    }

    let pw = &d.power;
    if let Some(s) = &pw.dynamic_w {
        for (k, v) in &s.value {
            if !(v.is_finite() && *v >= 0.0) {
                // a map entry is the number itself: no `value` key below it
                c.bad.push(Bad {
                    path: keys(&["power", "dynamic_w", "value", k]),
                    message: format!("must be a finite number, 0 or above, not {v}"),
                });
            }
        }
    }
    if let Some(s) = &pw.core_exponent {
        c.finite(s.value, keys(&["power", "core_exponent"]));
    }
    if let Some(s) = &pw.reference_mhz {
        c.each(&s.value, &["power", "reference_mhz"], Checker::positive);
    }
    c.table(&d.linear, "linear", Checker::finite);
    c.bad
}

/// The byte range of the value at `path` in `text`, when the text parses and has it.
pub(crate) fn span_of(text: &str, path: &[Seg]) -> Option<Range<usize>> {
    let doc = toml_edit::ImDocument::parse(text).ok()?;
    let mut item = doc.as_item();
    let mut best = item.span();
    for seg in path {
        let next = match seg {
            Seg::Key(k) => item.get(k.as_str()),
            Seg::Index(i) => item.get(*i),
        };
        match next {
            Some(n) => {
                item = n;
                best = n.span().or(best);
            }
            // the deepest part found is still better than no line at all
            None => break,
        }
    }
    best
}
