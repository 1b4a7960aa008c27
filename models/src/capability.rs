//! Which models a device profile can run. Each model predicts one small reference kernel (a
//! SAXPY, counted by the same passes as any kernel) on the device at its default clocks; a model
//! that fails for want of device data is unusable there, and its error names the missing key.
//! This is what `kerncast devices` shows, so a user learns before an analysis what a profile
//! supports.

use crate::auto::by_name;
use crate::device::Device;
use crate::model::ModelInput;
use crate::power::PhysicalPowerParams;
use crate::schedule::adapter::blocks_from_cfg;
use kerncast_passes::cfg::Cfg;
use kerncast_passes::count::{analyze_kernel_with, Options, Workload};
use kerncast_passes::ptx::Module;
use std::collections::BTreeMap;

const SAXPY: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_n, .param .f32 k_a, .param .u64 k_x, .param .u64 k_y)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<8>;
    ld.param.u32 %r1, [k_n];
    ld.param.f32 %f1, [k_a];
    ld.param.u64 %rd1, [k_x];
    ld.param.u64 %rd2, [k_y];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mul.wide.s32 %rd5, %r5, 4;
    add.s64 %rd6, %rd3, %rd5;
    add.s64 %rd7, %rd4, %rd5;
    ld.global.f32 %f2, [%rd6];
    ld.global.f32 %f3, [%rd7];
    fma.rn.f32 %f4, %f1, %f2, %f3;
    st.global.f32 [%rd7], %f4;
DONE:
    ret;
}
"#;

/// The level models `kerncast analyze --model` accepts, in `auto`'s order.
pub const MODELS: [&str; 4] = ["dvfs", "schedule", "linear", "roofline"];

/// What a device supports: per model, `Ok` or the reason it cannot run; and whether a power
/// model is available (a model's own, or the physical power model's coefficients).
#[derive(Clone, Debug)]
pub struct Capabilities {
    pub models: Vec<(&'static str, Result<(), String>)>,
    pub power: Result<(), String>,
}

impl Capabilities {
    /// Names of the usable models.
    pub fn usable(&self) -> Vec<&'static str> {
        self.models
            .iter()
            .filter(|(_, r)| r.is_ok())
            .map(|(m, _)| *m)
            .collect()
    }
}

/// The reference kernel's input on `d`: counts for 2^20 elements in blocks of 256 and the
/// per-block schedule input, with why that is empty when the device cannot give it.
fn reference_input(d: &Device) -> Result<ModelInput, String> {
    let m = Module::parse(SAXPY).map_err(|e| e.to_string())?;
    let block = [256, 1, 1];
    let ks = analyze_kernel_with(
        &m,
        "k",
        &Options {
            block: Some(block),
            grid: None,
        },
    )
    .map_err(|e| e.to_string())?;
    let stats = ks
        .bind(&Workload {
            grid: [4096, 1, 1],
            block,
            params: BTreeMap::from([("0".to_string(), 1 << 20)]),
            hints: BTreeMap::new(),
            reuse: false,
        })
        .map_err(|e| e.to_string())?;
    let f = m.kernels().next().ok_or("no kernel")?;
    let (blocks, blocks_missing) = match blocks_from_cfg(&Cfg::build(f), d) {
        Ok(b) => (b, None),
        Err(e) => (BTreeMap::new(), Some(e.to_string())),
    };
    Ok(ModelInput {
        stats,
        blocks,
        blocks_missing,
        chains: crate::schedule::chain::block_chains(&Cfg::build(f)),
        hints: BTreeMap::new(),
        fp64_sass_extra: None,
        atomics: crate::schedule::atomics::serial_atomics(&Cfg::build(f)),
    })
}

/// Runs every model on the reference kernel on `d`.
pub fn capabilities(d: &Device) -> Capabilities {
    let input = reference_input(d);
    let clocks = d.default_clocks().map_err(|e| e.to_string());
    let mut own_power = false;
    let models = MODELS
        .iter()
        .map(|name| {
            let r = match (&input, &clocks, by_name(name)) {
                (Err(e), _, _) | (_, Err(e), _) => Err(e.clone()),
                (_, _, None) => Err(format!("no model named {name}")),
                (Ok(i), Ok(c), Some(m)) => m
                    .predict(i, d, *c)
                    .map(|p| own_power |= p.power_w.is_some())
                    .map_err(|e| e.to_string()),
            };
            (*name, r)
        })
        .collect();
    let power = if own_power {
        Ok(())
    } else {
        PhysicalPowerParams::from_device(d)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    Capabilities { models, power }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_titan_x_runs_dvfs_with_power_and_a_datasheet_only_profile_runs_the_roofline_only() {
        let titan = capabilities(&Device::load("gtx-titan-x").unwrap());
        assert!(titan.usable().contains(&"dvfs"), "{titan:?}");
        assert!(titan.power.is_ok(), "{titan:?}");

        let a100 = capabilities(&Device::load("a100").unwrap());
        assert_eq!(a100.usable(), ["roofline"], "{a100:?}");
        assert!(a100.power.is_err(), "{a100:?}");
        let (_, sched) = a100.models.iter().find(|(m, _)| *m == "schedule").unwrap();
        let why = sched.as_ref().unwrap_err();
        assert!(
            why.contains("latency."),
            "names the missing latency key: {why}"
        );
    }

    #[test]
    fn the_k20_runs_the_thesis_schedule_model() {
        let k20 = capabilities(&Device::load("k20").unwrap());
        assert!(k20.usable().contains(&"schedule"), "{k20:?}");
    }
}
