//! What the models take from kerncast's device profile of the data set's GPU: the physical
//! models' constants (B and B2), and the issue costs every model's features are counted in.
//!
//! The data set names its GPU by folder (`gtxtitanx`, `titanxp`, `titanv`, `teslat4`); the profiles
//! in `devices/` are named `gtx-titan-x`, `titan-xp`, `titan-v`, `t4` with full names such as
//! `NVIDIA Tesla T4`. A profile matches when its name or full name, lowercased, without `nvidia`
//! and without anything but letters and digits, equals the folder name; `--device` overrides it.
//! A model whose constants the profile lacks is left out of the run with the reason, never filled
//! in with another GPU's numbers.

use crate::features::IssueCosts;
use crate::wangchu::Start;
use kerncast_models::device::Device;

/// Model B's hardware constants: the FP32 issue rate and the DRAM bandwidth at the reference
/// memory clock, whose ratio turns bytes per unit of core work into a DRAM-to-core time ratio.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Peak {
    /// FP32 lanes of the whole chip (SMs × cores per SM).
    pub fp32_lanes: f64,
    /// DRAM bytes per second at the data set's reference memory clock.
    pub bw0_bytes_per_s: f64,
}

/// What the models take from one GPU's profile, each with the reason when it is missing.
#[derive(Debug, Clone)]
pub struct Physics {
    /// The profile used (`gtx-titan-x`), or why none was found.
    pub profile: Result<String, String>,
    pub roofline: Result<Peak, String>,
    pub wangchu: Result<Start, String>,
    /// From the profile's units per SM, or why the CC 5.2 table stands in.
    pub issue_costs: Result<IssueCosts, String>,
}

/// `NVIDIA GeForce GTX TITAN X` → `geforcegtxtitanx`; `gtx-titan-x` → `gtxtitanx`.
fn normalise(s: &str) -> String {
    let s: String = s
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    s.strip_prefix("nvidia").map(str::to_string).unwrap_or(s)
}

/// The bundled profile whose name or full name is the data set's GPU name.
pub fn profile_for(gpu: &str) -> Result<Device, String> {
    let want = normalise(gpu);
    let all = Device::list().map_err(|e| e.to_string())?;
    all.into_iter()
        .find(|d| normalise(&d.name) == want || normalise(&d.full_name) == want)
        .ok_or_else(|| {
            format!("no device profile matches the data set's GPU `{gpu}` (give one with --device)")
        })
}

impl Physics {
    /// From the profile `device` (a name or a path), else the one matching `gpu`; `mem0_mhz` is
    /// the data set's reference memory clock.
    pub fn of(gpu: &str, device: Option<&str>, mem0_mhz: f64) -> Physics {
        let dev = match device {
            Some(d) => Device::load(d).map_err(|e| e.to_string()),
            None => profile_for(gpu),
        };
        match dev {
            Ok(dev) => Physics {
                profile: Ok(dev.name.clone()),
                roofline: peak(&dev, mem0_mhz),
                wangchu: Start::from_device(&dev, mem0_mhz),
                issue_costs: issue_costs(&dev),
            },
            Err(e) => Physics {
                profile: Err(e.clone()),
                roofline: Err(e.clone()),
                wangchu: Err(e.clone()),
                issue_costs: Err(e),
            },
        }
    }

    /// One line for the run's log: the profile, which physical models run, and where the issue
    /// costs come from.
    pub fn describe(&self) -> String {
        let state = |r: Result<(), &String>| match r {
            Ok(()) => "fitted".to_string(),
            Err(e) => format!("left out: {e}"),
        };
        format!(
            "device profile: {}; model B {}; model B2 {}; issue costs {}",
            match &self.profile {
                Ok(p) => p.clone(),
                Err(e) => format!("none ({e})"),
            },
            state(self.roofline.as_ref().map(|_| ())),
            state(self.wangchu.as_ref().map(|_| ())),
            match &self.issue_costs {
                Ok(_) => "from the profile's units per SM".to_string(),
                Err(e) => format!("CC 5.2's table ({e})"),
            }
        )
    }
}

fn issue_costs(dev: &Device) -> Result<IssueCosts, String> {
    let units = |v: &Option<kerncast_models::device::Sourced<u32>>, key: &str| {
        dev.need(v, key, "issue-cost")
            .map(|u| *u as f64)
            .map_err(|e| e.to_string())
    };
    Ok(IssueCosts::from_units(
        units(&dev.hw.cores_per_sm, "hw.cores_per_sm")?,
        units(&dev.hw.dpu_per_sm, "hw.dpu_per_sm")?,
        units(&dev.hw.sfu_per_sm, "hw.sfu_per_sm")?,
        units(&dev.hw.lsu_per_sm, "hw.lsu_per_sm")?,
    ))
}

fn peak(dev: &Device, mem0_mhz: f64) -> Result<Peak, String> {
    let sms = dev
        .need(&dev.hw.sm_count, "hw.sm_count", "B")
        .map_err(|e| e.to_string())?;
    let cores = dev
        .need(&dev.hw.cores_per_sm, "hw.cores_per_sm", "B")
        .map_err(|e| e.to_string())?;
    Ok(Peak {
        fp32_lanes: (*sms as f64) * (*cores as f64),
        bw0_bytes_per_s: dev
            .dram_bandwidth(mem0_mhz, "B")
            .map_err(|e| e.to_string())?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gpu_of_the_released_gpu_info_has_its_profile() {
        for (gpu, profile) in [
            ("gtxtitanx", "gtx-titan-x"),
            ("titanxp", "titan-xp"),
            ("titanv", "titan-v"),
            ("teslat4", "t4"),
        ] {
            assert_eq!(profile_for(gpu).map(|d| d.name), Ok(profile.to_string()));
        }
        let e = profile_for("radeon7").unwrap_err();
        assert!(e.contains("`radeon7`") && e.contains("--device"), "{e}");
    }

    #[test]
    fn the_titan_x_peak_is_its_datasheet_ratio() {
        let p = Physics::of("gtxtitanx", None, 3505.0);
        let peak = p.roofline.unwrap();
        assert_eq!(peak.fp32_lanes, 24.0 * 128.0);
        // 384-bit GDDR5, 2 transfers per 3505 MHz clock: 336.5 GB/s.
        assert!((peak.bw0_bytes_per_s / 336.5e9 - 1.0).abs() < 1e-3);
        assert!(p.wangchu.is_ok());
        // Its units per SM give back the CC 5.2 table the released sequences were modelled with.
        assert_eq!(p.issue_costs, Ok(IssueCosts::cc52()));
        // The Titan V's FP64 runs at half the FP32 rate and its load/store units at half too.
        let v = Physics::of("titanv", None, 850.0).issue_costs.unwrap();
        use crate::isa::Class;
        assert_eq!(
            (v.of(Class::Dp), v.of(Class::GlobalLd), v.of(Class::Sfu)),
            (2.0, 2.0, 4.0)
        );
        // The Titan Xp profile has no Wang & Chu constants: B2 is left out, with the key it lacks.
        let xp = Physics::of("titanxp", None, 5705.0);
        assert!(xp.roofline.is_ok());
        let e = xp.wangchu.unwrap_err();
        assert!(e.contains("titan-xp") && e.contains("dvfs."), "{e}");
    }
}
