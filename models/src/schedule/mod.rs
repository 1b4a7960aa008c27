//! Alavani's static schedule model (thesis ch. 4): per-block DAGs list-scheduled on reservation
//! tables per unit class (approach 2, `dag`), blocks over SMs in waves, launch overhead and the
//! global / shared / cache penalties (`thesis`), and the ILP/TLP delay equations of approach 1.
//!
//! What kerncast changes, and why: the thesis multiplies loop blocks by one user-given `nLoop`
//! and takes the longest CFG path (both branch sides). Here each block's schedule is weighted by
//! how often an average warp executes it (`BoundStats::block_execs`), which the counting engine
//! derives exactly; divergent warps that run both sides are counted on both, as on hardware.
//! Units: Eq. 4.8 sums cycles, while the launch-overhead regression of ch. 3 is in µs (Fig. 3.3);
//! we convert it to cycles with the core clock before summing. The penalties of Eqs. 4.10–4.12
//! are summed as printed (cycles).

pub mod adapter;
pub mod atomics;
pub mod chain;
pub mod dag;
pub mod thesis;

use crate::device::{Clocks, Device};
use crate::model::{largest, ErrorBand, Model, ModelError, ModelInput, Prediction, Result};
use crate::sched_inst::{SchedInst, UnitClass};
use dag::{schedule_block, Units};
use kerncast_passes::stats::{DType, Dir, Feature, Granularity, OpKind, Space};
use std::collections::BTreeMap;

const NAME: &str = "schedule";

/// Unit class and thesis latency key (Table 3.2) of an operation. The thesis pins only add→SP
/// and ld/st→LSU; our mapping: f64 arithmetic → DPU; div, sqrt, rsqrt, rcp and transcendental
/// f32 → SFU; everything else → SP. Latency keys for ops the thesis did not measure use the
/// nearest measured one (min/max/abs/neg → adds, logic → and, rcp/special → sqrt,
/// control/barrier/other → mov); f64 uses the f32 key (the thesis has no f64 latencies).
pub fn classify_op(kind: OpKind, ty: DType) -> (UnitClass, &'static str) {
    let float = matches!(ty, DType::F16 | DType::Bf16 | DType::F32 | DType::F64);
    let class = if ty == DType::F64 && kind != OpKind::Move {
        UnitClass::Dpu
    } else if matches!(
        kind,
        OpKind::Div | OpKind::Sqrt | OpKind::Rsqrt | OpKind::Rcp | OpKind::Special
    ) && float
    {
        UnitClass::Sfu
    } else if matches!(kind, OpKind::Atomic | OpKind::ShuffleVote) {
        UnitClass::Lsu
    } else {
        UnitClass::Sp
    };
    let key = match (kind, float) {
        (OpKind::AddSub, true) => "addf",
        (OpKind::AddSub, false) => "adds",
        (OpKind::Mul, true) => "mulf",
        (OpKind::Mul, false) => "mul",
        (OpKind::Fma, true) | (OpKind::Mma, _) => "fma",
        (OpKind::Fma, false) => "mads",
        (OpKind::Div, true) => "divf",
        (OpKind::Div, false) | (OpKind::Rem, _) => "divs",
        (OpKind::Sqrt | OpKind::Rsqrt | OpKind::Rcp | OpKind::Special, _) => "sqrt",
        (OpKind::CmpSel, _) => "setp",
        (OpKind::Convert, _) => "cvt",
        (OpKind::LogicShift, _) => "and",
        (OpKind::MinMax | OpKind::Abs | OpKind::Neg, _) => "adds",
        (OpKind::Atomic, _) => "global",
        (OpKind::ShuffleVote, _) => "shared",
        (OpKind::Move | OpKind::Control | OpKind::Barrier | OpKind::Other, _) => "mov",
    };
    (class, key)
}

/// Latency key of a memory access: global (and local, generic, atomics) use the global-latency
/// regression; shared uses the shared-memory latency; const and param (the constant cache) use
/// `latency.const` when the device has it, else the shared-memory latency (the thesis measured
/// no constant-cache latency and counts param loads as plain memory instructions). Only
/// `global` and `shared` count towards nGM / nShM.
pub fn mem_key(space: Space) -> &'static str {
    match space {
        Space::Global | Space::Local | Space::Generic => "global",
        Space::Shared => "shared",
        Space::Const | Space::Param => "const",
    }
}

/// Approach of the thesis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Approach {
    /// Approach 1: ILP/TLP delay equations (§4.3, Eq. 4.3/4.4, Algorithms 4 and 5).
    IlpTlp,
    /// Approach 2: reservation-table list scheduling (§4.4).
    ListScheduling,
}

#[derive(Clone, Debug)]
pub struct ScheduleModel {
    pub approach: Approach,
    /// L_pipeline of Algorithm 6 (1 = perfectly pipelined).
    pub l_pipeline: u64,
}

impl Default for ScheduleModel {
    fn default() -> Self {
        ScheduleModel {
            approach: Approach::ListScheduling,
            l_pipeline: 1,
        }
    }
}

/// The thesis' measured MAPE of approach 2 per GPU (Table 4.8), or approach 1's MAE on the K20
/// (Table 4.2).
fn error_band(device: &str, approach: Approach) -> ErrorBand {
    if approach == Approach::IlpTlp {
        return ErrorBand {
            rel: 0.2686,
            source: "Alavani 2023 §4.3.4: approach 1 mean absolute error on Tesla K20 (45 kernels); not validated elsewhere".into(),
        };
    }
    let (rel, src) = match device {
        "k20" => (
            0.283,
            "Alavani 2023 Table 4.8, MAPE on Tesla K20 (44 kernels)",
        ),
        "k4200" => (0.294, "Alavani 2023 Table 4.8, MAPE on Quadro K4200"),
        "m60" => (0.478, "Alavani 2023 Table 4.8, MAPE on Tesla M60"),
        "gtx-1050" => (0.285, "Alavani 2023 Table 4.8, MAPE on GTX 1050"),
        _ => (
            0.478,
            "not validated on this device: worst per-GPU MAPE of Alavani 2023 Table 4.8 (M60)",
        ),
    };
    ErrorBand {
        rel,
        source: src.to_string(),
    }
}

impl Model for ScheduleModel {
    fn name(&self) -> &'static str {
        match self.approach {
            Approach::IlpTlp => "schedule-ilp",
            Approach::ListScheduling => NAME,
        }
    }

    fn predict(&self, input: &ModelInput, d: &Device, clocks: Clocks) -> Result<Prediction> {
        let s = &input.stats;
        let launch = input.launch(NAME)?;
        if input.blocks.is_empty() {
            let what = match &input.blocks_missing {
                Some(why) => format!("per-block instructions, which cannot be built here: {why}"),
                None => "per-block instructions (ModelInput.blocks, from the PTX)".into(),
            };
            return Err(ModelError::Input {
                model: NAME.into(),
                what,
            });
        }
        let hw = &d.hw;
        let units = Units {
            sp: *d.need(&hw.cores_per_sm, "hw.cores_per_sm", NAME)?,
            sfu: *d.need(&hw.sfu_per_sm, "hw.sfu_per_sm", NAME)?,
            dpu: *d.need(&hw.dpu_per_sm, "hw.dpu_per_sm", NAME)?,
            lsu: *d.need(&hw.lsu_per_sm, "hw.lsu_per_sm", NAME)?,
        };
        let lim = thesis::SmLimits::of(d, NAME)?;
        let nsm = lim.sm_count;
        let nb = launch.blocks();
        let ntb = launch.threads_per_block();
        let threads = (nb * ntb) as f64;
        let w = thesis::waves(
            &lim,
            nb,
            ntb,
            s.regs_per_thread.map(u64::from),
            s.shared_bytes_per_block,
        );
        let mut notes = Vec::new();

        // Global latency: the thesis regression when the device has one, else a measured
        // main-memory latency (latency.global).
        let lgm = match &d.schedule.global_latency_pieces {
            Some(p) => thesis::global_latency(&p.value, threads)
                .unwrap_or(0.0)
                .ceil(),
            None => d.latency("global", NAME)?,
        };
        let lsh = d.latency("shared", NAME)?;
        let lconst = d.latency("const", NAME).unwrap_or(lsh);

        let warps_total = (nb * launch.warps_per_block()).max(1) as f64;
        let weight = |b: usize| -> f64 {
            if s.block_execs.is_empty() {
                1.0
            } else {
                s.block_execs.get(&b).map_or(0.0, |e| e.warps / warps_total)
            }
        };
        let blocks: BTreeMap<usize, Vec<SchedInst>> = input
            .blocks
            .iter()
            .map(|(&b, insts)| {
                let v = insts
                    .iter()
                    .map(|i| {
                        let mut i = i.clone();
                        match i.mem.as_str() {
                            "global" => i.latency = lgm as u32,
                            "shared" => i.latency = lsh as u32,
                            "const" => i.latency = lconst as u32,
                            _ => {}
                        }
                        i
                    })
                    .collect();
                (b, v)
            })
            .collect();

        let mut d_kernel = 0.0;
        let mut busy: BTreeMap<UnitClass, f64> = BTreeMap::new();
        match self.approach {
            Approach::ListScheduling => {
                // Algorithm 8: every wave schedules the CFG for the threads it holds.
                let mut left = w.nth_sched;
                for _ in 0..w.waves {
                    let ntw = left.min(w.nth_sm);
                    left -= ntw;
                    for (&b, insts) in &blocks {
                        let wb = weight(b);
                        if wb == 0.0 {
                            continue;
                        }
                        let sch = schedule_block(insts, &units, ntw, self.l_pipeline);
                        d_kernel += sch.delay as f64 * wb;
                        for (c, cy) in sch.busy {
                            *busy.entry(c).or_default() += cy as f64 * wb;
                        }
                    }
                }
            }
            Approach::IlpTlp => {
                d_kernel = approach1_cycles(&blocks, &weight, d, &launch, &mut notes)?;
            }
        }
        let per_warp = |tag: &str| -> f64 {
            blocks
                .iter()
                .map(|(&b, v)| v.iter().filter(|i| i.mem == tag).count() as f64 * weight(b))
                .sum()
        };
        let ngm = per_warp("global") * w.waves as f64;
        let nshm = per_warp("shared") * w.waves as f64;

        // Access size: mean width of global accesses, in bytes.
        let (n_acc, bits) = s.features.iter().fold((0.0, 0.0), |acc, (f, v)| match f {
            Feature::Mem {
                space: Space::Global,
                bits,
                gran: Granularity::Thread,
                ..
            } => (acc.0 + v, acc.1 + v * *bits as f64),
            _ => acc,
        });
        let access_sz = if n_acc > 0.0 { bits / n_acc / 8.0 } else { 4.0 };

        let mut penalties = BTreeMap::new();
        match &d.schedule.tp_global {
            Some(tp) => {
                let tpg = thesis::throughput(tp.value, ngm);
                penalties.insert(
                    "gm_penalty",
                    thesis::gm_penalty(threads, units.lsu as f64, access_sz, tpg, ngm),
                );
            }
            None => notes.push("no schedule.tp_global: global penalty (Eq. 4.10) omitted".into()),
        }
        match &d.schedule.tp_shared {
            Some(tp) if nshm > 0.0 => {
                let tps = thesis::throughput(tp.value, nshm);
                penalties.insert(
                    "sm_penalty",
                    thesis::sm_penalty(threads, units.lsu as f64, nsm as f64, access_sz, tps, nshm),
                );
            }
            Some(_) => {}
            None => notes.push("no schedule.tp_shared: shared penalty (Eq. 4.11) omitted".into()),
        }
        if let Some(l2) = &d.hw.l2_bytes {
            penalties.insert(
                "cm_penalty",
                thesis::cm_penalty(
                    threads,
                    ngm,
                    w.waves as f64,
                    l2.value as f64,
                    access_sz,
                    lgm,
                ),
            );
        } else {
            notes.push("no hw.l2_bytes: cache penalty (Eq. 4.12) omitted".into());
        }
        let lo_us = match &d.schedule.launch_overhead_us {
            Some(ab) => thesis::launch_overhead(ab.value, threads),
            None => {
                notes.push("no schedule.launch_overhead_us: launch overhead omitted".into());
                0.0
            }
        };
        let hz = clocks.core_mhz * 1e6;
        let mut breakdown = BTreeMap::new();
        breakdown.insert("schedule".to_string(), d_kernel / hz);
        breakdown.insert("launch".to_string(), lo_us * 1e-6);
        for (k, v) in &penalties {
            breakdown.insert(k.to_string(), v / hz);
        }
        let time_s: f64 = breakdown.values().sum();

        let mut activity = BTreeMap::new();
        // Unit utilisation exists only where units were scheduled (approach 2).
        if self.approach == Approach::ListScheduling {
            for c in UnitClass::ALL {
                let b = busy.get(&c).copied().unwrap_or(0.0);
                activity.insert(c.key().to_string(), (b / d_kernel.max(1.0)).min(1.0));
            }
        }
        let bytes = s.sum_where(|f| {
            matches!(
                f,
                Feature::Sectors {
                    space: Space::Global,
                    dir: Dir::Load | Dir::Store
                }
            )
        }) * 32.0;
        if let Ok(bw) = d.dram_bandwidth(clocks.mem_mhz, NAME) {
            activity.insert("dram".into(), (bytes / (time_s * bw)).min(1.0));
        }
        let lsu = activity.get("lsu").copied().unwrap_or(0.0);
        let sp = activity.get("sp").copied().unwrap_or(0.0);
        let mut bottleneck = largest(&breakdown);
        if bottleneck == "schedule" {
            bottleneck = if lsu > sp {
                "memory latency"
            } else {
                "compute"
            }
            .to_string();
        }
        notes.push(format!(
            "waves {} of {} threads per SM (occupancy {:.2}), L(gm) {lgm} cycles",
            w.waves, w.nth_sm, w.occupancy
        ));
        Ok(Prediction {
            model: self.name().into(),
            clocks,
            time_s,
            power_w: None,
            energy_j: None,
            breakdown,
            bottleneck,
            error_band: error_band(&d.name, self.approach),
            activity,
            notes,
        })
    }
}

/// Approach 1 (Algorithms 4 and 5, as the thesis' Java reads them): per block, the ILP of its
/// instructions in dispatch slots (dispatch units per scheduler); per instruction, the Eq. 4.3
/// delay with TLP = max warps per SM and the device's measured throughput / peak warps
/// (Table 3.1), or Eq. 4.4 for memory instructions; d_k = Σ blocks (Σ d_i) × warp executions;
/// t_thread = d_k · n_ic with n_ic = ⌈warps per block / (cores per SM / 32)⌉; blocks go
/// round-robin, so the busiest SM runs ⌈nB/nSM⌉ of them. Returns cycles.
/// Eq. 4.4's p^m (the MPD penalty) has no printed formula: memory instructions take its first
/// branch, and the global/shared penalties of Eqs. 4.10/4.11 are added afterwards as in Eq. 4.2.
fn approach1_cycles(
    blocks: &BTreeMap<usize, Vec<SchedInst>>,
    weight: &dyn Fn(usize) -> f64,
    d: &Device,
    launch: &kerncast_passes::stats::Launch,
    notes: &mut Vec<String>,
) -> Result<f64> {
    let hw = &d.hw;
    let tp = d.need(
        &d.schedule.throughput_peakwarps,
        "schedule.throughput_peakwarps",
        NAME,
    )?;
    let tlp = *d.need(&hw.max_warps_per_sm, "hw.max_warps_per_sm", NAME)? as f64;
    let nws = *d.need(
        &hw.warp_schedulers_per_sm,
        "hw.warp_schedulers_per_sm",
        NAME,
    )?;
    let ndu = *d.need(&hw.dispatch_units_per_sm, "hw.dispatch_units_per_sm", NAME)?;
    let cores = *d.need(&hw.cores_per_sm, "hw.cores_per_sm", NAME)? as u64;
    let nsm = *d.need(&hw.sm_count, "hw.sm_count", NAME)? as u64;
    let warp = hw.warp_size.as_ref().map_or(32.0, |v| v.value as f64);
    let slots = (ndu / nws.max(1)).max(1) as usize;
    let mut d_k = 0.0;
    let mut unmeasured = std::collections::BTreeSet::new();
    for (&b, insts) in blocks {
        let wb = weight(b);
        if wb == 0.0 {
            continue;
        }
        let ilp = thesis::ilp(&dag::raw_deps(insts), slots);
        let mut d_b = 0.0;
        for i in insts {
            let lat = i.latency as f64;
            d_b += if !i.mem.is_empty() {
                lat / (ilp * tlp)
            } else {
                match tp.get(&i.key) {
                    Some([t, pw]) => thesis::delay_eq43(lat, ilp, tlp, *pw, warp, *t),
                    None => {
                        unmeasured.insert(i.key.clone());
                        lat / (ilp * tlp)
                    }
                }
            };
        }
        d_k += d_b * wb;
    }
    if !unmeasured.is_empty() {
        notes.push(format!(
            "no throughput/peak-warps for {:?}: L/(ILP·TLP) used",
            unmeasured
        ));
    }
    let n_ic = launch
        .warps_per_block()
        .div_ceil((cores / 32).max(1))
        .max(1) as f64;
    let rounds = launch.blocks().div_ceil(nsm.max(1)) as f64;
    Ok(d_k * n_ic * rounds)
}
