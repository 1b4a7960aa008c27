//! Device profiles: one TOML per GPU under `devices/`, every number with its provenance.
//!
//! Why every value is a `Sourced<T>`: predictions are only as credible as the numbers behind
//! them, and mixing a datasheet figure, a thesis table and a calibration run silently is how
//! model errors become untraceable. A value that is not known is absent (`None`), never
//! invented; a model that needs it asks through [`Device::need`] and gets an error naming the
//! missing key (`hw.sfu_per_sm` …).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A value and where it comes from (a table of a reference text, a datasheet, a calibration run).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sourced<T> {
    pub value: T,
    pub source: String,
}

/// A (core, memory) clock pair in MHz, as nvidia-smi reports them.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize, Deserialize)]
pub struct Clocks {
    pub core_mhz: f64,
    pub mem_mhz: f64,
}

impl Clocks {
    pub fn new(core_mhz: f64, mem_mhz: f64) -> Self {
        Clocks { core_mhz, mem_mhz }
    }
}

impl std::fmt::Display for Clocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.0},{:.0}", self.core_mhz, self.mem_mhz)
    }
}

/// Per-SM resources and chip-level attributes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hardware {
    pub arch: Option<Sourced<String>>,
    pub compute_capability: Option<Sourced<String>>,
    pub sm_count: Option<Sourced<u32>>,
    /// Single-precision cores (SP units) per SM.
    pub cores_per_sm: Option<Sourced<u32>>,
    pub sfu_per_sm: Option<Sourced<u32>>,
    pub dpu_per_sm: Option<Sourced<u32>>,
    /// Dense tensor-core multiply–adds per clock per SM, f16 or bf16 inputs, f32 accumulator.
    pub tensor_f16_f32_fma_per_sm: Option<Sourced<u32>>,
    pub lsu_per_sm: Option<Sourced<u32>>,
    pub warp_schedulers_per_sm: Option<Sourced<u32>>,
    pub dispatch_units_per_sm: Option<Sourced<u32>>,
    pub warp_size: Option<Sourced<u32>>,
    pub max_threads_per_sm: Option<Sourced<u32>>,
    pub max_threads_per_block: Option<Sourced<u32>>,
    pub max_warps_per_sm: Option<Sourced<u32>>,
    pub max_blocks_per_sm: Option<Sourced<u32>>,
    pub regs_per_sm: Option<Sourced<u32>>,
    pub regs_per_block: Option<Sourced<u32>>,
    /// Registers are given to a warp in multiples of this (the occupancy calculator's
    /// "register allocation unit"), from each warp scheduler's equal share of the file.
    pub reg_alloc_unit: Option<Sourced<u32>>,
    pub shared_bytes_per_sm: Option<Sourced<u64>>,
    pub shared_bytes_per_block: Option<Sourced<u64>>,
    pub l2_bytes: Option<Sourced<u64>>,
    /// Bytes of written data the L2 still holds dirty when a kernel ends, written back to DRAM
    /// after it: a profiler's DRAM count of the kernel leaves them out. Fitted on measured
    /// launches (`kerncast fit`), at most `l2_bytes`.
    pub l2_dirty_at_exit_bytes: Option<Sourced<u64>>,
    pub mem_bus_bits: Option<Sourced<u32>>,
    /// Data transfers per memory clock as nvidia-smi counts it (GDDR5: 2, so 3505 MHz = 7010 MT/s).
    pub mem_transfers_per_clock: Option<Sourced<f64>>,
    pub mem_bandwidth_gbs: Option<Sourced<f64>>,
    /// L2 throughput for reads and for writes, GB/s, measured at the default core clock.
    pub l2_read_gbs: Option<Sourced<f64>>,
    pub l2_write_gbs: Option<Sourced<f64>>,
    pub tdp_w: Option<Sourced<f64>>,
}

/// Clock levels (the DVFS grid) and idle power per level.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockData {
    pub default_core_mhz: Option<Sourced<f64>>,
    pub default_mem_mhz: Option<Sourced<f64>>,
    /// Allowed core levels (the same at every memory level unless `core_levels_by_mem` says otherwise).
    pub core_levels_mhz: Option<Sourced<Vec<f64>>>,
    pub mem_levels_mhz: Option<Sourced<Vec<f64>>>,
    /// Idle power per clock pair: `[mem_mhz, core_mhz, watts]`.
    pub idle_power_w: Option<Sourced<Vec<[f64; 3]>>>,
}

/// Thesis (Alavani) schedule-model data: the regressions of chapter 3 and 4.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleData {
    /// Piecewise global-latency regression, `[lo, hi, a, b]`: L = a·threads + b for lo ≤ threads < hi.
    pub global_latency_pieces: Option<Sourced<Vec<[f64; 4]>>>,
    /// Launch overhead `[a, b]`: l_overhead = a·threads + b (µs).
    pub launch_overhead_us: Option<Sourced<[f64; 2]>>,
    /// Global throughput TP(gm) = a·(b − exp(−c·ngM)), `[a, b, c]`.
    pub tp_global: Option<Sourced<[f64; 3]>>,
    /// Shared throughput TP(sm) = a·(b − exp(−c·nsM)), `[a, b, c]`.
    pub tp_shared: Option<Sourced<[f64; 3]>>,
    /// Approach-1 throughput (instructions/cycle/SM) and peak warps at ILP 1, by latency key.
    pub throughput_peakwarps: Option<Sourced<BTreeMap<String, [f64; 2]>>>,
}

/// Wang & Chu DVFS-model constants (core cycles), see `dvfs`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DvfsData {
    /// Baseline pair at which the core/memory ratio r is 1 (`[core, mem]`).
    pub baseline_mhz: Option<Sourced<[f64; 2]>>,
    /// dm_lat = a·r + b (Eq. 4), `[a, b]`.
    pub dm_lat_fit: Option<Sourced<[f64; 2]>>,
    /// DRAM service delay per transaction at r = 1 (Table III).
    pub dm_del_base: Option<Sourced<f64>>,
    pub l2_lat: Option<Sourced<f64>>,
    pub l2_del: Option<Sourced<f64>>,
}

/// Physical power-model coefficients (see `power::PhysicalPowerParams`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerData {
    /// Dynamic power at full utilisation of each activity class, at the reference clocks (W).
    pub dynamic_w: Option<Sourced<BTreeMap<String, f64>>>,
    /// Exponent γ of the core-clock scaling (V/V0)²·f/f0 ≈ (f/f0)^γ.
    pub core_exponent: Option<Sourced<f64>>,
    /// Reference pair of the coefficients, `[core, mem]`.
    pub reference_mhz: Option<Sourced<[f64; 2]>>,
}

/// One GPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Device {
    /// Short name, the file stem (`gtx-titan-x`).
    pub name: String,
    /// Marketing name (`NVIDIA GeForce GTX TITAN X`).
    pub full_name: String,
    #[serde(default)]
    pub hw: Hardware,
    #[serde(default)]
    pub clocks: ClockData,
    /// Instruction latencies in core cycles by thesis key (addf, adds, fma, shared, global …).
    #[serde(default)]
    pub latency: BTreeMap<String, Sourced<f64>>,
    #[serde(default)]
    pub schedule: ScheduleData,
    #[serde(default)]
    pub dvfs: DvfsData,
    #[serde(default)]
    pub power: PowerData,
    /// Fitted linear-model weights (seconds per unit of each feature).
    #[serde(default)]
    pub linear: BTreeMap<String, Sourced<f64>>,
    /// Where the profile was read from (not part of the file).
    #[serde(skip)]
    pub path: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error("{path}:{line}:{col}: {message}")]
    Toml {
        path: PathBuf,
        line: usize,
        col: usize,
        message: String,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("device `{0}` not found (looked in {1})")]
    NotFound(String, String),
    #[error("{path}:{line}:{col}: `{key}` {message}")]
    Range {
        path: PathBuf,
        line: usize,
        col: usize,
        key: String,
        message: String,
    },
    #[error("device `{device}` lacks `{key}`, which the {model} model needs (add it to {path} with a source)")]
    Missing {
        device: String,
        key: String,
        model: String,
        path: PathBuf,
    },
}

impl Device {
    /// A value a model needs, or an error naming the key, the model and the file.
    pub fn need<'a, T>(
        &self,
        v: &'a Option<Sourced<T>>,
        key: &str,
        model: &str,
    ) -> Result<&'a T, DeviceError> {
        v.as_ref()
            .map(|s| &s.value)
            .ok_or_else(|| self.missing(key, model))
    }

    pub fn missing(&self, key: &str, model: &str) -> DeviceError {
        DeviceError::Missing {
            device: self.name.clone(),
            key: key.to_string(),
            model: model.to_string(),
            path: self.path.clone(),
        }
    }

    /// A latency (cycles) by thesis key, or an error naming `latency.<key>`.
    pub fn latency(&self, key: &str, model: &str) -> Result<f64, DeviceError> {
        self.latency
            .get(key)
            .map(|s| s.value)
            .ok_or_else(|| self.missing(&format!("latency.{key}"), model))
    }

    /// The default clock pair.
    pub fn default_clocks(&self) -> Result<Clocks, DeviceError> {
        let c = *self.need(
            &self.clocks.default_core_mhz,
            "clocks.default_core_mhz",
            "any",
        )?;
        let m = *self.need(
            &self.clocks.default_mem_mhz,
            "clocks.default_mem_mhz",
            "any",
        )?;
        Ok(Clocks::new(c, m))
    }

    /// Every (core, mem) pair of the DVFS grid, ascending by memory then core clock. A device
    /// without level lists has the one default pair.
    pub fn clock_grid(&self) -> Result<Vec<Clocks>, DeviceError> {
        let def = self.default_clocks()?;
        let cores = self
            .clocks
            .core_levels_mhz
            .as_ref()
            .map(|s| s.value.clone())
            .unwrap_or_else(|| vec![def.core_mhz]);
        let mems = self
            .clocks
            .mem_levels_mhz
            .as_ref()
            .map(|s| s.value.clone())
            .unwrap_or_else(|| vec![def.mem_mhz]);
        let mut out = Vec::new();
        for &m in &mems {
            for &c in &cores {
                out.push(Clocks::new(c, m));
            }
        }
        out.sort_by(|a, b| {
            (a.mem_mhz, a.core_mhz)
                .partial_cmp(&(b.mem_mhz, b.core_mhz))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        out.dedup();
        Ok(out)
    }

    /// Whether a requested pair lies within the device's clock levels (between its lowest and
    /// highest core and memory level); the error says which clock is out and the range, since a
    /// swapped `MEM,CORE` pair is the usual cause. A device without level lists takes any pair.
    pub fn check_clocks(&self, c: Clocks) -> Result<(), String> {
        let range = |levels: &Option<Sourced<Vec<f64>>>| {
            let v = &levels.as_ref()?.value;
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (lo <= hi).then_some((lo, hi))
        };
        let mut out = Vec::new();
        for (what, mhz, levels) in [
            ("core", c.core_mhz, &self.clocks.core_levels_mhz),
            ("memory", c.mem_mhz, &self.clocks.mem_levels_mhz),
        ] {
            if let Some((lo, hi)) = range(levels) {
                if !(lo - 0.5..=hi + 0.5).contains(&mhz) {
                    out.push(format!(
                        "{what} {mhz} MHz is outside {}'s {what} levels ({lo}-{hi} MHz)",
                        self.name
                    ));
                }
            }
        }
        if out.is_empty() {
            Ok(())
        } else {
            Err(format!("{} (the order is CORE,MEM)", out.join("; ")))
        }
    }

    /// Idle power at a clock pair (exact level match), or an error naming `clocks.idle_power_w`.
    pub fn idle_power(&self, clocks: Clocks) -> Result<f64, DeviceError> {
        let table = self.need(&self.clocks.idle_power_w, "clocks.idle_power_w", "power")?;
        table
            .iter()
            .find(|r| (r[0] - clocks.mem_mhz).abs() < 0.5 && (r[1] - clocks.core_mhz).abs() < 0.5)
            .map(|r| r[2])
            .ok_or_else(|| {
                self.missing(
                    &format!("clocks.idle_power_w at core {clocks} (core,mem MHz)"),
                    "power",
                )
            })
    }

    /// Peak DRAM bandwidth at a memory clock (bytes/s), from bus width and transfers per clock
    /// when known, else the datasheet figure scaled by mem/default_mem.
    pub fn dram_bandwidth(&self, mem_mhz: f64, model: &str) -> Result<f64, DeviceError> {
        if let (Some(bus), Some(tpc)) = (&self.hw.mem_bus_bits, &self.hw.mem_transfers_per_clock) {
            return Ok(bus.value as f64 / 8.0 * tpc.value * mem_mhz * 1e6);
        }
        let bw = *self.need(&self.hw.mem_bandwidth_gbs, "hw.mem_bandwidth_gbs", model)?;
        let def = *self.need(
            &self.clocks.default_mem_mhz,
            "clocks.default_mem_mhz",
            model,
        )?;
        Ok(bw * 1e9 * mem_mhz / def)
    }

    /// Bytes per second the L2 reads and writes at `core_mhz`: the profile's throughput at the
    /// default core clock, scaled with the core clock, whose domain the L2 runs in. `None` when
    /// the profile lacks either figure or the default core clock.
    pub fn l2_bandwidths(&self, core_mhz: f64) -> Option<(f64, f64)> {
        let def = self.clocks.default_core_mhz.as_ref()?.value;
        let at = |gbs: &Option<Sourced<f64>>| Some(gbs.as_ref()?.value * 1e9 * core_mhz / def);
        Some((at(&self.hw.l2_read_gbs)?, at(&self.hw.l2_write_gbs)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn clocks_outside_the_levels_are_named() {
        let d = Device::load("gtx-titan-x").unwrap();
        assert_eq!(d.check_clocks(Clocks::new(975.0, 3505.0)), Ok(()));
        // Between levels: a model may interpolate, so it is not refused here.
        assert_eq!(d.check_clocks(Clocks::new(1000.0, 3505.0)), Ok(()));
        let swapped = d.check_clocks(Clocks::new(3505.0, 975.0)).unwrap_err();
        assert!(
            swapped.contains("core 3505 MHz is outside gtx-titan-x's core levels (595-1164 MHz)")
                && !swapped.contains("memory")
                && swapped.contains("CORE,MEM"),
            "{swapped}"
        );
        let both = d.check_clocks(Clocks::new(5000.0, 100.0)).unwrap_err();
        assert!(
            both.contains("; memory 100 MHz is outside gtx-titan-x's memory levels (810-3505 MHz)"),
            "{both}"
        );
        let bare =
            Device::from_toml("name = \"x\"\nfull_name = \"X\"\n", Path::new("x.toml")).unwrap();
        assert_eq!(bare.check_clocks(Clocks::new(1.0, 1.0)), Ok(()));
    }

    #[test]
    fn missing_value_is_named() {
        let d =
            Device::from_toml("name = \"x\"\nfull_name = \"X\"\n", Path::new("x.toml")).unwrap();
        let e = d
            .need(&d.hw.sfu_per_sm, "hw.sfu_per_sm", "schedule")
            .unwrap_err();
        assert!(e.to_string().contains("`hw.sfu_per_sm`"), "{e}");
    }
}
