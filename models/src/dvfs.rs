//! Wang & Chu (2017): kernel time at any (core, memory) clock pair. DRAM is a FCFS queue whose
//! latency and service delay are set by the core/memory clock ratio (Eq. 2–4); L2 and shared
//! memory run in the core domain; the kernel falls into one of the compute/memory cases
//! (Eq. 6–21). Everything is in core cycles, converted to seconds with the core clock.
//!
//! The paper profiles Nsight counters once; kerncast replaces each with a static quantity:
//!
//! | paper input | kerncast source |
//! |---|---|
//! | `gld_trans` (transactions per warp) | `Lines{global}` / warps; else `Sectors{global}`/4; else warp-level global accesses × lane bytes/128 |
//! | `comp_inst` (per warp) | warp-granular `Op` counts (thread-granular / 32 when only those exist) / warps |
//! | shared transactions, `i_itrs` | `SharedWavefronts` (else warp-level shared accesses) / warps / `o_itrs` |
//! | `#Aw` (achieved active warps) | theoretical occupancy from registers / shared memory / limits, capped by the warps an SM receives |
//! | `#Asm` | `hw.sm_count`, or the blocks when the grid has fewer (the SMs that receive one) |
//! | `o_itrs` | `gld_trans` (one compute period per transaction, Eq. 7a) |
//! | `o_itrs` of Eq. 21 (shared-memory periods) | barriers that close an interval with a global read (`crate::periods`); else barriers / 2 |
//! | `l2_hr` | hint `l2_hit_rate`; else from hint `footprint_bytes`; else from the counter's reuse profile of the addresses; else 0 (every transaction from DRAM); see `crate::l2`, and the notes say which |
//! | (full 128-byte lines per miss, implicit) | `sector_fill`: global sectors / (4 · lines); an L2 miss fetches only the sectors asked for, so a transaction holds the DRAM for that share of a line (Eq. 5b) |
//! | `inst_cycle` | warp size / SP cores per SM (issue cycles of one warp instruction), fittable |
//! | (one transaction in flight per warp, implicit) | `exposed`: waits on global loads / transactions, from the PTX's basic blocks (`crate::mlp`); it scales the latency in the chain of Eq. 13/15 and in the case conditions |
//!
//! Choices ([NOTE]s of the seed): Eq. 4 is used as the DRAM latency *at the given pair* (reading
//! B, no second core/mem factor in Eq. 5a); the delay is the baseline delay × r (Eq. 5b). The
//! ratio r is taken relative to a device baseline pair (700/700 for the GTX 980 of the paper).
//! Ties in the case conditions go to the compute-side case. Eq. 11 is evaluated with #Aw where
//! the paper prints #Wpb ([NOTE] 6): in the bandwidth-saturated case every active warp's requests
//! queue at the DRAM (Fig. 7's text), and with #Wpb the predicted time drops 8× when a kernel
//! crosses from case 3 into case 2 — with #Aw the cases meet (tested).
//!
//! Conditions (10b) and (12b) are used swapped: case 2 (Eq. 11, DRAM saturated) when
//! `agl_del·(#Aw − 1) ≥ avr_comp + agl_lat`, case 3 (Eq. 13, few warps) otherwise. As printed,
//! the paper picks the smaller of the two times: Eq. 13 − Eq. 11 = (o_itrs − 1)·(avr_comp +
//! agl_lat − agl_del·#Aw), and (10b) selects Eq. 11 exactly when that difference is positive.
//! A kernel whose warps queue faster than the DRAM serves them would then be timed by its
//! latency chain alone, above the DRAM's bandwidth (`tests/kernels/dram_sweep.cu` on the GTX
//! Titan X at 975/810 MHz: 146 GB/s of misses, where 810 MHz memory peaks at 77.8 GB/s), and
//! its time at a low memory clock would fall with the core clock. The
//! measured `DRAM` micro-benchmark of the gpuPTXModel data (GTX Titan X, 810 MHz memory) is flat
//! in the core clock within 0.7 % from 595 to 1164 MHz: bandwidth-bound. With the swap every case
//! respects both bounds, the DRAM queue (agl_del·(#Aw − 1)·o_itrs) and one warp's chain
//! ((avr_comp + agl_lat·exposed)·o_itrs), which is what Fig. 7 and Fig. 8's text describe
//! (tested).
//! The compute side (8b)/(14b) already picks the larger time and is used as printed.
//!
//! The shared-memory cases are chosen
//! automatically: S2 (Eq. 18–21) when a warp issues at least as many shared transactions as
//! global ones, else S1 (Eq. 17) when its conditions (16a/b) hold, else the plain cases.

use crate::device::{Clocks, Device};
use crate::l2::l2_hit_rate;
use crate::mlp::launch_mlp;
use crate::model::{largest, ErrorBand, Model, ModelInput, Prediction, Result};
use crate::periods::launch_load_periods;
use crate::schedule::thesis::{waves, SmLimits};
use kerncast_passes::stats::{Dir, Feature, Granularity, OpKind, Space, StrideClass};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const NAME: &str = "dvfs";

/// The model's hardware constants; serializable so calibration (issue 6) can fit and store them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DvfsParams {
    /// Pair at which r = 1.
    pub baseline: Clocks,
    /// Eq. 4: dm_lat = a·r + b.
    pub dm_lat_a: f64,
    pub dm_lat_b: f64,
    /// DRAM delay per transaction at r = 1.
    pub dm_del_base: f64,
    pub l2_lat: f64,
    pub l2_del: f64,
    /// Shared-memory latency; needed only by kernels with shared transactions.
    pub sh_lat: Option<f64>,
    pub inst_cycle: f64,
    /// Multiplier on the final time (1 unless calibrated).
    pub time_scale: f64,
}

impl DvfsParams {
    pub fn from_device(d: &Device) -> Result<DvfsParams> {
        let v = &d.dvfs;
        let base = d.need(&v.baseline_mhz, "dvfs.baseline_mhz", NAME)?;
        let fit = d.need(&v.dm_lat_fit, "dvfs.dm_lat_fit", NAME)?;
        let cores = *d.need(&d.hw.cores_per_sm, "hw.cores_per_sm", NAME)? as f64;
        let warp = d.hw.warp_size.as_ref().map_or(32.0, |w| w.value as f64);
        Ok(DvfsParams {
            baseline: Clocks::new(base[0], base[1]),
            dm_lat_a: fit[0],
            dm_lat_b: fit[1],
            dm_del_base: *d.need(&v.dm_del_base, "dvfs.dm_del_base", NAME)?,
            l2_lat: *d.need(&v.l2_lat, "dvfs.l2_lat", NAME)?,
            l2_del: *d.need(&v.l2_del, "dvfs.l2_del", NAME)?,
            sh_lat: d.latency.get("shared").map(|v| v.value),
            inst_cycle: warp / cores,
            time_scale: 1.0,
        })
    }

    /// Core/memory ratio relative to the baseline.
    pub fn ratio(&self, c: Clocks) -> f64 {
        (c.core_mhz / self.baseline.core_mhz) / (c.mem_mhz / self.baseline.mem_mhz)
    }

    /// Eq. 4 (reading B): minimum DRAM latency in core cycles.
    pub fn dm_lat(&self, c: Clocks) -> f64 {
        self.dm_lat_a * self.ratio(c) + self.dm_lat_b
    }

    /// Eq. 5a / 5b: average global latency and delay at L2 hit rate `hr`, for transactions
    /// whose misses fetch `fill` of a 128-byte line ([`DvfsKernel::sector_fill`]). A miss waits
    /// the whole DRAM latency however few sectors it fetches, but holds the DRAM for its bytes.
    pub fn agl(&self, c: Clocks, hr: f64, fill: f64) -> (f64, f64) {
        let lat = self.l2_lat * hr + self.dm_lat(c) * (1.0 - hr);
        let del = self.l2_del * hr + self.dm_del_base * self.ratio(c) * (1.0 - hr) * fill;
        (lat, del)
    }
}

/// The per-kernel inputs of Table IV, derived statically.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DvfsKernel {
    pub blocks: f64,
    pub warps_per_block: f64,
    pub active_warps: f64,
    pub sm_count: f64,
    pub gld_trans: f64,
    pub comp_inst: f64,
    pub shared_trans: f64,
    pub l2_hr: f64,
    /// `o_itrs` of the shared-memory cases: how often a warp repeats the load–sync–compute–sync
    /// period of Fig. 11, the barriers that close an interval with a global read
    /// ([`crate::periods`]); barriers / 2 without instructions to walk (at least 1).
    #[serde(default)]
    pub phases: f64,
    /// Share of the global transactions whose latency a warp waits for: waits on loads per
    /// warp / `gld_trans` (`crate::mlp`), at most 1. The paper's cases are 1: one transaction in
    /// flight per warp.
    #[serde(default = "one")]
    pub exposed: f64,
    /// Share of a 128-byte line a transaction's L2 miss fetches from DRAM: global sectors /
    /// (4 · lines), in [1/4, 1]. The L2 fetches the missing 32-byte sectors, not whole lines,
    /// so a warp whose lanes each touch their own line moves a quarter of the bytes the paper's
    /// `gld_trans × 128` assumes. 1 (full lines, the paper's reading) without sector counts.
    #[serde(default = "one")]
    pub sector_fill: f64,
}

fn one() -> f64 {
    1.0
}

/// Which equation set produced T_active.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Case {
    /// Eq. 9: compute dominated.
    Compute,
    /// Eq. 11: memory dominated.
    Memory,
    /// Eq. 13: few warps, short compute.
    FewWarpsShort,
    /// Eq. 15: few warps, long compute.
    FewWarpsLong,
    /// Eq. 17: infrequent shared accesses.
    SharedInfrequent,
    /// Eq. 18–21: intensive shared accesses.
    SharedIntensive,
    /// No global transactions: pure compute, T_active = avr_comp·#Aw.
    NoMemory,
}

/// Where T_active's cycles go: issuing compute, waiting on shared memory; the rest is global
/// memory (latency and transfer).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ActiveParts {
    pub compute: f64,
    pub shared: f64,
}

impl ActiveParts {
    fn compute(compute: f64) -> Self {
        ActiveParts {
            compute,
            shared: 0.0,
        }
    }
}

/// T_active (core cycles) and its compute and shared parts, Eq. 7–21.
pub fn t_active(p: &DvfsParams, k: &DvfsKernel, c: Clocks) -> (f64, ActiveParts, Case) {
    let (lat, del) = p.agl(c, k.l2_hr, k.sector_fill);
    // Latency a warp waits for per transaction: all of it when each load is waited for alone.
    let lat_t = lat * k.exposed.clamp(0.0, 1.0);
    let aw = k.active_warps.max(1.0);
    let wpb = k.warps_per_block.max(1.0);
    let sh_lat = p.sh_lat.unwrap_or(0.0);
    if k.gld_trans <= 0.0 {
        let compute = p.inst_cycle * k.comp_inst * aw;
        let shared = sh_lat * (k.shared_trans > 0.0) as u8 as f64;
        let parts = ActiveParts { compute, shared };
        return (compute + shared, parts, Case::NoMemory);
    }
    let o = k.gld_trans;
    let avr = p.inst_cycle * k.comp_inst / k.gld_trans; // Eq. 7a/7b
    if k.shared_trans > 0.0 {
        if k.shared_trans >= k.gld_trans {
            // Eqs. 18–21 describe one period; gld_trans and i_itrs there are per period, and the
            // period repeats o_itrs times (the paper's matrixMul: one tile per period, "nearly 3
            // dozens" shared requests in phase 2). Whole-kernel totals in Eqs. 18/20 would make
            // the time grow with the square of the transactions.
            let o = k.phases.max(1.0);
            let g = k.gld_trans / o;
            let i_itrs = k.shared_trans / o;
            let ph1 = avr * 2.0 + del * g * aw + lat + sh_lat; // Eq. 18
            let ph2 = avr * (wpb - 1.0) + (avr + sh_lat) * i_itrs; // Eq. 19
            let ph3 = avr * 2.0 + del * g * wpb + lat + sh_lat; // Eq. 20
            let t = ph1 + (ph2 + ph3) * o; // Eq. 21

            // Each phase's avr terms are compute and its sh_lat terms shared; the rest of phases
            // 1 and 3 is the global load of the period.
            let parts = ActiveParts {
                compute: avr * 2.0 + (avr * (wpb - 1.0) + avr * i_itrs + avr * 2.0) * o,
                shared: sh_lat + (sh_lat * i_itrs + sh_lat) * o,
            };
            return (t, parts, Case::SharedIntensive);
        }
        if avr <= del && avr + sh_lat <= del * (aw - wpb) {
            let t = avr + lat + del * aw * k.gld_trans; // Eq. 17
            return (t, ActiveParts::compute(avr), Case::SharedInfrequent);
        }
    }
    if avr >= del {
        if avr * (aw - 1.0) >= lat_t {
            let comp = avr * aw * o;
            (comp + lat, ActiveParts::compute(comp), Case::Compute) // Eq. 9
        } else {
            let t = avr * (aw - 1.0) + (avr + lat_t) * o; // Eq. 15
            let comp = avr * (aw - 1.0) + avr * o;
            (t, ActiveParts::compute(comp), Case::FewWarpsLong)
        }
    } else if del * (aw - 1.0) >= avr + lat_t {
        // (10b) and (12b) swapped, see the module doc.
        let t = lat + avr + del * aw * o; // Eq. 11, #Aw (see module doc)
        (t, ActiveParts::compute(avr), Case::Memory)
    } else {
        let t = del * aw + lat + avr + (avr + lat_t) * (o - 1.0); // Eq. 13
        (t, ActiveParts::compute(avr * o), Case::FewWarpsShort)
    }
}

/// The equation set in words: what bounds the time and what would move it.
pub fn case_note(p: &DvfsParams, k: &DvfsKernel, c: Clocks, case: Case) -> String {
    let (lat, del) = p.agl(c, k.l2_hr, k.sector_fill);
    let lat_t = lat * k.exposed.clamp(0.0, 1.0);
    let aw = k.active_warps.max(1.0);
    let per_period = if k.gld_trans > 0.0 {
        p.inst_cycle * k.comp_inst / k.gld_trans
    } else {
        p.inst_cycle * k.comp_inst
    };
    let others = per_period * (aw - 1.0);
    let head = format!("case {case:?}, #Aw {}", k.active_warps);
    let why = match case {
        Case::Compute => format!(
            "compute-bound: while a warp waits {lat_t:.0} cycles on a global transaction, the other {:.0} warps of its SM issue {others:.0} cycles of work",
            aw - 1.0
        ),
        Case::Memory => format!(
            "bandwidth-bound: the requests of an SM's {aw:.0} warps queue at the memory {del:.1} cycles apart, so a round of them takes {:.0} cycles, more than the {:.0} cycles of compute and latency a warp spends between two of its {} transactions",
            del * (aw - 1.0),
            per_period + lat_t,
            amount(k.gld_trans)
        ),
        Case::FewWarpsShort | Case::FewWarpsLong => format!(
            "latency-bound: a warp waits {lat_t:.0} cycles for each of its {} global transactions, and the other {:.0} warps of its SM issue only {others:.0} cycles of work meanwhile; more warps per SM, or more loads in flight before a wait (unrolling), would hide it",
            amount(k.gld_trans),
            aw - 1.0
        ),
        Case::SharedInfrequent => format!(
            "bandwidth-bound with infrequent shared accesses: the {aw:.0} warps of each SM queue their global transactions {del:.1} cycles apart"
        ),
        Case::SharedIntensive => format!(
            "periods of global load, barrier and shared-memory work ({} per warp, {} shared transactions each), which the barriers keep from overlapping",
            amount(k.phases.max(1.0)),
            amount(k.shared_trans / k.phases.max(1.0))
        ),
        Case::NoMemory => "compute only: no global transactions".to_string(),
    };
    format!("{head}: {why}")
}

/// A per-warp count as a reader wants it: whole when large, one decimal when small.
fn amount(x: f64) -> String {
    if x >= 100.0 || x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// Share of the SMs' issue capacity the kernel's compute instructions use over `time_s` seconds
/// at clocks `c` (the power model's core activity).
pub fn core_utilisation(p: &DvfsParams, k: &DvfsKernel, c: Clocks, time_s: f64) -> f64 {
    let issue = k.comp_inst * k.warps_per_block * k.blocks * p.inst_cycle / k.sm_count;
    (issue / (time_s * c.core_mhz * 1e6)).min(1.0)
}

/// Share of the DRAM bandwidth `dram_bw` (bytes/s at the run's memory clock) the kernel's L2
/// misses use over `time_s` seconds (the power model's DRAM activity).
pub fn dram_utilisation(k: &DvfsKernel, time_s: f64, dram_bw: f64) -> f64 {
    dram_demand(k, time_s, dram_bw).min(1.0)
}

/// [`dram_utilisation`] before the cap: above 1 the predicted time moves the misses faster than
/// the DRAM's peak bandwidth, i.e. the `dvfs.*` delay constants disagree with `hw.*`.
pub fn dram_demand(k: &DvfsKernel, time_s: f64, dram_bw: f64) -> f64 {
    let bytes =
        k.gld_trans * k.warps_per_block * k.blocks * 128.0 * (1.0 - k.l2_hr) * k.sector_fill;
    bytes / (time_s * dram_bw)
}

/// How the note starts that says a predicted time needs more than the DRAM's peak.
pub const DRAM_OVER_PEAK: &str = "DRAM over its peak";

/// Said when the predicted time needs more than the DRAM's peak: the time is then too short, and
/// the power model sees the DRAM at 100 %.
fn over_peak_note(demand: f64, bw: f64, c: Clocks) -> String {
    format!(
        "{DRAM_OVER_PEAK}: the predicted time moves the L2 misses at {:.0} % of the {:.1} GB/s \
         peak at {} MHz memory, so it is too short; the dvfs.dm_del_base / dvfs.baseline_mhz \
         constants disagree with hw.* for this device (power uses 100 %)",
        demand * 100.0,
        bw / 1e9,
        c.mem_mhz
    )
}

/// Eq. 6 in core cycles, over the active SMs (`#Asm`, Table IV): a grid of fewer blocks than
/// SMs leaves the rest idle, and its blocks take a whole T_active, not a share of it spread
/// over every SM of the chip.
pub fn t_exec(t_active: f64, k: &DvfsKernel) -> f64 {
    let active_sms = k.sm_count.min(k.blocks).max(1.0);
    t_active * (k.warps_per_block * k.blocks / (k.active_warps.max(1.0) * active_sms))
}

/// Derive Table IV's kernel inputs from counts (see the module table).
pub fn kernel_inputs(input: &ModelInput, d: &Device) -> Result<(DvfsKernel, Vec<String>)> {
    let s = &input.stats;
    let launch = input.launch(NAME)?;
    let mut notes = Vec::new();
    let lim = SmLimits::of(d, NAME)?;
    let nsm = lim.sm_count;
    let nb = launch.blocks();
    let wpb = launch.warps_per_block();
    let w = waves(
        &lim,
        nb,
        launch.threads_per_block(),
        s.regs_per_thread.map(u64::from),
        s.shared_bytes_per_block,
    );
    let warps = (nb * wpb).max(1) as f64;
    if nb < nsm {
        notes.push(format!(
            "{nb} of the {nsm} SMs receive a block: the time is one round of their warps (#Asm {nb})"
        ));
    }
    let aw = (w.nth_sm.div_ceil(32)).min(nb.div_ceil(nsm) * wpb).max(1) as f64;

    let global = |f: &Feature| {
        matches!(
            f,
            Feature::Lines {
                space: Space::Global,
                dir: Dir::Load | Dir::Store
            }
        )
    };
    let sectors = |f: &Feature| {
        matches!(
            f,
            Feature::Sectors {
                space: Space::Global,
                dir: Dir::Load | Dir::Store
            }
        )
    };
    let mut gld = s.sum_where(global);
    let sector_count = s.sum_where(sectors);
    let sector_fill = if gld > 0.0 && sector_count > 0.0 {
        (sector_count / 4.0 / gld).clamp(0.25, 1.0)
    } else {
        1.0
    };
    if gld == 0.0 {
        gld = sector_count / 4.0;
    }
    if sector_fill < 1.0 {
        notes.push(format!(
            "DRAM traffic: a transaction's misses fetch {:.1} of a line's 4 sectors",
            4.0 * sector_fill
        ));
    }
    if gld == 0.0 {
        gld = s
            .features
            .iter()
            .map(|(f, v)| match f {
                Feature::Mem {
                    space: Space::Global,
                    bits,
                    gran,
                    ..
                } => {
                    let per_warp = if *gran == Granularity::Warp {
                        *v
                    } else {
                        v / 32.0
                    };
                    per_warp * (32.0 * *bits as f64 / 8.0 / 128.0).max(1.0)
                }
                _ => 0.0,
            })
            .sum();
        if gld > 0.0 {
            notes
                .push("no line/sector counts: global transactions estimated as unit-stride".into());
        }
    }
    let op = |g: Granularity| {
        s.sum_where(|f| {
            matches!(f, Feature::Op { kind, gran, .. }
                if *gran == g && !matches!(kind, OpKind::Control | OpKind::Barrier))
        })
    };
    let mut comp = op(Granularity::Warp);
    if comp == 0.0 {
        comp = op(Granularity::Thread) / 32.0;
    }
    let mut sh = s.sum_where(|f| matches!(f, Feature::SharedWavefronts { .. }));
    if sh == 0.0 {
        sh = s.sum_where(|f| {
            matches!(
                f,
                Feature::Mem {
                    space: Space::Shared,
                    gran: Granularity::Warp,
                    ..
                }
            )
        });
    }
    let mut bar = s.sum_where(|f| {
        matches!(
            f,
            Feature::Barrier {
                gran: Granularity::Warp
            }
        )
    });
    if bar == 0.0 {
        bar = s.sum_where(|f| {
            matches!(
                f,
                Feature::Barrier {
                    gran: Granularity::Thread
                }
            )
        }) / 32.0;
    }
    let atomics = s.sum_where(|f| {
        matches!(
            f,
            Feature::Mem {
                space: Space::Global | Space::Generic,
                dir: Dir::Atomic,
                gran: Granularity::Warp,
                ..
            }
        )
    });
    if atomics > 0.0 {
        // Wang & Chu's inputs have no atomics: they are issued like any instruction here.
        // Lanes that all update one address serialise at the L2: how many such updates there
        // are says how far off the issue-slot time may be.
        let one_address = s.sum_where(|f| {
            matches!(
                f,
                Feature::Mem {
                    space: Space::Global | Space::Generic,
                    dir: Dir::Atomic,
                    gran: Granularity::Thread,
                    stride: StrideClass::Uniform,
                    ..
                }
            )
        });
        let same = if one_address > 0.0 {
            format!(
                "; in these counts {one_address:.0} of their thread updates go to an address \
                 shared by the whole warp, which the L2 applies one after another, so the time \
                 may be far too short"
            )
        } else {
            String::new()
        };
        notes.push(format!(
            "global atomics: {atomics:.0} warp instructions timed as issue slots only; their \
             round trip to the L2, and the serialisation of atomics to one address, are not \
             modelled{same}"
        ));
    }
    let phases = launch_load_periods(&input.blocks, &s.block_execs).unwrap_or(bar / 2.0);
    let traffic = 32.0 * sector_count;
    let l2_hr = l2_hit_rate(input, d, traffic, NAME, &mut notes)?;
    let exposed = match launch_mlp(&input.blocks, &s.block_execs, s.regs_per_thread) {
        _ if gld == 0.0 => 1.0,
        Some((_, 0.0)) => {
            notes.push(
                "memory-level parallelism: no global load is waited for (stores only)".into(),
            );
            0.0
        }
        Some((loads, waits)) => {
            let exposed = (waits / gld).min(1.0);
            notes.push(format!(
                "memory-level parallelism: {:.2} global loads per wait on them, {:.2} transactions \
                 per wait; a warp waits for the latency of {:.0} % of its transactions",
                loads / waits,
                gld / waits,
                exposed * 100.0
            ));
            exposed
        }
        None => {
            notes.push(
                "memory-level parallelism unknown (no instructions to walk): every transaction's \
                 latency is waited for"
                    .into(),
            );
            1.0
        }
    };
    Ok((
        DvfsKernel {
            blocks: nb as f64,
            warps_per_block: wpb as f64,
            active_warps: aw,
            sm_count: nsm as f64,
            gld_trans: gld / warps,
            comp_inst: comp / warps,
            shared_trans: sh / warps,
            l2_hr,
            phases: (phases / warps).max(1.0),
            exposed,
            sector_fill,
        },
        notes,
    ))
}

/// The Wang & Chu model; `params` overrides the device's constants (a calibration).
#[derive(Clone, Debug, Default)]
pub struct DvfsModel {
    pub params: Option<DvfsParams>,
}

impl Model for DvfsModel {
    fn name(&self) -> &'static str {
        NAME
    }

    fn predict(&self, input: &ModelInput, d: &Device, clocks: Clocks) -> Result<Prediction> {
        let p = match &self.params {
            Some(p) => p.clone(),
            None => DvfsParams::from_device(d)?,
        };
        let (k, mut notes) = kernel_inputs(input, d)?;
        if k.shared_trans > 0.0 && p.sh_lat.is_none() {
            return Err(d.missing("latency.shared", NAME).into());
        }
        let (ta, parts, case) = t_active(&p, &k, clocks);
        let scale = t_exec(1.0, &k) * p.time_scale / (clocks.core_mhz * 1e6);
        let time_s = ta * scale;
        let mut breakdown = BTreeMap::new();
        let compute = parts.compute.min(ta);
        let shared = parts.shared.min(ta - compute);
        breakdown.insert("compute".to_string(), compute * scale);
        if shared > 0.0 {
            breakdown.insert("shared".to_string(), shared * scale);
        }
        let level = if k.l2_hr > 0.5 { "l2" } else { "dram" };
        // In the few-warps cases the time is one warp's chain of waits, not a full memory
        // system: the part is latency, and naming it the level alone would read as bandwidth.
        let mem_key = match case {
            Case::FewWarpsShort | Case::FewWarpsLong => format!("{level} latency"),
            _ => level.to_string(),
        };
        breakdown.insert(
            mem_key.to_string(),
            (ta - compute - shared).max(0.0) * scale,
        );
        // The part that takes the most time, as in the other models: the equation set (`case`,
        // in the notes) says how the parts overlap, not which one dominates.
        let bottleneck = largest(&breakdown);
        let mut activity = BTreeMap::new();
        activity.insert("sp".into(), core_utilisation(&p, &k, clocks, time_s));
        if let Ok(bw) = d.dram_bandwidth(clocks.mem_mhz, NAME) {
            let demand = dram_demand(&k, time_s, bw);
            if demand > 1.0 + 1e-9 {
                notes.push(over_peak_note(demand, bw, clocks));
            }
            activity.insert("dram".into(), demand.min(1.0));
        }
        notes.push(case_note(&p, &k, clocks, case));
        let calibrated = d
            .dvfs
            .dm_lat_fit
            .as_ref()
            .is_some_and(|s| s.source.contains("Wang & Chu"))
            && d.name == "gtx-980";
        let error_band = if calibrated {
            ErrorBand {
                rel: 0.16,
                source: "Wang & Chu 2017 §VI-B: every prediction within 16 % (MAPE 3.5 %) on the GTX 980, with profiled counters".into(),
            }
        } else {
            ErrorBand::unvalidated(
                "not validated with these constants on this device (see the dvfs.* sources)",
            )
        };
        Ok(Prediction {
            model: NAME.into(),
            clocks,
            time_s,
            power_w: None,
            energy_j: None,
            breakdown,
            bottleneck,
            error_band,
            activity,
            notes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gtx980() -> DvfsParams {
        DvfsParams {
            baseline: Clocks::new(700.0, 700.0),
            dm_lat_a: 222.78,
            dm_lat_b: 277.32,
            dm_del_base: 9.31,
            l2_lat: 222.0,
            l2_del: 1.0,
            sh_lat: Some(28.0),
            inst_cycle: 4.0,
            time_scale: 1.0,
        }
    }

    /// Table II (Wang & Chu): minimum DRAM latency, core fixed at 400 MHz (the seed's reading of
    /// the table's Core column), memory 400 … 1000 MHz.
    #[test]
    fn wang_chu_table_ii_from_eq4() {
        let p = gtx980();
        let table = [
            (400.0, 500.0),
            (500.0, 455.5),
            (600.0, 425.8),
            (700.0, 404.6),
            (800.0, 388.7),
            (900.0, 376.3),
            (1000.0, 366.4),
        ];
        for (mem, cycles) in table {
            let l = p.dm_lat(Clocks::new(400.0, mem));
            println!("Table II mem {mem}: Eq. 4 {l:.2} vs printed {cycles}");
            assert!((l - cycles).abs() <= 0.15, "mem {mem}: {l} vs {cycles}");
        }
        assert!((p.dm_lat(Clocks::new(700.0, 700.0)) - 500.10).abs() < 1e-9);
        assert!((p.dm_lat(Clocks::new(1000.0, 400.0)) - 834.27).abs() < 1e-9);
    }

    #[test]
    fn a_grid_smaller_than_the_chip_takes_one_round_on_the_sms_it_uses() {
        let blocks = |n: f64| DvfsKernel {
            blocks: n,
            active_warps: 8.0,
            ..toy(100.0)
        };
        // One block per SM, on 1, 8 or all 16 SMs: one round of 8 warps each time.
        for n in [1.0, 8.0, 16.0] {
            assert_eq!(t_exec(1000.0, &blocks(n)), 1000.0, "{n} blocks");
        }
        // 32 blocks at one resident block per SM: two rounds.
        assert_eq!(t_exec(1000.0, &blocks(32.0)), 2000.0);
    }

    fn toy(comp: f64) -> DvfsKernel {
        DvfsKernel {
            blocks: 4096.0,
            warps_per_block: 8.0,
            active_warps: 64.0,
            sm_count: 16.0,
            gld_trans: 12.0,
            comp_inst: comp,
            shared_trans: 0.0,
            l2_hr: 0.0,
            phases: 1.0,
            exposed: 1.0,
            sector_fill: 1.0,
        }
    }

    /// Eq. 21 repeats one period: a kernel with twice the periods (each with the same
    /// transactions, shared requests and compute) takes about twice as long, not four times.
    #[test]
    fn shared_intensive_time_is_linear_in_the_periods() {
        let p = gtx980();
        let k = |periods: f64| DvfsKernel {
            gld_trans: 4.0 * periods,
            comp_inst: 60.0 * periods,
            shared_trans: 34.0 * periods,
            phases: periods,
            ..toy(0.0)
        };
        let c = Clocks::new(700.0, 700.0);
        let (t1, _, case) = t_active(&p, &k(64.0), c);
        assert_eq!(case, Case::SharedIntensive);
        let (t2, _, _) = t_active(&p, &k(128.0), c);
        let ratio = t2 / t1;
        assert!((1.9..2.01).contains(&ratio), "T(128)/T(64) = {ratio}");
    }

    /// Eq. 18–21 split: the avr terms are compute, the sh_lat terms shared, and what remains is
    /// exactly the periods' global loads (del·g·#Aw + lat, then del·g·#Wpb + lat per period).
    #[test]
    fn shared_intensive_parts_leave_the_global_loads() {
        let p = gtx980();
        let k = DvfsKernel {
            gld_trans: 8.0,
            comp_inst: 120.0,
            shared_trans: 68.0,
            phases: 2.0,
            ..toy(0.0)
        };
        let c = Clocks::new(700.0, 700.0);
        let (t, parts, case) = t_active(&p, &k, c);
        assert_eq!(case, Case::SharedIntensive);
        let (lat, del) = p.agl(c, k.l2_hr, k.sector_fill);
        let g = k.gld_trans / k.phases;
        let global =
            del * g * k.active_warps + lat + (del * g * k.warps_per_block + lat) * k.phases;
        let rest = t - parts.compute - parts.shared;
        assert!((rest - global).abs() < 1e-9 * t, "{rest} vs {global}");
        let sh = p.sh_lat.unwrap();
        assert!((parts.shared - sh * (1.0 + (34.0 + 1.0) * 2.0)).abs() < 1e-9);
    }

    /// The seed's §7.3 toy memory-bound kernel (reading B). Its DRAM queue is saturated
    /// (agl_del·(#Aw − 1) = 586.5 ≥ avr_comp + agl_lat = 505.4 cycles at 700/700), so Eq. 11
    /// applies: T_active = 505.43 + 9.31·64·12 = 7655.51. The seed's 6661.04 (Eq. 13) comes from
    /// (10b)/(12b) as printed, which the module doc explains are swapped.
    #[test]
    fn toy_memory_bound_kernel() {
        let p = gtx980();
        let k = toy(16.0);
        let (t, _, case) = t_active(&p, &k, Clocks::new(700.0, 700.0));
        assert_eq!(case, Case::Memory);
        assert!((t - 7655.51).abs() < 0.01, "{t}");
        assert_eq!(t_exec(1.0, &k), 32.0);
        let (t, _, case) = t_active(&p, &k, Clocks::new(1000.0, 400.0));
        assert_eq!(case, Case::Memory);
        // 834.27 + 5.333 + 23.275·64·12
        assert!((t - 18714.80).abs() < 0.01, "{t}");
        let (t, _, case) = t_active(&p, &k, Clocks::new(400.0, 1000.0));
        assert_eq!(case, Case::FewWarpsLong);
        assert!((t - 4797.18).abs() < 0.01, "{t}");
    }

    /// The case note gives the numbers its equation set compares: a bandwidth-bound round of
    /// requests against a warp's period, and for the latency chain the wait against the other
    /// warps' work.
    #[test]
    fn the_case_note_says_what_bounds_the_time() {
        let p = gtx980();
        let k = toy(16.0);
        let c = Clocks::new(700.0, 700.0);
        let note = case_note(&p, &k, c, t_active(&p, &k, c).2);
        // 9.31 cycles apart × 63 warps = 587; (16·4/12 = 5.3) + 500.1 = 505
        assert!(
            note.starts_with("case Memory, #Aw 64: bandwidth-bound")
                && note.contains("9.3 cycles apart")
                && note.contains("takes 587 cycles")
                && note.contains("more than the 505 cycles"),
            "{note}"
        );
        let c = Clocks::new(400.0, 1000.0);
        let note = case_note(&p, &k, c, t_active(&p, &k, c).2);
        // dm_lat at r = 0.4: 222.78·0.4 + 277.32 = 366; 63 warps × 5.33 = 336 cycles of work
        assert!(
            note.contains("latency-bound: a warp waits 366 cycles for each of its 12 global")
                && note.contains("issue only 336 cycles"),
            "{note}"
        );
    }

    /// Crossing between Eq. 11 and Eq. 13 (by raising the latency the compute period adds to)
    /// moves T_active continuously, which needs #Aw in Eq. 11.
    #[test]
    fn memory_cases_meet_at_their_boundary() {
        let p = gtx980();
        // 55 active warps put the boundary inside avr ≤ agl_del (cases 2 and 3 only).
        let with = |comp: f64| DvfsKernel {
            active_warps: 55.0,
            ..toy(comp)
        };
        let k = with(0.0);
        let c = Clocks::new(700.0, 700.0);
        let (lat, del) = p.agl(c, 0.0, 1.0);
        // Boundary of (10b)/(12b): avr + lat = del·(#Aw − 1); choose comp_inst to sit on it.
        let avr_star = del * (k.active_warps - 1.0) - lat;
        let comp_star = avr_star * k.gld_trans / p.inst_cycle;
        assert!(avr_star > 0.0 && avr_star < del);
        let below = t_active(&p, &with(comp_star * 0.999), c);
        let above = t_active(&p, &with(comp_star * 1.001), c);
        assert_eq!(below.2, Case::Memory);
        assert_eq!(above.2, Case::FewWarpsShort);
        let jump = (above.0 - below.0).abs() / below.0;
        assert!(jump < 0.02, "jump {jump}: {} vs {}", below.0, above.0);
        // As printed (#Wpb), Eq. 11 would drop to less than a quarter at the same point.
        let printed = lat + avr_star + del * k.warps_per_block * k.gld_trans;
        assert!(printed / above.0 < 0.25, "{printed}");
    }

    /// Whatever the case, T_active is at least what the DRAM queue needs to serve the SM's
    /// requests (agl_del·(#Aw − 1)·o_itrs) and at least one warp's chain of compute and the
    /// latency it waits for ((avr_comp + agl_lat·exposed)·o_itrs). With (10b)/(12b) as printed
    /// the first bound fails (the §7.3 toy: 6661 < 7039 cycles).
    #[test]
    fn every_case_respects_the_dram_queue_and_the_warp_chain() {
        let p = gtx980();
        let mut checked = 0;
        for comp in [0.0, 4.0, 16.0, 40.0, 100.0, 400.0, 960.0, 4000.0] {
            for aw in [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 55.0, 64.0] {
                for gld in [1.0, 3.0, 12.0, 100.0] {
                    for (hr, exposed) in [(0.0, 1.0), (0.5, 0.25), (0.975, 1.0), (0.975, 0.125)] {
                        for (core, mem) in [(700.0, 700.0), (1000.0, 400.0), (400.0, 1000.0)] {
                            let k = DvfsKernel {
                                active_warps: aw,
                                gld_trans: gld,
                                l2_hr: hr,
                                exposed,
                                ..toy(comp * gld / 12.0)
                            };
                            let c = Clocks::new(core, mem);
                            let (t, _, case) = t_active(&p, &k, c);
                            let (lat, del) = p.agl(c, hr, 1.0);
                            let avr = p.inst_cycle * k.comp_inst / k.gld_trans;
                            let queue = del * (aw - 1.0) * gld;
                            let chain = (avr + lat * exposed) * gld;
                            let what = format!(
                                "{case:?} comp {comp} aw {aw} gld {gld} hr {hr} exposed {exposed} at {core}/{mem}"
                            );
                            assert!(t >= queue * (1.0 - 1e-12), "{what}: {t} < queue {queue}");
                            assert!(t >= chain * (1.0 - 1e-12), "{what}: {t} < chain {chain}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(checked, 8 * 8 * 4 * 4 * 3);
    }

    /// A warp with eight loads per wait (`exposed` 1/8) shortens its latency chain eightfold
    /// when the chain is what limits it (L2 hits, few warps), down to the L2's queue, and leaves
    /// a saturated DRAM queue as it was.
    #[test]
    fn loads_in_flight_shorten_the_latency_chain_not_the_dram_queue() {
        let p = gtx980();
        let c = Clocks::new(700.0, 700.0);
        let cached = |exposed: f64| DvfsKernel {
            l2_hr: 0.975,
            gld_trans: 96.0,
            exposed,
            ..toy(16.0)
        };
        let (one, _, case1) = t_active(&p, &cached(1.0), c);
        let (eight, _, case8) = t_active(&p, &cached(0.125), c);
        assert_eq!(case1, Case::FewWarpsShort);
        // An eighth of the chain is below the L2's queue, which then limits it.
        assert_eq!(case8, Case::Memory);
        assert!(eight < one / 2.5, "{eight} vs {one}");
        let dram = |exposed: f64| DvfsKernel {
            exposed,
            ..toy(16.0)
        };
        let (q1, _, qc) = t_active(&p, &dram(1.0), c);
        let (q8, _, _) = t_active(&p, &dram(0.125), c);
        assert_eq!(qc, Case::Memory);
        assert_eq!(q1, q8);
    }

    /// §7.4 toy compute-bound kernel: Eq. 9 everywhere, time ∝ 1/core_f.
    #[test]
    fn toy_compute_bound_kernel() {
        let p = gtx980();
        let k = toy(960.0);
        for (c, m, want) in [
            (700.0, 700.0, 246260.10),
            (1000.0, 400.0, 246594.27),
            (400.0, 1000.0, 246126.43),
        ] {
            let (t, _, case) = t_active(&p, &k, Clocks::new(c, m));
            assert_eq!(case, Case::Compute);
            assert!((t - want).abs() < 0.01, "{c},{m}: {t}");
        }
    }
}
