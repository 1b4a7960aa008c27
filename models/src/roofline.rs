//! Roofline: a kernel takes at least as long as its busiest resource needs for its share of the
//! work at that resource's peak rate (Williams et al. 2009, taken per pipe as Kerncraft's
//! roofline model does). Its inputs are datasheet and programming-guide numbers every device
//! profile carries, so it runs on every device; it knows no latency, no occupancy limit and no
//! launch cost, so its time is a lower bound, and `auto` uses it only where no fitted model has
//! its data.
//!
//! | resource | work (from the counts)                              | peak per SM per core cycle      |
//! |----------|-----------------------------------------------------|---------------------------------|
//! | `issue`  | warp instructions (ops and memory moves)            | `hw.dispatch_units_per_sm`      |
//! | `alu`    | warp ops on the CUDA cores (not f64, not SFU)       | `hw.cores_per_sm` / 32          |
//! | `fp64`   | warp f64 arithmetic, as SASS issues it where counted | `hw.dpu_per_sm` / 32            |
//! | `sfu`    | warp rcp, sqrt, rsqrt, ex2/lg2/sin/cos, f32 div      | `hw.sfu_per_sm` / 32            |
//! | `tensor` | tensor-core multiply–adds, f16/bf16 into f32         | `hw.tensor_f16_f32_fma_per_sm`  |
//! | `shared` | shared-memory wavefronts                             | 1 (32 banks × 4 B per clock)    |
//! | `dram`   | 32 B × global sectors × (1 − L2 hit rate)           | the DRAM bandwidth (whole GPU)  |
//! | `l2`     | 32 B × global sectors that must reach the L2         | the L2 throughput (whole GPU)   |
//!
//! The SM pipes scale with the SMs the launch can fill: min(blocks, `hw.sm_count`), and on each
//! with the schedulers its warps occupy (`hw.warp_schedulers_per_sm`; a warp issues from one, so
//! an SM with one warp has a quarter of a four-scheduler SM's issue rate and CUDA-core, SFU and
//! tensor pipes; shared memory, one per SM, keeps its rate, and so does FP64, whose few units on
//! consumer parts no source places per scheduler). Tensor-core
//! work of other types (tf32, f16 into f16, integers, f64) has no sourced rate in any profile:
//! it bounds nothing, and a note counts it.
//!
//! The L2 roof takes what the L2 must see at the least: every store and atomic sector, and the
//! load sectors less the reuse profile's re-reads within a block (`block_reloads`), which an
//! L1 as large as a block's data could serve. Its rate is the profile's *measured* L2
//! throughput (`hw.l2_read_gbs`, `hw.l2_write_gbs`, from mt4g), as Kerncraft's roofline takes
//! measured bandwidths per cache level, scaled with the core clock. Without a reuse profile
//! the L1's share is unknown and there is no L2 roof; a note says why.

use crate::device::{Clocks, Device};
use crate::l2::{dirty_at_exit_bytes, l2_hit_rate, local_dram_bytes, written_sector_bytes};
use crate::model::{largest, ErrorBand, Model, ModelError, ModelInput, Prediction, Result};
use kerncast_passes::reuse::Reuse;
use kerncast_passes::stats::{BoundStats, DType, Dir, Feature, Granularity, OpKind, Space};
use std::collections::BTreeMap;

pub const NAME: &str = "roofline";

/// Shared-memory wavefronts an SM serves per clock: one, as every bank delivers 32 bits per
/// clock cycle and a wavefront is one access of the 32 banks (CUDA C++ Programming Guide,
/// "Shared Memory" of compute capabilities 5.x and later).
const SHARED_WAVEFRONTS_PER_CLOCK: f64 = 1.0;

#[derive(Clone, Debug, Default)]
pub struct RooflineModel;

/// The share of an SM's schedulers (sub-partitions) the launch keeps busy. A warp stays on one
/// scheduler, whose dispatch unit and pipes serve only its own warps, so an SM holding fewer warps
/// than it has schedulers issues from that many: a block of 4 threads alone on an SM has a
/// quarter of the SM's issue rate and of its CUDA-core, SFU and tensor pipes. The busiest SM
/// holds ⌈blocks / SMs⌉ of the launch's blocks. 1 where the device does not give its schedulers
/// per SM.
fn busy_partitions(d: &Device, launch: &kerncast_passes::stats::Launch, sms: f64) -> f64 {
    let Some(schedulers) = d.hw.warp_schedulers_per_sm.as_ref().map(|s| s.value as f64) else {
        return 1.0;
    };
    let blocks_per_sm = (launch.blocks().max(1) as f64 / sms.max(1.0)).ceil();
    let warps_per_block = launch.warps_per_block().max(1) as f64;
    (blocks_per_sm * warps_per_block).min(schedulers) / schedulers.max(1.0)
}

/// The pipe an arithmetic op issues to.
fn pipe(kind: OpKind, ty: DType) -> Option<&'static str> {
    use OpKind::*;
    match kind {
        Control | Barrier | Atomic | ShuffleVote | Mma | Other => None,
        _ if ty == DType::F64 => Some("fp64"),
        Rcp | Sqrt | Rsqrt | Special => Some("sfu"),
        Div if ty == DType::F32 => Some("sfu"),
        _ => Some("alu"),
    }
}

/// Warp-level count of `f` at `gran` Warp, or its thread count / 32 where only that exists.
fn warp_ops(s: &BoundStats) -> BTreeMap<(OpKind, DType), f64> {
    let mut warp = BTreeMap::new();
    let mut thread = BTreeMap::new();
    for (f, v) in &s.features {
        if let Feature::Op { kind, ty, gran } = f {
            let m = if *gran == Granularity::Warp {
                &mut warp
            } else {
                &mut thread
            };
            *m.entry((*kind, *ty)).or_insert(0.0) += v;
        }
    }
    if warp.is_empty() {
        thread.into_iter().map(|(k, v)| (k, v / 32.0)).collect()
    } else {
        warp
    }
}

/// Warp instructions that move memory (loads and stores of every space).
fn warp_memory_moves(s: &BoundStats) -> f64 {
    let at = |g: Granularity| {
        s.sum_where(
            |f| matches!(f, Feature::Mem { dir: Dir::Load | Dir::Store, gran, .. } if *gran == g),
        )
    };
    match at(Granularity::Warp) {
        w if w > 0.0 => w,
        _ => at(Granularity::Thread) / 32.0,
    }
}

/// What the unbounded note calls tensor-core instructions whose shape and types were not read.
const UNREAD_MMA: &str = "warp tensor-core instruction(s) (shape or types not read)";

/// Whether tensor-core work of these input and accumulator types is what the profile's one
/// tensor rate (`hw.tensor_f16_f32_fma_per_sm`) is for: f16 or bf16 into f32.
pub fn at_tensor_rate(input: DType, acc: DType) -> bool {
    matches!((input, acc), (DType::F16 | DType::Bf16, DType::F32))
}

/// The multiply–adds of the tensor-core instructions the profile has a rate for. The others
/// whose shape was read are added to `unbounded` by their types, and the rest of the
/// `mma_ops` tensor-core instructions as unread.
fn tensor_work(
    s: &BoundStats,
    d: &Device,
    mma_ops: f64,
    unbounded: &mut BTreeMap<String, f64>,
) -> f64 {
    let (mut fmas, mut read) = (0.0, 0.0);
    for (f, v) in &s.features {
        if let Feature::TensorMma {
            input,
            acc,
            fmas: each,
        } = f
        {
            read += v;
            if at_tensor_rate(*input, *acc) && d.hw.tensor_f16_f32_fma_per_sm.is_some() {
                fmas += v * *each as f64
            } else {
                let what = format!("warp tensor-core instruction(s) of {input:?} into {acc:?}")
                    .to_lowercase();
                *unbounded.entry(what).or_insert(0.0) += v;
            }
        }
    }
    if mma_ops - read >= 0.5 {
        unbounded.insert(UNREAD_MMA.into(), mma_ops - read);
    }
    fmas
}

/// The global traffic that must reach the L2 (module docs), in bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct L2Traffic {
    /// Load sectors less the re-reads within a block, which an L1 could serve.
    pub load_bytes: f64,
    /// Every store and atomic sector.
    pub write_bytes: f64,
    /// The share of the sector requests that re-read data of their own block.
    pub reload_share: f64,
}

impl L2Traffic {
    /// Seconds the L2 needs for it at its read and write throughput (bytes/s).
    pub fn time(&self, (read_bw, write_bw): (f64, f64)) -> f64 {
        self.load_bytes / read_bw + self.write_bytes / write_bw
    }
}

/// What reaches the L2 of the counts `s`; or why it is unknown (no reuse profile).
pub fn l2_traffic(s: &BoundStats) -> std::result::Result<L2Traffic, String> {
    let p = match &s.reuse {
        Some(Reuse::Profile(p)) if p.requests > 0.0 => p,
        _ => return Err("without a reuse profile the loads an L1 could serve are unknown".into()),
    };
    let sectors = |dir: Dir| {
        s.sum_where(|f| matches!(f, Feature::Sectors { space: Space::Global, dir: d } if *d == dir))
    };
    let writes = sectors(Dir::Store) + sectors(Dir::Atomic);
    let all = sectors(Dir::Load) + writes;
    let reload_share = (p.block_reloads / p.requests).clamp(0.0, 1.0);
    let loads = (sectors(Dir::Load) - reload_share * all).max(0.0);
    Ok(L2Traffic {
        load_bytes: 32.0 * loads,
        write_bytes: 32.0 * writes,
        reload_share,
    })
}

/// Seconds the L2 needs for the global traffic that must reach it (module docs), and a note
/// with the figures; or why there is no L2 roof.
fn l2_time(
    s: &BoundStats,
    d: &Device,
    core_mhz: f64,
) -> std::result::Result<(f64, String), String> {
    let (read_bw, write_bw) = d.l2_bandwidths(core_mhz).ok_or(
        "the device profile has no measured L2 throughput (hw.l2_read_gbs, hw.l2_write_gbs)",
    )?;
    let l2 = l2_traffic(s)?;
    let note = format!(
        "l2: {:.3} GB of loads and {:.3} GB of stores reach the L2, at its measured {:.0} and {:.0} GB/s; {:.1} % of the sector requests re-read data of their own block, taken as L1 hits",
        l2.load_bytes / 1e9,
        l2.write_bytes / 1e9,
        read_bw / 1e9,
        write_bw / 1e9,
        100.0 * l2.reload_share
    );
    Ok((l2.time((read_bw, write_bw)), note))
}

impl Model for RooflineModel {
    fn name(&self) -> &'static str {
        NAME
    }

    fn predict(&self, input: &ModelInput, d: &Device, clocks: Clocks) -> Result<Prediction> {
        let s = &input.stats;
        let launch = input.launch(NAME)?;
        let per_sm = |v: &Option<crate::Sourced<u32>>, key: &str| -> Result<f64> {
            Ok(*d.need(v, key, NAME)? as f64)
        };
        let sms = per_sm(&d.hw.sm_count, "hw.sm_count")?.min(launch.blocks().max(1) as f64);
        let cycles_per_s = clocks.core_mhz * 1e6;
        let rate = |per_clock_per_sm: f64| per_clock_per_sm * sms * cycles_per_s;
        let busy = busy_partitions(d, &launch, sms);
        // the pipes of a scheduler no warp is on run nothing
        let pipe_rate = |per_clock_per_sm: f64| rate(per_clock_per_sm) * busy;

        let mut work: BTreeMap<&str, f64> = BTreeMap::new();
        let mut unbounded: BTreeMap<String, f64> = BTreeMap::new();
        let ops = warp_ops(s);
        let mut mma_ops = 0.0;
        for (&(kind, ty), &v) in &ops {
            match pipe(kind, ty) {
                Some(p) => *work.entry(p).or_insert(0.0) += v,
                None if kind == OpKind::Mma => mma_ops += v,
                None => {}
            }
        }
        // the SASS's FP64 instructions where the caller counted them (a division is eight)
        if let Some(extra) = input.fp64_sass_extra {
            let fp64 = work.entry("fp64").or_insert(0.0);
            *fp64 = (*fp64 + extra).max(0.0);
        }
        let issued = ops.values().sum::<f64>() + warp_memory_moves(s);
        let tensor_fmas = tensor_work(s, d, mma_ops, &mut unbounded);

        let mut notes = Vec::new();
        let sectors = s.sum_where(|f| {
            matches!(
                f,
                Feature::Sectors {
                    space: Space::Global,
                    ..
                }
            )
        });
        let traffic = 32.0 * sectors;
        let hit = l2_hit_rate(input, d, traffic, NAME, &mut notes)?;
        let dram_bw = d.dram_bandwidth(clocks.mem_mhz, NAME)?;
        let wavefronts = s.sum_where(|f| matches!(f, Feature::SharedWavefronts { .. }));

        let mut breakdown = BTreeMap::new();
        let mut put = |k: &str, t: f64| {
            if t > 0.0 {
                breakdown.insert(k.to_string(), t);
            }
        };
        put(
            "issue",
            issued
                / pipe_rate(per_sm(
                    &d.hw.dispatch_units_per_sm,
                    "hw.dispatch_units_per_sm",
                )?),
        );
        put(
            "alu",
            work.get("alu").copied().unwrap_or(0.0)
                / pipe_rate(per_sm(&d.hw.cores_per_sm, "hw.cores_per_sm")? / 32.0),
        );
        put(
            "fp64",
            work.get("fp64").copied().unwrap_or(0.0)
                / rate(per_sm(&d.hw.dpu_per_sm, "hw.dpu_per_sm")? / 32.0),
        );
        put(
            "sfu",
            work.get("sfu").copied().unwrap_or(0.0)
                / pipe_rate(per_sm(&d.hw.sfu_per_sm, "hw.sfu_per_sm")? / 32.0),
        );
        put("shared", wavefronts / rate(SHARED_WAVEFRONTS_PER_CLOCK));
        if let Some(per_sm) = &d.hw.tensor_f16_f32_fma_per_sm {
            put("tensor", tensor_fmas / pipe_rate(per_sm.value as f64));
        }
        let local = local_dram_bytes(input, d, &mut notes);
        let global = traffic * (1.0 - hit);
        // the writes still dirty in the L2 at the kernel's end go back to DRAM after it
        let dirty = dirty_at_exit_bytes(d, written_sector_bytes(s), global);
        if dirty > 0.0 {
            notes.push(format!(
                "dram: {:.3} MB of the kernel's writes taken to stay dirty in the L2 past its end (hw.l2_dirty_at_exit_bytes), not in its DRAM time",
                dirty / 1e6
            ));
        }
        put("dram", (global - dirty + local) / dram_bw);
        if traffic > 0.0 {
            match l2_time(s, d, clocks.core_mhz) {
                Ok((t, note)) => {
                    put("l2", t);
                    notes.push(note);
                }
                Err(why) => notes.push(format!("no L2 roof: {why}")),
            }
        }

        let time_s = breakdown.values().copied().fold(0.0, f64::max);
        if time_s <= 0.0 {
            return Err(ModelError::Input {
                model: NAME.into(),
                what: "counted work (no instruction or memory traffic was counted)".into(),
            });
        }
        let bottleneck = largest(&breakdown);
        let mut activity = BTreeMap::new();
        if let Some(t) = breakdown.get("alu") {
            activity.insert("sp".to_string(), t / time_s);
        }
        if let Some(t) = breakdown.get("dram") {
            activity.insert("dram".to_string(), t / time_s);
        }
        let on_schedulers = if busy < 1.0 {
            format!(
                ", the SM pipes at {:.0} % (the launch's warps occupy that share of an SM's schedulers)",
                busy * 100.0
            )
        } else {
            String::new()
        };
        let measured = if breakdown.contains_key("l2") {
            "; the L2 at its measured throughput, which a run may beat"
        } else {
            ""
        };
        notes.push(format!(
            "roofline: the time of the busiest resource at its peak rate over {sms} SM(s){on_schedulers}, a lower bound (no latency, occupancy or launch cost{measured}); each resource's own time is in the breakdown"
        ));
        for (what, n) in &unbounded {
            notes.push(format!(
                "{n:.0} {what} not bounded: the profile has no sourced rate for them"
            ));
        }
        Ok(Prediction {
            model: NAME.into(),
            clocks,
            time_s,
            power_w: None,
            energy_j: None,
            breakdown,
            bottleneck,
            error_band: ErrorBand::unvalidated("not validated: a roofline lower bound"),
            activity,
            notes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::Device;
    use kerncast_passes::stats::{Launch, StrideClass};

    fn device() -> Device {
        Device::load("h100").expect("h100 profile loads")
    }

    fn stats(blocks: u64, features: &[(Feature, f64)]) -> BoundStats {
        let mut s = BoundStats {
            launch: Some(Launch {
                grid: [blocks, 1, 1],
                block: [256, 1, 1],
            }),
            ..Default::default()
        };
        for (f, v) in features {
            s.features.insert(f.clone(), *v);
        }
        s
    }

    fn op(kind: OpKind, ty: DType) -> Feature {
        Feature::Op {
            kind,
            ty,
            gran: Granularity::Warp,
        }
    }

    /// A streaming kernel: 2^20 sectors of loads at the datasheet bandwidth; the few ops are
    /// far below their peaks, so DRAM bounds it and the time is bytes / bandwidth.
    #[test]
    fn streaming_is_bandwidth_bound() {
        let d = device();
        let c = d.default_clocks().unwrap();
        let s = stats(
            4096,
            &[
                (
                    Feature::Sectors {
                        space: Space::Global,
                        dir: Dir::Load,
                    },
                    (1u64 << 20) as f64,
                ),
                (op(OpKind::Fma, DType::F32), 32768.0),
            ],
        );
        let p = RooflineModel.predict(&ModelInput::new(s), &d, c).unwrap();
        let bw = d.dram_bandwidth(c.mem_mhz, NAME).unwrap();
        assert_eq!(p.bottleneck, "dram");
        assert!((p.time_s - 32.0 * (1u64 << 20) as f64 / bw).abs() < 1e-15);
        assert!(p.power_w.is_none());
    }

    /// A kernel that stores 2^20 sectors on a device whose L2 keeps 1 MiB of them dirty past
    /// the kernel's end: that MiB leaves its DRAM time, and a note says so; a reader's does not
    /// change.
    #[test]
    fn writes_left_dirty_in_the_l2_leave_the_dram_time() {
        let mut d = device();
        let c = d.default_clocks().unwrap();
        let sectors = |dir| {
            stats(
                4096,
                &[(
                    Feature::Sectors {
                        space: Space::Global,
                        dir,
                    },
                    (1u64 << 20) as f64,
                )],
            )
        };
        let time = |d: &Device, dir| {
            RooflineModel
                .predict(&ModelInput::new(sectors(dir)), d, c)
                .unwrap()
        };
        let (store, load) = (time(&d, Dir::Store).time_s, time(&d, Dir::Load).time_s);
        d.hw.l2_dirty_at_exit_bytes = Some(crate::device::Sourced {
            value: 1 << 20,
            source: "test".into(),
        });
        let bw = d.dram_bandwidth(c.mem_mhz, NAME).unwrap();
        let p = time(&d, Dir::Store);
        assert!((store - p.time_s - (1u64 << 20) as f64 / bw).abs() < 1e-15);
        assert!(
            p.notes.iter().any(|n| n.contains("dirty in the L2")),
            "{:?}",
            p.notes
        );
        assert_eq!(time(&d, Dir::Load).time_s, load);
    }

    /// f64 fma on the H100: 64 DP units per SM are 2 warp instructions per clock per SM; with
    /// 10 blocks only 10 SMs work.
    #[test]
    fn fp64_bound_on_the_sms_the_launch_fills() {
        let d = device();
        let c = d.default_clocks().unwrap();
        let n = 1e6;
        let s = stats(10, &[(op(OpKind::Fma, DType::F64), n)]);
        let p = RooflineModel.predict(&ModelInput::new(s), &d, c).unwrap();
        assert_eq!(p.bottleneck, "fp64");
        let want = n / (64.0 / 32.0 * 10.0 * c.core_mhz * 1e6);
        assert!(
            (p.time_s - want).abs() < 1e-12 * want.max(1.0),
            "{}",
            p.time_s
        );
        // the issue bound of the same instructions is half of it (4 dispatch units per SM)
        assert!((p.breakdown["issue"] - want / 2.0).abs() < 1e-12);
    }

    /// 132 blocks of 32 threads put one warp on each H100 SM: one of its four schedulers
    /// issues, so the CUDA cores run at a quarter of their rate; blocks of 128 threads fill
    /// all four. FP64 and shared memory keep their rates.
    #[test]
    fn an_sm_with_fewer_warps_than_schedulers_issues_from_that_many() {
        let d = device();
        let c = d.default_clocks().unwrap();
        let n = 1e6;
        let work = [
            (op(OpKind::Fma, DType::F32), n),
            (op(OpKind::Fma, DType::F64), n / 64.0),
            (Feature::SharedWavefronts { dir: Dir::Load }, n / 8.0),
        ];
        let with_block = |threads: u64| {
            let mut s = stats(132, &work);
            s.launch = Some(Launch {
                grid: [132, 1, 1],
                block: [threads, 1, 1],
            });
            RooflineModel.predict(&ModelInput::new(s), &d, c).unwrap()
        };
        let (one, four) = (with_block(32), with_block(128));
        assert!((one.breakdown["alu"] / four.breakdown["alu"] - 4.0).abs() < 1e-12);
        assert!((one.breakdown["issue"] / four.breakdown["issue"] - 4.0).abs() < 1e-12);
        assert_eq!(one.breakdown["fp64"], four.breakdown["fp64"]);
        assert_eq!(one.breakdown["shared"], four.breakdown["shared"]);
        assert!(
            one.notes.iter().any(|m| m.contains("SM pipes at 25 %")),
            "{:?}",
            one.notes
        );
        assert!(!four.notes.iter().any(|m| m.contains("SM pipes at")));
        // 264 blocks of one warp: two on each SM, half the schedulers
        let mut s = stats(264, &work);
        s.launch = Some(Launch {
            grid: [264, 1, 1],
            block: [32, 1, 1],
        });
        let two = RooflineModel.predict(&ModelInput::new(s), &d, c).unwrap();
        assert!((two.breakdown["alu"] / four.breakdown["alu"] - 2.0).abs() < 1e-12);
    }

    /// Where the caller counted the SASS's FP64 instructions (a double division is eight),
    /// the FP64 pipe runs those, not one per PTX op; the issue bound keeps the PTX's.
    #[test]
    fn the_fp64_pipe_runs_the_sass_instructions_where_counted() {
        let d = device();
        let c = d.default_clocks().unwrap();
        let n = 1e6;
        let s = stats(10, &[(op(OpKind::Div, DType::F64), n)]);
        let ptx = RooflineModel
            .predict(&ModelInput::new(s.clone()), &d, c)
            .unwrap();
        let sass = ModelInput {
            fp64_sass_extra: Some(7.0 * n),
            ..ModelInput::new(s)
        };
        let p = RooflineModel.predict(&sass, &d, c).unwrap();
        assert!((p.breakdown["fp64"] - 8.0 * ptx.breakdown["fp64"]).abs() < 1e-15);
        assert_eq!(p.breakdown["issue"], ptx.breakdown["issue"]);
        assert_eq!(p.bottleneck, "fp64");
    }

    #[test]
    fn tensor_ops_are_named_as_unbounded_and_nothing_counted_is_an_error() {
        let d = device();
        let c = d.default_clocks().unwrap();
        let s = stats(
            132,
            &[
                (op(OpKind::Mma, DType::F16), 4096.0),
                (
                    Feature::Mem {
                        space: Space::Shared,
                        dir: Dir::Load,
                        bits: 32,
                        stride: StrideClass::Unit,
                        nc: false,
                        gran: Granularity::Warp,
                    },
                    100.0,
                ),
            ],
        );
        let p = RooflineModel.predict(&ModelInput::new(s), &d, c).unwrap();
        assert!(p.notes.iter().any(|n| n.contains(
            "4096 warp tensor-core instruction(s) (shape or types not read) not bounded"
        )));
        let empty = stats(1, &[]);
        assert!(RooflineModel
            .predict(&ModelInput::new(empty), &d, c)
            .is_err());
    }

    /// 2^20 warp m16n16k16 f16 mma into f32 on the H100 (2048 multiply–adds per clock per SM,
    /// sourced) over 132 blocks are bounded by the tensor cores; 1000 s8 ones beside them have no
    /// rate and are named with their types, and only they are left unbounded.
    #[test]
    fn tensor_cores_bound_f16_mma_and_name_the_types_without_a_rate() {
        let d = device();
        let c = d.default_clocks().unwrap();
        let n = (1u64 << 20) as f64;
        let tensor = |input, acc| Feature::TensorMma {
            input,
            acc,
            fmas: 4096,
        };
        let s = stats(
            132,
            &[
                (op(OpKind::Mma, DType::F32), n),
                (tensor(DType::F16, DType::F32), n),
                (op(OpKind::Mma, DType::S32), 1000.0),
                (tensor(DType::S8, DType::S32), 1000.0),
            ],
        );
        let p = RooflineModel.predict(&ModelInput::new(s), &d, c).unwrap();
        let want = n * 4096.0 / (2048.0 * 132.0 * c.core_mhz * 1e6);
        assert_eq!(p.bottleneck, "tensor");
        assert!(
            (p.time_s - want).abs() < 1e-12 * want,
            "{} vs {want}",
            p.time_s
        );
        let unbounded: Vec<&String> = p
            .notes
            .iter()
            .filter(|n| n.contains("not bounded"))
            .collect();
        assert_eq!(
            unbounded,
            vec!["1000 warp tensor-core instruction(s) of s8 into s32 not bounded: the profile has no sourced rate for them"]
        );
    }

    /// 2^24 load sectors that all hit in the L2 (hint), from blocks that each read their data
    /// four times: the L2 sees a quarter of them (the re-reads are L1 hits at the least), at
    /// the profile's measured read throughput, which scales with the core clock. Without a
    /// reuse profile there is no L2 roof, and a note says why.
    #[test]
    fn the_l2_roof_takes_the_loads_a_block_does_not_reread() {
        let d = device();
        let c = d.default_clocks().unwrap();
        let loads = (1u64 << 24) as f64;
        let sectors = Feature::Sectors {
            space: Space::Global,
            dir: Dir::Load,
        };
        let mut s = stats(
            4096,
            &[(sectors, loads), (op(OpKind::Fma, DType::F32), 1.0)],
        );
        let touches = (0..4u32).map(|k| (0, k << 20, 7, false, 0)).collect();
        s.reuse = Some(Reuse::Profile(kerncast_passes::reuse::from_touches(
            touches,
            &[1.0],
            1,
            4096,
        )));
        let mut input = ModelInput::new(s.clone());
        input
            .hints
            .insert(crate::model::HINT_L2_HIT_RATE.to_string(), 1.0);
        let p = RooflineModel.predict(&input, &d, c).unwrap();
        let read = d.hw.l2_read_gbs.as_ref().unwrap().value * 1e9;
        assert_eq!(p.bottleneck, "l2");
        assert!(
            (p.time_s - 32.0 * loads / 4.0 / read).abs() < 1e-12,
            "{}",
            p.time_s
        );
        assert!(p
            .notes
            .iter()
            .any(|n| n.contains("75.0 % of the sector requests re-read")));
        let half = Clocks {
            core_mhz: c.core_mhz / 2.0,
            ..c
        };
        let slow = RooflineModel.predict(&input, &d, half).unwrap();
        assert!((slow.breakdown["l2"] - 2.0 * p.breakdown["l2"]).abs() < 1e-12);
        s.reuse = None;
        let mut input = ModelInput::new(s);
        input
            .hints
            .insert(crate::model::HINT_L2_HIT_RATE.to_string(), 1.0);
        let p = RooflineModel.predict(&input, &d, c).unwrap();
        assert!(!p.breakdown.contains_key("l2"));
        assert!(p
            .notes
            .iter()
            .any(|n| n.starts_with("no L2 roof: without a reuse profile")));
    }
}
