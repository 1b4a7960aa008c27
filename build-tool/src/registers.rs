//! Registers per thread from ptxas, for occupancy.
//!
//! The PTX names virtual registers only; how many a thread really holds is the assembler's
//! choice, and it decides how many blocks an SM can keep (65536 registers shared by up to 2048
//! threads on most GPUs). So the lowered module is assembled once with `ptxas -v`, and every
//! prediction of its kernels takes the count from there. Without ptxas the count stays unknown,
//! occupancy is limited by threads and shared memory only, and the report says so.

use crate::lower::{self, ResourceProbe, Resources};
use kerncast_models::schedule::thesis::SmLimits;
use kerncast_models::Device;
use kerncast_passes::ptx::Module;
use kerncast_passes::stats::BoundStats;

/// The oldest architecture that the ptxas `cargo xtask bootstrap` installs (CUDA 13) assembles;
/// PTX for an older target is assembled for this one (a PTX target may be assembled for any
/// later architecture).
const PTXAS_OLDEST_SM: u32 = 75;

/// What ptxas said about a module: per-kernel resources, for one architecture.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Assembled {
    /// `-arch` given to ptxas (`sm_80`).
    pub arch: String,
    /// Assembled as relocatable code (`-c`), as the module calls functions it does not define.
    pub relocatable: bool,
    pub probe: ResourceProbe,
    /// The floating-point SASS of the same assembly by PTX line, where it was asked for (the
    /// architecture is the one the FLOPs are counted for) and nvdisasm read it.
    #[serde(default)]
    pub sass_lines: Option<crate::sass_flops::in_context::SassLines>,
    /// Why the SASS was asked for and not read (nvdisasm missing or failing).
    #[serde(default)]
    pub sass_unread: Option<String>,
}

/// Assembles `ptx` (parsed as `module`) for its own `.target`, or the oldest architecture
/// ptxas knows where the target is older. A ptxas that is missing or rejects PTX that kerncast
/// parsed leaves the registers unknown, with the reason: the counts do not need them.
pub fn assemble(module: &Module, ptx: &str) -> Assembled {
    assemble_for(module, ptx, None)
}

/// [`assemble`], with the SASS read by PTX line ([`Assembled::sass_lines`]) when ptxas
/// assembles for `sass_arch`, the architecture whose FLOPs the counts are for. The lines are
/// those of `ptx`: the module's spans must number the same text.
pub fn assemble_for(module: &Module, ptx: &str, sass_arch: Option<&str>) -> Assembled {
    let target = module
        .target
        .iter()
        .find(|t| t.starts_with("sm_"))
        .cloned()
        .unwrap_or_else(|| "sm_80".into());
    let number = target
        .trim_start_matches("sm_")
        .trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let arch = match number.parse::<u32>() {
        Ok(n) if n < PTXAS_OLDEST_SM => format!("sm_{PTXAS_OLDEST_SM}"),
        _ => target,
    };
    // a module with no kernel (a unit of host code and device functions) has no resources
    // or SASS anyone asks for: ptxas and nvdisasm would cost a third of a second for nothing
    if module.kernels().next().is_none() {
        return Assembled {
            arch,
            relocatable: false,
            probe: ResourceProbe::Measured(Default::default()),
            sass_lines: None,
            sass_unread: None,
        };
    }
    let unavailable = |e: lower::LowerError| ResourceProbe::Unavailable {
        reason: format!(
            "ptxas -arch={arch} did not assemble the PTX: {}",
            ptxas_complaint(&e)
        ),
    };
    let sass = sass_arch == Some(arch.as_str());
    let failed = |e| {
        let listing = Err("ptxas did not assemble it".to_string());
        (unavailable(e), listing, false)
    };
    let (probe, listing, relocatable) =
        match lower::ptxas_resources_with_sass(ptx, &arch, false, sass) {
            Ok((p, l)) => (p, l, false),
            // a call the module leaves to another (libclc lacks OpenCL 2.0's work-group
            // functions) stops a whole-program assembly, not a relocatable one
            Err(e) if ptxas_complaint(&e).contains("Unresolved extern function") => {
                match lower::ptxas_resources_with_sass(ptx, &arch, true, sass) {
                    Ok((p, l)) => (p, l, true),
                    Err(e) => failed(e),
                }
            }
            Err(e) => failed(e),
        };
    let (sass_lines, sass_unread) = match (listing, sass_arch) {
        (Ok(l), _) if sass => (Some(crate::sass_flops::in_context::parse(&l, &arch)), None),
        (Err(why), _) if sass => (None, Some(why)),
        (_, Some(asked)) => (
            None,
            Some(format!("ptxas assembles this PTX for {arch}, not {asked}")),
        ),
        (_, None) => (None, None),
    };
    Assembled {
        arch,
        relocatable,
        probe,
        sass_lines,
        sass_unread,
    }
}

/// What ptxas said was wrong: its first fatal or error line, else the error's first line.
fn ptxas_complaint(e: &lower::LowerError) -> String {
    let said = match e {
        lower::LowerError::Compile { diagnostics, .. } => diagnostics
            .lines()
            .find(|l| l.contains("fatal") || l.contains("error"))
            .map(|l| l.trim().to_string()),
        _ => None,
    };
    said.unwrap_or_else(|| e.to_string().lines().next().unwrap_or_default().to_string())
}

impl Assembled {
    /// ptxas's resources for `entry`, or why there are none.
    pub fn of(&self, entry: &str) -> Result<&Resources, String> {
        match &self.probe {
            ResourceProbe::Measured(kernels) => kernels
                .get(entry)
                .ok_or_else(|| format!("ptxas -arch={} reported no kernel `{entry}`", self.arch)),
            ResourceProbe::Unavailable { reason } => Err(reason.clone()),
        }
    }

    /// Sets `stats.regs_per_thread` for `entry` and returns the notes that say where the count
    /// came from, and what ptxas spilled (local-memory traffic the PTX counts do not hold).
    pub fn apply(&self, entry: &str, stats: &mut BoundStats) -> Vec<String> {
        match self.of(entry) {
            Ok(r) => {
                stats.regs_per_thread = Some(r.regs_per_thread);
                // the frame ptxas allocates, spills included; the PTX's declarations may have
                // been promoted to registers or grown
                stats.local_bytes_per_thread = Some(r.stack_frame_bytes.max(r.local_bytes));
                let relocatable = if self.relocatable {
                    " -c, as the module calls functions it does not define"
                } else {
                    ""
                };
                let mut notes = vec![format!(
                    "registers: {} per thread (ptxas -arch={}{relocatable}), for occupancy",
                    r.regs_per_thread, self.arch
                )];
                if r.spill_store_bytes + r.spill_load_bytes > 0 {
                    notes.push(format!(
                        "ptxas spills registers: {} bytes stored and {} loaded per thread through \
                         local memory, traffic the counts do not include",
                        r.spill_store_bytes, r.spill_load_bytes
                    ));
                }
                notes
            }
            Err(why) => vec![format!(
                "registers per thread unknown ({why}): occupancy is limited by threads and \
                 shared memory only"
            )],
        }
    }
}

/// A note when the launch cannot start on `d`: its blocks need more registers than a block may
/// have (CUDA's "too many resources requested for launch"). The prediction is still made, for a
/// launch that would have run.
pub fn launch_fails(stats: &BoundStats, d: &Device) -> Option<String> {
    let regs = u64::from(stats.regs_per_thread?);
    let threads = stats.launch.as_ref()?.threads_per_block();
    let limit = u64::from(d.hw.regs_per_block.as_ref()?.value);
    let plain = regs * threads;
    let (need, how) = match SmLimits::of(d, "registers") {
        Ok(lim) if lim.reg_alloc.is_some() => {
            let need = lim.regs_checked_per_block(threads, regs);
            let how = if need == plain {
                String::new()
            } else {
                format!(", given out as {need} (whole allocation units per warp)")
            };
            (need, how)
        }
        _ => (plain, String::new()),
    };
    (need > limit).then(|| {
        format!(
            "this launch would fail on {}: {regs} registers x {threads} threads = {plain} per \
             block{how}, more than the {limit} a block may use (lower the block size, or cap the \
             registers with __launch_bounds__ or -maxrregcount)",
            d.name
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerncast_passes::stats::Launch;
    use std::collections::BTreeMap;

    fn measured(regs: u32, spill: u64) -> Assembled {
        let r = Resources {
            regs_per_thread: regs,
            spill_store_bytes: spill,
            spill_load_bytes: spill,
            stack_frame_bytes: spill,
            ..Resources::default()
        };
        Assembled {
            arch: "sm_80".into(),
            relocatable: false,
            probe: ResourceProbe::Measured(BTreeMap::from([("k".to_string(), r)])),
            sass_lines: None,
            sass_unread: None,
        }
    }

    #[test]
    fn the_count_is_set_and_spills_are_named() {
        let mut stats = BoundStats::default();
        let notes = measured(40, 0).apply("k", &mut stats);
        assert_eq!(stats.regs_per_thread, Some(40));
        assert_eq!(
            notes,
            ["registers: 40 per thread (ptxas -arch=sm_80), for occupancy"]
        );
        assert_eq!(stats.local_bytes_per_thread, Some(0));
        let notes = measured(255, 96).apply("k", &mut stats);
        assert_eq!(
            stats.local_bytes_per_thread,
            Some(96),
            "the frame holds the spills"
        );
        assert!(
            notes[1].contains("96 bytes stored and 96 loaded"),
            "{notes:?}"
        );
    }

    #[test]
    fn an_unknown_count_says_why_and_sets_nothing() {
        let mut stats = BoundStats::default();
        let notes = measured(40, 0).apply("other", &mut stats);
        assert_eq!(stats.regs_per_thread, None);
        assert!(
            notes[0].starts_with(
                "registers per thread unknown (ptxas -arch=sm_80 reported no kernel `other`)"
            ),
            "{notes:?}"
        );
    }

    #[test]
    fn a_block_over_the_register_file_cannot_launch() {
        let d = Device::load("gtx-titan-x").expect("bundled device");
        let stats = |regs, threads| BoundStats {
            regs_per_thread: Some(regs),
            launch: Some(Launch {
                grid: [1, 1, 1],
                block: [threads, 1, 1],
            }),
            ..BoundStats::default()
        };
        // 64 x 1024 = 65536 fits exactly; 65 x 1024 does not, and is given out as 2304 (nine
        // units of 256) per warp.
        assert_eq!(launch_fails(&stats(64, 1024), &d), None);
        let note = launch_fails(&stats(65, 1024), &d).expect("too many registers");
        assert!(
            note.contains("66560 per block, given out as 73728 (whole allocation units per warp), more than the 65536"),
            "{note}"
        );
        // 66 x 992 = 65472 would fit, but 31 warps of 2304 checked as 32 do not
        let note = launch_fails(&stats(66, 992), &d).expect("too many registers once allocated");
        assert!(
            note.contains("65472 per block, given out as 73728"),
            "{note}"
        );
        assert_eq!(launch_fails(&stats(32, 992), &d), None);
    }

    /// A module of device functions only is not handed to ptxas: text ptxas would refuse
    /// (`.func` with a body it cannot parse) still gives no failure, and no kernel.
    #[test]
    fn a_module_without_kernels_is_not_assembled() {
        let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\
                   .visible .func twice()\n{\n\tret;\n}\n";
        let module = kerncast_passes::ptx::Module::parse(ptx).expect("a function, no kernel");
        assert_eq!(module.kernels().count(), 0);
        let a = assemble_for(&module, "not PTX ptxas would take", Some("sm_80"));
        assert!(
            matches!(&a.probe, ResourceProbe::Measured(k) if k.is_empty()),
            "{:?}",
            a.probe
        );
        assert_eq!((a.sass_lines.is_none(), a.sass_unread), (true, None));
    }
}
