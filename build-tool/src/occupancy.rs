//! The CUDA occupancy API's answers for a kernel on a device, for host code that sizes its
//! launches with it: `cudaOccupancyMaxActiveBlocksPerMultiprocessor` and
//! `cudaOccupancyMaxPotentialBlockSize` (which tries every block size from the largest the
//! kernel may use down, a warp at a time, and keeps the first with the most resident threads,
//! as the CUDA runtime's header documents and implements it).
//!
//! The limits are the device profile's and the kernel's registers and static shared memory
//! ptxas's, the same that kerncast's own occupancy uses, so a launch sized this way is predicted
//! with the occupancy it was sized for.

use crate::lower::Resources;
use kerncast_models::schedule::thesis::SmLimits;
use kerncast_models::Device;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// One kernel's resources against one device's limits.
#[derive(Clone, Debug)]
pub struct KernelOnDevice {
    limits: SmLimits,
    sm_count: u64,
    warp_size: u64,
    regs_per_thread: u64,
    static_shared: u64,
    /// The most threads a block of this kernel may have: the device's limit, the register file's
    /// per-block limit at this kernel's registers, and its `__launch_bounds__` (`.maxntid`).
    max_threads_per_block: u64,
    shared_per_block: Option<u64>,
}

impl KernelOnDevice {
    /// `resources` are ptxas's for the kernel (without them the registers are unknown and so
    /// is every answer); `max_ntid` its `__launch_bounds__`, where it has them.
    pub fn new(
        d: &Device,
        resources: Result<&Resources, String>,
        max_ntid: Option<u64>,
    ) -> Result<KernelOnDevice, String> {
        let r = resources.map_err(|why| {
            format!("the occupancy API's answer needs the kernel's registers per thread, which are unknown ({why})")
        })?;
        let missing = |field: &str| format!("the device profile `{}` lacks hw.{field}", d.name);
        let limits = SmLimits::of(d, "the occupancy API").map_err(|e| e.to_string())?;
        let hw = &d.hw;
        let device_block = hw
            .max_threads_per_block
            .as_ref()
            .ok_or_else(|| missing("max_threads_per_block"))?
            .value as u64;
        let regs_per_block = hw
            .regs_per_block
            .as_ref()
            .ok_or_else(|| missing("regs_per_block"))?
            .value as u64;
        let warp_size = hw.warp_size.as_ref().map_or(32, |w| w.value as u64);
        let regs = u64::from(r.regs_per_thread);
        let by_registers = (1..=device_block / warp_size)
            .rev()
            .map(|warps| warps * warp_size)
            .find(|&t| regs == 0 || limits.regs_checked_per_block(t, regs) <= regs_per_block)
            .unwrap_or(0);
        let max_threads_per_block = by_registers.min(max_ntid.unwrap_or(u64::MAX));
        Ok(KernelOnDevice {
            sm_count: limits.sm_count,
            limits,
            warp_size,
            regs_per_thread: regs,
            static_shared: r.shared_bytes,
            max_threads_per_block,
            shared_per_block: hw.shared_bytes_per_block.as_ref().map(|s| s.value),
        })
    }
}

impl KernelOnDevice {
    /// Blocks of `threads` threads with `dynamic_shared` bytes one SM runs at once (0 where a
    /// block cannot launch).
    pub fn active_blocks_per_sm(&self, threads: u64, dynamic_shared: u64) -> u64 {
        let shared = self.static_shared + dynamic_shared;
        if threads == 0
            || threads > self.max_threads_per_block
            || self.shared_per_block.is_some_and(|limit| shared > limit)
        {
            return 0;
        }
        let regs = (self.regs_per_thread > 0).then_some(self.regs_per_thread);
        self.limits
            .resident_blocks(threads, regs, Some(shared).filter(|&s| s > 0))
    }

    /// The block size of the highest occupancy (the largest of equals), at most `limit`
    /// threads (0: no limit), and the grid that fills the device with it: (grid, block).
    pub fn max_potential_block_size(&self, dynamic_shared: u64, limit: u64) -> (u64, u64) {
        let limit = match limit {
            0 => self.max_threads_per_block,
            l => l.min(self.max_threads_per_block),
        };
        let mut best = (0, 0, 0); // (resident threads, block size, blocks per SM)
        let mut aligned = limit.next_multiple_of(self.warp_size);
        while aligned > 0 {
            let threads = aligned.min(limit);
            let blocks = self.active_blocks_per_sm(threads, dynamic_shared);
            if blocks * threads > best.0 {
                best = (blocks * threads, threads, blocks);
            }
            if best.0 == self.limits.max_threads {
                break;
            }
            aligned -= self.warp_size;
        }
        (best.2 * self.sm_count, best.1)
    }
}

/// The occupancy API's answers for an analysis's kernels on one device, by PTX entry and by
/// demangled name (a host that names its kernel by string), for the host reading.
#[derive(Debug, Default)]
pub struct Answers {
    kernels: BTreeMap<String, Result<KernelOnDevice, String>>,
    /// Whether the host reading asked anything.
    asked: AtomicBool,
    /// The answers given, for the notes: (kernel asked about, what was answered).
    given: std::sync::Mutex<Vec<(String, String)>>,
}

impl Answers {
    /// Adds a kernel by its entry and its demangled name.
    pub fn add(&mut self, entry: &str, demangled: &str, k: Result<KernelOnDevice, String>) {
        self.kernels.insert(demangled.to_string(), k.clone());
        self.kernels.insert(entry.to_string(), k);
    }

    /// Whether the host reading asked the occupancy API anything.
    pub fn was_asked(&self) -> bool {
        self.asked.load(Ordering::Relaxed)
    }

    /// What the occupancy API answered about the kernel `entry` (or its demangled name).
    pub fn notes_for(&self, entry: &str, demangled: &str) -> Vec<String> {
        let given = self.given.lock().map(|g| g.clone()).unwrap_or_default();
        let mut out: Vec<String> = Vec::new();
        for (k, note) in given {
            if (k == entry || k == demangled) && !out.contains(&note) {
                out.push(note);
            }
        }
        out
    }

    fn note(&self, kernel: &str, note: String) {
        if let Ok(mut g) = self.given.lock() {
            g.push((kernel.to_string(), note));
        }
    }

    fn kernel(&self, kernel: &str) -> Result<&KernelOnDevice, String> {
        self.asked.store(true, Ordering::Relaxed);
        match self.kernels.get(kernel) {
            Some(Ok(k)) => Ok(k),
            Some(Err(why)) => Err(why.clone()),
            None => {
                Err("kerncast has not compiled this kernel, so its registers are unknown".into())
            }
        }
    }
}

impl kerncast_host::OccupancyOracle for Answers {
    fn active_blocks_per_sm(
        &self,
        kernel: &str,
        threads: u64,
        dynamic_shared: u64,
    ) -> Result<u64, String> {
        let n = self
            .kernel(kernel)?
            .active_blocks_per_sm(threads, dynamic_shared);
        self.note(
            kernel,
            format!(
                "`cudaOccupancyMaxActiveBlocksPerMultiprocessor` answered {n} blocks of {threads} \
                 threads per SM on this device, for this kernel's registers and shared memory"
            ),
        );
        Ok(n)
    }

    fn max_potential_block_size(
        &self,
        kernel: &str,
        dynamic_shared: u64,
        limit: u64,
    ) -> Result<(u64, u64), String> {
        let (grid, block) = self
            .kernel(kernel)?
            .max_potential_block_size(dynamic_shared, limit);
        self.note(
            kernel,
            format!(
                "`cudaOccupancyMaxPotentialBlockSize` answered a block of {block} threads and a \
                 minimum grid of {grid} blocks on this device, for this kernel's registers and \
                 shared memory"
            ),
        );
        Ok((grid, block))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(regs: u32, shared: u64, max_ntid: Option<u64>) -> KernelOnDevice {
        let d = Device::load("gtx-titan-x").expect("bundled device");
        let r = Resources {
            regs_per_thread: regs,
            shared_bytes: shared,
            ..Resources::default()
        };
        KernelOnDevice::new(&d, Ok(&r), max_ntid).unwrap()
    }

    // The GTX Titan X (compute capability 5.2): 24 SMs, 2048 threads, 32 blocks, 65536
    // registers and 96 KiB of shared memory per SM, 48 KiB and 1024 threads per block, registers
    // given to warps in units of 256. The figures below follow from those limits as NVIDIA's
    // occupancy calculator applies them.
    #[test]
    fn a_light_kernel_fills_the_sm_with_the_largest_block() {
        let k = kernel(16, 0, None);
        assert_eq!(k.active_blocks_per_sm(256, 0), 8);
        assert_eq!(k.active_blocks_per_sm(1024, 0), 2);
        // 1024 threads already give 2048 resident: the first tried wins
        assert_eq!(k.max_potential_block_size(0, 0), (2 * 24, 1024));
        // at most 200: 200 threads hold 7 warps' slots, so 9 blocks (1800 threads) fit; 192
        // give 1920, and 128 the whole SM (16 blocks), where the search stops
        assert_eq!(k.active_blocks_per_sm(200, 0), 9);
        assert_eq!(k.max_potential_block_size(0, 200), (16 * 24, 128));
    }

    #[test]
    fn registers_shared_memory_and_launch_bounds_limit_the_answer() {
        // 64 registers: 32 warps' worth of registers per SM, so 1024 resident threads at most
        let k = kernel(64, 0, None);
        assert_eq!(k.active_blocks_per_sm(1024, 0), 1);
        assert_eq!(k.max_potential_block_size(0, 0), (24, 1024));
        // 128 registers: a block may have at most 512 threads
        let k = kernel(128, 0, None);
        assert_eq!(k.active_blocks_per_sm(1024, 0), 0);
        assert_eq!(k.max_potential_block_size(0, 0), (24, 512));
        // 40 KiB of shared memory per block: two blocks per SM (96 KiB), whatever their size
        let k = kernel(16, 40 * 1024, None);
        assert_eq!(k.active_blocks_per_sm(128, 0), 2);
        assert_eq!(k.active_blocks_per_sm(128, 16 * 1024), 0);
        assert_eq!(k.max_potential_block_size(0, 0), (48, 1024));
        let k = kernel(16, 0, Some(256));
        assert_eq!(k.active_blocks_per_sm(512, 0), 0);
        assert_eq!(k.max_potential_block_size(0, 0), (8 * 24, 256));
    }

    #[test]
    fn unknown_registers_give_no_answer_and_say_why() {
        let d = Device::load("gtx-titan-x").unwrap();
        let e = KernelOnDevice::new(&d, Err("ptxas was not found".into()), None).unwrap_err();
        assert_eq!(e, "the occupancy API's answer needs the kernel's registers per thread, which are unknown (ptxas was not found)");
    }
}
