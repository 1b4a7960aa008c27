//! `--model auto`, kerncast's default. The level (time, power at the default clocks) comes from
//! the first model whose data the device and input provide, in the order dvfs (clock-aware,
//! fittable), schedule (needs per-block instructions), linear (needs fitted weights), and last
//! the roofline bound, which every profile's datasheet numbers support.
//!
//! How that level scales with the clocks comes from model C of the validation
//! ([`crate::dvfs_knn`], docs/validation.md) wherever it applies: on the device it was measured
//! on (the GTX Titan X) and at the clock pairs of its measured grid. It is the model the
//! validation's cross-validation on micro-benchmarks picked, and it errs less than the analytic
//! DVFS model on that GPU's held-out applications. Anywhere else (other devices, clocks off the
//! grid) the level model predicts alone, and the prediction's notes say why.

use crate::device::{Clocks, Device};
use crate::dvfs::DvfsModel;
use crate::dvfs_knn;
use crate::linear::LinearModel;
use crate::model::{ErrorBand, Model, ModelError, ModelInput, Prediction, Result};
use crate::power::apply_physical;
use crate::roofline::RooflineModel;
use crate::schedule::ScheduleModel;

#[derive(Clone, Debug, Default)]
pub struct AutoModel;

/// Pick a model by name: `linear`, `schedule` (approach 2), `schedule-ilp` (approach 1), `dvfs`,
/// `roofline` or `auto`.
pub fn by_name(name: &str) -> Option<Box<dyn Model>> {
    match name {
        "linear" => Some(Box::new(LinearModel::default())),
        "schedule" => Some(Box::new(ScheduleModel::default())),
        "schedule-ilp" => Some(Box::new(ScheduleModel {
            approach: crate::schedule::Approach::IlpTlp,
            ..Default::default()
        })),
        "dvfs" => Some(Box::new(DvfsModel::default())),
        "roofline" => Some(Box::new(RooflineModel)),
        "auto" => Some(Box::new(AutoModel)),
        _ => None,
    }
}

/// The first usable level model at `clocks`, its prediction carrying the reasons the earlier
/// ones were skipped.
fn level(input: &ModelInput, d: &Device, clocks: Clocks) -> Result<Prediction> {
    let mut why = Vec::new();
    let candidates: [Box<dyn Model>; 4] = [
        Box::new(DvfsModel::default()),
        Box::new(ScheduleModel::default()),
        Box::new(LinearModel::default()),
        Box::new(RooflineModel),
    ];
    for m in candidates {
        match m.predict(input, d, clocks) {
            Ok(mut p) => {
                p.notes.extend(why);
                if m.name() == "schedule" && d.schedule.tp_global.is_none() {
                    floor_at_roofline(&mut p, input, d, clocks);
                }
                return Ok(p);
            }
            Err(e) => why.push(format!("auto: {} not usable: {e}", m.name())),
        }
    }
    Err(ModelError::Input {
        model: "auto".into(),
        what: format!("data for at least one model ({})", why.join("; ")),
    })
}

/// A schedule model without its global-memory penalty (`schedule.tp_global`, fitted per GPU in
/// the thesis) has no bandwidth limit: a streaming kernel would run faster than the DRAM can
/// feed it. Its time is raised to the roofline bound where it falls below, and the note says so.
fn floor_at_roofline(p: &mut Prediction, input: &ModelInput, d: &Device, clocks: Clocks) {
    let Ok(roof) = RooflineModel.predict(input, d, clocks) else {
        return;
    };
    // The L2 roof is at a benchmark's measured throughput, which a run may beat; the floor
    // takes only the peak rates.
    let Some((bottleneck, bound)) = roof
        .breakdown
        .iter()
        .filter(|(k, _)| k.as_str() != "l2")
        .max_by(|a, b| a.1.total_cmp(b.1))
    else {
        return;
    };
    if p.time_s >= *bound {
        return;
    }
    let ratio = bound / p.time_s;
    p.notes.push(format!(
        "auto: the schedule model's {:.3} µs, without schedule.tp_global (no bandwidth limit), is below the roofline bound of {:.3} µs ({bottleneck}-bound), which no run can beat: raised to the bound (x{ratio:.2})",
        p.time_s * 1e6,
        bound * 1e6,
    ));
    p.model = format!("{}+roofline-floor", p.model);
    p.time_s = *bound;
    p.energy_j = p.energy_j.map(|e| e * ratio);
    p.bottleneck = bottleneck.clone();
}

/// Model C's clock scaling applied to the level model's prediction at the reference clocks, or
/// why it does not apply.
fn scaled(
    input: &ModelInput,
    d: &Device,
    clocks: Clocks,
) -> std::result::Result<Result<Prediction>, String> {
    let Some(t) = dvfs_knn::table_for(d) else {
        return Err(format!(
            "auto: no measured clock-scaling table for {} (only gtx-titan-x has one)",
            d.name
        ));
    };
    let f = t.features(&input.stats);
    let Some(s) = t.scaling(&f, clocks) else {
        return Err(format!(
            "auto: {clocks} is off the measured {} grid, so the clock scaling is the level model's own",
            t.device
        ));
    };
    let r = t.reference();
    Ok(level(input, d, r).map(|mut p| {
        if p.power_w.is_none() {
            apply_physical(&mut p, d, None);
        }
        let base = p.model.clone();
        p.model = format!("dvfs-knn+{base}");
        p.clocks = clocks;
        p.time_s *= s.time;
        for v in p.breakdown.values_mut() {
            *v *= s.time;
        }
        p.power_w = p.power_w.map(|w| w * s.power);
        p.energy_j = p.energy_j.map(|e| e * s.energy);
        if let Some(e) = t.held_out_error(clocks).filter(|e| e[0] > 0.0) {
            // Independent relative errors of level and scaling compound.
            p.error_band = ErrorBand {
                rel: (1.0 + p.error_band.rel) * (1.0 + e[0]) - 1.0,
                source: format!(
                    "{}; compounded with the clock scaling's measured error at {clocks}: {:.1} % time, {:.1} % power, {:.1} % energy ({})",
                    p.error_band.source,
                    e[0] * 100.0,
                    e[1] * 100.0,
                    e[2] * 100.0,
                    t.held_out_source
                ),
            };
        }
        p.notes.push(format!(
            "auto: level from {base} at the default clocks {r}; clock scaling x{:.3} time, x{:.3} power, x{:.3} energy from the measured curves of the {} nearest GTX Titan X micro-benchmarks ({}; docs/validation.md, model C)",
            s.time,
            s.power,
            s.energy,
            t.k,
            t.neighbours(&f).join(", ")
        ));
        p
    }))
}

impl Model for AutoModel {
    fn name(&self) -> &'static str {
        "auto"
    }

    fn prepare(&self, d: &Device) {
        // the Titan X's table is 288 KB of JSON
        dvfs_knn::table_for(d);
    }

    fn predict(&self, input: &ModelInput, d: &Device, clocks: Clocks) -> Result<Prediction> {
        match scaled(input, d, clocks) {
            Ok(p) => p,
            Err(why) => level(input, d, clocks).map(|mut p| {
                p.notes.push(why);
                p
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::sweep;
    use kerncast_passes::stats::{
        BoundStats, DType, Dir, Feature, Granularity, Launch, OpKind, Space, StrideClass,
    };

    /// A streaming kernel over 2^20 threads: two loads, one store and `flops` FMAs per thread,
    /// at both granularities as the counters report them.
    fn stats(flops: f64) -> BoundStats {
        let n = 1u64 << 20;
        let mut s = BoundStats {
            kernel: "synthetic".into(),
            launch: Some(Launch {
                grid: [n / 256, 1, 1],
                block: [256, 1, 1],
            }),
            ..Default::default()
        };
        for (gran, count) in [
            (Granularity::Thread, n as f64),
            (Granularity::Warp, n as f64 / 32.0),
        ] {
            let mem = |dir| Feature::Mem {
                space: Space::Global,
                dir,
                bits: 32,
                stride: StrideClass::Unit,
                nc: false,
                gran,
            };
            s.features.insert(mem(Dir::Load), 2.0 * count);
            s.features.insert(mem(Dir::Store), count);
            let op = Feature::Op {
                kind: OpKind::Fma,
                ty: DType::F32,
                gran,
            };
            s.features.insert(op, flops * count);
        }
        for dir in [Dir::Load, Dir::Store] {
            let lines = if dir == Dir::Load { 2.0 } else { 1.0 } * n as f64 / 32.0;
            s.features.insert(
                Feature::Lines {
                    space: Space::Global,
                    dir,
                },
                lines,
            );
        }
        s.features.insert(Feature::Threads, n as f64);
        s.features.insert(Feature::Warps, n as f64 / 32.0);
        s
    }

    #[test]
    fn titan_x_default_scales_the_level_with_model_c_on_its_grid() {
        let d = Device::load("gtx-titan-x").unwrap();
        let table = dvfs_knn::table_for(&d).expect("the Titan X has a table");
        for flops in [1.0, 512.0] {
            let input = ModelInput::new(stats(flops));
            let f = table.features(&input.stats);
            let mut base = level(&input, &d, table.reference()).unwrap();
            if base.power_w.is_none() {
                apply_physical(&mut base, &d, None);
            }
            let grid = d.clock_grid().unwrap();
            assert_eq!(grid.len(), 32);
            let mut factors = Vec::new();
            for &c in &grid {
                let p = AutoModel.predict(&input, &d, c).unwrap();
                let s = table
                    .scaling(&f, c)
                    .expect("every device grid pair is measured");
                assert!(p.model.starts_with("dvfs-knn+"), "{}", p.model);
                assert!((p.time_s / (base.time_s * s.time) - 1.0).abs() < 1e-12);
                let e = p.energy_j.expect("the Titan X profile has power data");
                assert!((e / (base.energy_j.unwrap() * s.energy) - 1.0).abs() < 1e-12);
                // The band compounds the level's with the scaling's measured time error, which
                // is 0 only at the reference pair.
                let te = table.held_out_error(c).unwrap()[0];
                let want = (1.0 + base.error_band.rel) * (1.0 + te) - 1.0;
                assert!((p.error_band.rel - want).abs() < 1e-12);
                assert_eq!(c == table.reference(), te == 0.0, "{c}");
                assert_eq!(
                    te > 0.0,
                    p.error_band.source.contains(&table.held_out_source)
                );
                factors.push(s.energy);
            }
            // A sweep's minimum-energy pair is model C's, since the level is one number.
            let sw = sweep(&AutoModel, &input, &d, None).unwrap();
            let want = (0..factors.len())
                .min_by(|&a, &b| factors[a].total_cmp(&factors[b]))
                .unwrap();
            assert_eq!(sw.points[sw.min_energy.unwrap()].clocks, grid[want]);
        }
    }

    /// The floor under a schedule time is the peak-rate roofs' bound, not the L2's measured
    /// throughput: 2^24 load sectors that all hit in the L2 and that no block re-reads make
    /// the V100's roofline L2-bound at 0.5 ms, yet a 2 µs time stays, while the same time
    /// under the DRAM roof of the same traffic is raised to it.
    #[test]
    fn the_floor_is_the_peak_roofs_not_the_measured_l2() {
        let d = Device::load("v100").unwrap();
        let c = d.default_clocks().unwrap();
        let mut s = stats(1.0);
        s.features.insert(
            Feature::Sectors {
                space: Space::Global,
                dir: Dir::Load,
            },
            (1u64 << 24) as f64,
        );
        let touches = (0..8).map(|k| (0, 0, k, false, 0)).collect();
        s.reuse = Some(kerncast_passes::reuse::Reuse::Profile(
            kerncast_passes::reuse::from_touches(touches, &[1.0], 1, 4096),
        ));
        let mut input = ModelInput::new(s);
        input
            .hints
            .insert(crate::model::HINT_L2_HIT_RATE.to_string(), 1.0);
        let roof = RooflineModel.predict(&input, &d, c).unwrap();
        assert_eq!(roof.bottleneck, "l2");
        assert!(roof.time_s > 4e-4, "{}", roof.time_s);
        let mut p = roof.clone();
        p.time_s = 2e-6;
        floor_at_roofline(&mut p, &input, &d, c);
        assert_eq!(p.time_s, 2e-6);
        input
            .hints
            .insert(crate::model::HINT_L2_HIT_RATE.to_string(), 0.0);
        floor_at_roofline(&mut p, &input, &d, c);
        assert!(p.time_s > 4e-4, "{}", p.time_s);
        assert_eq!(p.bottleneck, "dram");
    }

    #[test]
    fn auto_falls_back_off_the_grid_and_on_other_devices() {
        let input = ModelInput::new(stats(4.0));
        let d = Device::load("gtx-titan-x").unwrap();
        let p = AutoModel
            .predict(&input, &d, Clocks::new(1000.0, 3505.0))
            .unwrap();
        assert!(!p.model.starts_with("dvfs-knn"));
        assert!(p.notes.iter().any(|n| n.contains("off the measured")));
        let other = Device::load("gtx-980").unwrap();
        let c = other.clock_grid().unwrap()[0];
        let p = AutoModel.predict(&input, &other, c).unwrap();
        assert!(!p.model.starts_with("dvfs-knn"));
        assert!(p
            .notes
            .iter()
            .any(|n| n.contains("no measured clock-scaling table")));
    }
}
