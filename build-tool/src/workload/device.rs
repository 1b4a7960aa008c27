//! What a workload reads of the device it is predicted on: its SM count, and the CUDA
//! occupancy API's answers for the kernel (host code that sizes launches with
//! `cudaOccupancyMaxPotentialBlockSize`).

use super::{Div, Expr, WorkloadSpec};

/// The SM count of the device a workload is predicted on, for launches sized by it
/// (`k<<<32 * numSMs, 256>>>` with `numSMs` from `cudaDeviceGetAttribute`).
pub const DEVICE_SM_COUNT: &str = "device.sm_count";

/// A name the host code sets by asking the CUDA runtime's occupancy API about the kernel
/// (`cudaOccupancyMaxPotentialBlockSize(&minGrid, &blockSize, k, 0, 0)` sets two).
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceQuery {
    /// The workload's name for the answer (`blockSize`).
    pub name: String,
    pub ask: Ask,
    /// The call as the notes and errors name it (`` `cudaOccupancyMaxPotentialBlockSize(…)`'s
    /// answer ``).
    pub shown: String,
}

/// What a [`DeviceQuery`] asks, with its arguments as workload expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum Ask {
    /// `cudaOccupancyMaxPotentialBlockSize`'s block size.
    MaxPotentialBlockSize { dynamic_shared: Expr, limit: Expr },
    /// `cudaOccupancyMaxPotentialBlockSize`'s minimum grid for full occupancy.
    MinGridSize { dynamic_shared: Expr, limit: Expr },
    /// `cudaOccupancyMaxActiveBlocksPerMultiprocessor`.
    ActiveBlocksPerSm { threads: Expr, dynamic_shared: Expr },
}

impl Ask {
    fn args(&self) -> [&Expr; 2] {
        match self {
            Ask::MaxPotentialBlockSize {
                dynamic_shared,
                limit,
            }
            | Ask::MinGridSize {
                dynamic_shared,
                limit,
            } => [dynamic_shared, limit],
            Ask::ActiveBlocksPerSm {
                threads,
                dynamic_shared,
            } => [threads, dynamic_shared],
        }
    }
}

/// The occupancy API's answers for one kernel on one device (`crate::occupancy`).
pub trait Occupancy {
    /// Blocks of `threads` threads with `dynamic_shared` bytes one SM runs at once (0 where a
    /// block cannot launch).
    fn active_blocks_per_sm(&self, threads: u64, dynamic_shared: u64) -> u64;
    /// The block size of the highest occupancy (the largest of equals), at most `limit`
    /// threads (0: no limit), and the grid that fills the device with it.
    fn max_potential_block_size(&self, dynamic_shared: u64, limit: u64) -> (u64, u64);
}

impl WorkloadSpec {
    /// The spec on a device with `sm_count` SMs: where it reads [`DEVICE_SM_COUNT`], that name
    /// is given the value (an unknown count leaves it undefined, and resolving says so). Its
    /// [`DeviceQuery`]s are answered by `occupancy`, the kernel's on this device, unless a value
    /// is given (`--param`); with none (`Err` says why) they stay undefined, and `unset` says why.
    pub fn on_device(
        &self,
        sm_count: Option<u32>,
        occupancy: Result<&dyn Occupancy, String>,
    ) -> WorkloadSpec {
        let mut spec = self.with_sm_count(sm_count);
        let mut answers = Vec::new();
        for q in &self.device_queries {
            if spec.params.iter().any(|(n, _)| n == &q.name) {
                continue;
            }
            match spec.answer(q, &occupancy) {
                Ok(v) => {
                    answers.push((q.name.clone(), Expr::Int(v as i64)));
                    spec.answered.push(format!(
                        "`{}` = {v} on this device: {} for this kernel's registers and shared memory",
                        q.name, q.shown
                    ));
                }
                Err(why) => {
                    spec.unset.insert(
                        q.name.clone(),
                        format!("`{}` is {}: {why}", q.name, q.shown),
                    );
                }
            }
        }
        answers.append(&mut spec.params);
        spec.params = answers;
        spec
    }

    /// The answer to `q`, its arguments evaluated with the parameters that resolve.
    fn answer(
        &self,
        q: &DeviceQuery,
        occupancy: &Result<&dyn Occupancy, String>,
    ) -> Result<u64, String> {
        let o = occupancy.as_ref().map_err(|why| why.clone())?;
        let mut env = self.macros.clone();
        for (k, e) in &self.params {
            if let Ok(v) = e.eval(&env, Div::Floor) {
                env.insert(k.clone(), v);
            }
        }
        let [a, b] = q.ask.args().map(|e| {
            e.eval(&env, Div::Floor)
                .and_then(|v| u64::try_from(v).map_err(|_| format!("a negative argument ({v})")))
        });
        let (a, b) = (a?, b?);
        Ok(match q.ask {
            Ask::MaxPotentialBlockSize { .. } => o.max_potential_block_size(a, b).1,
            Ask::MinGridSize { .. } => o.max_potential_block_size(a, b).0,
            Ask::ActiveBlocksPerSm { .. } => o.active_blocks_per_sm(a, b),
        })
    }

    fn with_sm_count(&self, sm_count: Option<u32>) -> WorkloadSpec {
        let mut vars = Vec::new();
        for e in self
            .params
            .iter()
            .map(|(_, e)| e)
            .chain(&self.grid.0)
            .chain(&self.block.0)
        {
            e.vars(&mut vars);
        }
        let mut spec = self.clone();
        if let (true, Some(n)) = (vars.iter().any(|v| v == DEVICE_SM_COUNT), sm_count) {
            spec.params
                .insert(0, (DEVICE_SM_COUNT.to_string(), Expr::Int(n as i64)));
            spec.helpers.push(DEVICE_SM_COUNT.to_string());
        }
        spec
    }
}
