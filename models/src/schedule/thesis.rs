//! The thesis' (Alavani 2023) closed forms: global-latency regression (Table 3.3), launch
//! overhead (§3.3), throughput curves TP = a(b − e^(−c·n)) (Table 4.5), the penalties of
//! Eqs. 4.10–4.12, the ILP/TLP delay of Eq. 4.3, and the wave/occupancy arithmetic of
//! Algorithms 8 and 10.
//!
//! Choices where the thesis contradicts itself (each tested below):
//! - Table 3.3 is discontinuous and leaves breakpoints open: piece i covers lo ≤ n < hi, the
//!   last piece is extrapolated above its range.
//! - Eq. 4.3 uses `ILP·TLP ≤ peakWarps` for the first branch (the printed equation; the Java
//!   uses `<`), and keeps the extra `/peakWarps` of the second branch, as printed and in the Java.
//! - Waves (Alg. 8 [NOTE] d): `⌈nTh_sched / nTh_sm⌉` with the occupancy-limited nTh_sm, so
//!   6144 threads over 2048 per SM is 3 waves, as the PFEA example states.
//! - nTh_sched = ⌈nB/nSM⌉·nT_b: blocks go round-robin, the busiest SM sets the time (equal to
//!   the printed ⌈nB/nSM·nT_b⌉ whenever nSM divides nB).
//! - Alg. 8 line 7 ([NOTE] c) compares blocks per SM (nTh_sm / nT_b) with nB^M.

/// Table 3.3: L(gm) at `threads` = nT_b·nB from `[lo, hi, a, b]` pieces.
pub fn global_latency(pieces: &[[f64; 4]], threads: f64) -> Option<f64> {
    let piece = pieces
        .iter()
        .find(|p| threads >= p[0] && threads < p[1])
        .or_else(|| pieces.iter().rfind(|p| threads >= p[1]))
        .or_else(|| pieces.first())?;
    Some(piece[2] * threads + piece[3])
}

/// §3.3: l_overhead = a·threads + b.
pub fn launch_overhead(ab: [f64; 2], threads: f64) -> f64 {
    ab[0] * threads + ab[1]
}

/// Table 4.5: TP(n) = a·(b − e^(−c·n)).
pub fn throughput(abc: [f64; 3], n: f64) -> f64 {
    abc[0] * (abc[1] - (-abc[2] * n).exp())
}

/// Eq. 4.3: delay of one compute instruction.
pub fn delay_eq43(lat: f64, ilp: f64, tlp: f64, peak_warps: f64, warp: f64, tp: f64) -> f64 {
    let par = ilp * tlp;
    if par <= peak_warps {
        lat / par
    } else {
        lat / (par * peak_warps) + warp / tp
    }
}

/// Eq. 4.4: delay of one memory instruction with penalty `pm`.
pub fn delay_eq44(lat: f64, ilp: f64, tlp: f64, peak_warps: f64, pm: f64) -> f64 {
    let par = ilp * tlp;
    if par <= peak_warps {
        lat / par
    } else {
        lat / par + pm
    }
}

/// §4.3: ILP of a block = instructions / independent dispatch cycles, allotting instructions to
/// `dispatch` slots per cycle in order and opening a new cycle on a dependence.
pub fn ilp(deps: &[Vec<usize>], dispatch: usize) -> f64 {
    if deps.is_empty() {
        return 1.0;
    }
    let mut cycles = 1usize;
    let mut cycle_of = vec![0usize; deps.len()];
    let mut in_cycle = 0usize;
    for (i, d) in deps.iter().enumerate() {
        let dependent = d.iter().any(|&u| cycle_of[u] == cycles);
        if dependent || in_cycle == dispatch.max(1) {
            cycles += 1;
            in_cycle = 0;
        }
        cycle_of[i] = cycles;
        in_cycle += 1;
    }
    deps.len() as f64 / cycles as f64
}

/// Launch limits of one SM.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SmLimits {
    pub sm_count: u64,
    pub max_threads: u64,
    pub max_blocks: Option<u64>,
    pub regs: Option<u64>,
    pub shared_bytes: Option<u64>,
    /// Register allocation: warp size, allocation unit per warp, and the warp schedulers that
    /// each hold an equal share of the register file. Without the unit, registers are counted
    /// per thread with no rounding.
    pub reg_alloc: Option<RegAlloc>,
}

/// How an SM hands registers to warps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegAlloc {
    pub warp_size: u64,
    pub unit: u64,
    pub partitions: u64,
}

impl RegAlloc {
    fn per_warp(&self, regs_per_thread: u64) -> u64 {
        (regs_per_thread * self.warp_size).next_multiple_of(self.unit.max(1))
    }

    fn warps(&self, threads_per_block: u64) -> u64 {
        threads_per_block.div_ceil(self.warp_size.max(1))
    }
}

impl SmLimits {
    /// The device's limits; `model` names who needs the two that are required.
    pub fn of(d: &crate::device::Device, model: &str) -> crate::model::Result<SmLimits> {
        let hw = &d.hw;
        Ok(SmLimits {
            sm_count: *d.need(&hw.sm_count, "hw.sm_count", model)? as u64,
            max_threads: *d.need(&hw.max_threads_per_sm, "hw.max_threads_per_sm", model)? as u64,
            max_blocks: hw.max_blocks_per_sm.as_ref().map(|v| v.value as u64),
            regs: hw.regs_per_sm.as_ref().map(|v| v.value as u64),
            shared_bytes: hw.shared_bytes_per_sm.as_ref().map(|v| v.value),
            reg_alloc: hw.reg_alloc_unit.as_ref().map(|u| RegAlloc {
                warp_size: hw.warp_size.as_ref().map_or(32, |w| w.value as u64),
                unit: u.value as u64,
                partitions: hw
                    .warp_schedulers_per_sm
                    .as_ref()
                    .map_or(1, |w| w.value as u64),
            }),
        })
    }

    /// Registers one block is given: each warp's `regs × warp size` rounded up to the
    /// allocation unit. Without allocation data, `regs × threads`.
    pub fn regs_per_block(&self, threads_per_block: u64, regs_per_thread: u64) -> u64 {
        match self.reg_alloc {
            Some(a) => a.warps(threads_per_block) * a.per_warp(regs_per_thread),
            None => regs_per_thread * threads_per_block,
        }
    }

    /// Registers a launch checks a block against: [`Self::regs_per_block`] with its warps
    /// rounded up to whole rounds over the schedulers, as the hardware checks the per-block
    /// limit (the occupancy calculator's "hardware check").
    pub fn regs_checked_per_block(&self, threads_per_block: u64, regs_per_thread: u64) -> u64 {
        match self.reg_alloc {
            Some(a) => {
                let warps = a.warps(threads_per_block);
                a.per_warp(regs_per_thread) * warps.next_multiple_of(a.partitions.max(1))
            }
            None => regs_per_thread * threads_per_block,
        }
    }

    /// Whole blocks of `threads_per_block` threads one SM holds at once, under its thread, block,
    /// register and shared-memory limits (the limits the device's profile gives); 0 where one
    /// block exceeds a limit.
    pub fn resident_blocks(
        &self,
        threads_per_block: u64,
        regs_per_thread: Option<u64>,
        shared_per_block: Option<u64>,
    ) -> u64 {
        let ntb = threads_per_block.max(1);
        // threads are held in whole warps: a block of 200 takes 7 warps' slots (224)
        let warp = self.reg_alloc.map_or(32, |a| a.warp_size).max(1);
        let mut blocks = (self.max_threads / warp) / ntb.div_ceil(warp);
        if let Some(mb) = self.max_blocks {
            blocks = blocks.min(mb);
        }
        if let Some(b) = regs_per_thread.and_then(|rt| self.blocks_by_registers(ntb, rt)) {
            blocks = blocks.min(b);
        }
        if let (Some(s), Some(sb)) = (self.shared_bytes, shared_per_block) {
            if let Some(q) = s.checked_div(sb) {
                blocks = blocks.min(q);
            }
        }
        blocks
    }

    /// Whole blocks the register file holds at once. With allocation data, a warp's registers
    /// come from one scheduler's share of the file, so a share holds whole warps only.
    pub fn blocks_by_registers(&self, threads_per_block: u64, regs_per_thread: u64) -> Option<u64> {
        let file = self.regs?;
        if regs_per_thread == 0 {
            return None;
        }
        let ntb = threads_per_block.max(1);
        Some(match self.reg_alloc {
            Some(a) => {
                let parts = a.partitions.max(1);
                let warps = (file / parts / a.per_warp(regs_per_thread)) * parts;
                warps / a.warps(ntb)
            }
            None => file / (regs_per_thread * ntb),
        })
    }
}

/// Algorithm 8's geometry: threads per SM over the run, threads per wave, waves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Waves {
    pub nth_sched: u64,
    pub nth_sm: u64,
    pub waves: u64,
    /// nth_sm / max threads per SM: the theoretical occupancy.
    pub occupancy: f64,
}

pub fn waves(
    lim: &SmLimits,
    blocks: u64,
    threads_per_block: u64,
    regs_per_thread: Option<u64>,
    shared_per_block: Option<u64>,
) -> Waves {
    let ntb = threads_per_block.max(1);
    let nth_sched = blocks.div_ceil(lim.sm_count.max(1)) * ntb;
    // a launch over a limit still runs one block at a time here (its failure is noted elsewhere)
    let blocks_sm = lim
        .resident_blocks(ntb, regs_per_thread, shared_per_block)
        .max(1);
    let nth_sm = (blocks_sm * ntb).min(nth_sched.max(1)).max(1);
    let waves = nth_sched.div_ceil(nth_sm).max(1);
    Waves {
        nth_sched,
        nth_sm,
        waves,
        occupancy: (blocks_sm * ntb) as f64 / lim.max_threads.max(1) as f64,
    }
}

/// Eq. 4.10: gm_penalty = (threads / R[LSU]) · (access_sz / TP(gm)) · nGM.
pub fn gm_penalty(threads: f64, lsu: f64, access_sz: f64, tp: f64, ngm: f64) -> f64 {
    if tp <= 0.0 {
        return 0.0;
    }
    threads / lsu * (access_sz / tp) * ngm
}

/// Eq. 4.11: sm_penalty = (threads / (R[LSU]·nSM)) · (access_sz / TP(sm)) · nShM.
pub fn sm_penalty(threads: f64, lsu: f64, nsm: f64, access_sz: f64, tp: f64, nshm: f64) -> f64 {
    if tp <= 0.0 {
        return 0.0;
    }
    threads / (lsu * nsm) * (access_sz / tp) * nshm
}

/// Eq. 4.12: cm_penalty = (threads · nGM) / ((waves · L2_sz) / access_sz) · L(gm).
pub fn cm_penalty(threads: f64, ngm: f64, waves: f64, l2: f64, access_sz: f64, lgm: f64) -> f64 {
    threads * ngm / (waves * l2 / access_sz) * lgm
}

#[cfg(test)]
mod tests {
    use super::*;

    const K20_PIECES: [[f64; 4]; 4] = [
        [0.0, 4096.0, 0.02828, 220.0],
        [4096.0, 24576.0, 0.004780, 251.7],
        [24576.0, 991232.0, 0.0001679, 307.8],
        [991232.0, 2203648.0, -0.00002529, 501.8],
    ];

    #[test]
    fn global_latency_regression_k20() {
        let l = global_latency(&K20_PIECES, 3328.0).unwrap();
        assert!((l - 314.11584).abs() < 1e-9, "{l}");
        assert_eq!(format!("{l:.3}"), "314.116");
        assert!((global_latency(&K20_PIECES, 16384.0).unwrap() - 330.01552).abs() < 1e-6);
        assert!((global_latency(&K20_PIECES, 100000.0).unwrap() - 324.59).abs() < 1e-6);
        assert!((global_latency(&K20_PIECES, 1048576.0).unwrap() - 475.28175).abs() < 1e-3);
        // Breakpoint 4096 belongs to the second piece (documented choice).
        assert!((global_latency(&K20_PIECES, 4096.0).unwrap() - 271.27888).abs() < 1e-9);
    }

    #[test]
    fn launch_overhead_k20() {
        let l = launch_overhead([0.00002, 1.4489], 13.0 * 256.0);
        assert!((l - 1.51546).abs() < 1e-12, "{l}");
        assert!((launch_overhead([0.00002, 1.4489], 1024.0 * 1024.0) - 22.42042).abs() < 1e-9);
    }

    #[test]
    fn throughput_k20_global() {
        let tp = throughput([76363.8, 1.04, 0.00021342], 1000.0);
        assert!((tp - 76363.8 * (1.04 - (-0.21342f64).exp())).abs() < 1e-9);
        assert!((tp - 17730.39).abs() < 0.01, "{tp}");
    }

    #[test]
    fn eq43_k20_addf() {
        // L = 9, ILP = 1, TLP = 64 > PW = 36: 9/(64·36) + 32/122.
        let d = delay_eq43(9.0, 1.0, 64.0, 36.0, 32.0, 122.0);
        assert!((d - 0.266201).abs() < 1e-6, "{d}");
        // At or below peak warps the plain L/(ILP·TLP) applies.
        assert_eq!(delay_eq43(9.0, 1.0, 36.0, 36.0, 32.0, 122.0), 0.25);
    }

    #[test]
    fn ilp_packs_independent_instructions() {
        // 4 independent instructions, 2 dispatch units: 2 cycles, ILP 2.
        assert_eq!(ilp(&[vec![], vec![], vec![], vec![]], 2), 2.0);
        // A chain: every instruction opens a new cycle.
        assert_eq!(ilp(&[vec![], vec![0], vec![1]], 2), 1.0);
    }

    #[test]
    fn pfea_example_three_waves() {
        // nn kernel on K20: 78 blocks × 1024 threads, 13 SMs, 2048 threads/SM.
        let lim = SmLimits {
            sm_count: 13,
            max_threads: 2048,
            max_blocks: Some(16),
            regs: None,
            shared_bytes: None,
            reg_alloc: None,
        };
        let w = waves(&lim, 78, 1024, None, None);
        assert_eq!(w.nth_sched, 6144);
        assert_eq!(w.nth_sm, 2048);
        assert_eq!(w.waves, 3);
        // comp_inst_sm = waves × comp_inst_kernel = 3 × 19.
        assert_eq!(w.waves * 19, 57);
    }

    #[test]
    fn registers_limit_occupancy() {
        let lim = SmLimits {
            sm_count: 13,
            max_threads: 2048,
            max_blocks: Some(16),
            regs: Some(65536),
            shared_bytes: Some(49152),
            reg_alloc: None,
        };
        // 64 regs × 256 threads = 16384 per block: 4 blocks fit, 1024 threads per SM.
        let w = waves(&lim, 78, 256, Some(64), None);
        assert_eq!(w.nth_sm, 1024);
        assert_eq!(w.occupancy, 0.5);
        // 20 KiB shared per block: 2 blocks.
        let w = waves(&lim, 78, 256, None, Some(20480));
        assert_eq!(w.nth_sm, 512);
    }

    /// The occupancy calculator's rule: 33 registers × 32 lanes = 1056, given as 1280 (five
    /// units of 256); a quarter of the file (16384) holds 12 such warps, the SM 48, so six
    /// 8-warp blocks, where 33 × 256 per block alone would fit seven.
    #[test]
    fn registers_are_given_to_warps_in_allocation_units() {
        let mut lim = SmLimits {
            sm_count: 24,
            max_threads: 2048,
            max_blocks: Some(32),
            regs: Some(65536),
            shared_bytes: None,
            reg_alloc: None,
        };
        assert_eq!(lim.blocks_by_registers(256, 33), Some(7));
        assert_eq!(lim.regs_per_block(256, 33), 8448);
        lim.reg_alloc = Some(RegAlloc {
            warp_size: 32,
            unit: 256,
            partitions: 4,
        });
        assert_eq!(lim.blocks_by_registers(256, 33), Some(6));
        assert_eq!(lim.regs_per_block(256, 33), 10240);
        // 3 warps are checked as 4: 1280 × 4
        assert_eq!(lim.regs_per_block(96, 33), 3840);
        assert_eq!(lim.regs_checked_per_block(96, 33), 5120);
        assert_eq!(waves(&lim, 1000, 256, Some(33), None).nth_sm, 6 * 256);
        // a multiple of 8 registers is already whole units: 32 × 32 = 1024
        assert_eq!(lim.blocks_by_registers(256, 32), Some(8));
        // a share holds whole warps: 255 registers → 8192 per warp, two per share, 8 warps;
        // a 96-thread block (3 warps) fits twice
        assert_eq!(lim.blocks_by_registers(96, 255), Some(2));
        assert_eq!(lim.blocks_by_registers(256, 0), None);
    }
}
