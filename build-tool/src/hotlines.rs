//! Which source lines carry the predicted time: the model's time breakdown spread over the PTX
//! instructions that cause it, weighted by how often each runs, then summed by `.loc` line.
//!
//! Why this split: the models predict per category (compute, dram, l2, launch …), not per
//! instruction. Memory categories (keys naming dram, l2, mem, global, shared, local) are spread
//! over memory instructions, every other category except launch over the remaining
//! instructions, by warp-level executions of the instruction's basic block. Launch overhead
//! belongs to no line. Energy per line follows the time share (constant power over the kernel),
//! which the report's notes say.
//!
//! A breakdown whose parts add up to more than the time is one of resources working at once,
//! the time their maximum (the roofline's): only the busiest resource's instructions carry it,
//! since less work elsewhere would not shorten the kernel.

use crate::report::{HotLine, SourceLoc};
use kerncast_passes::ptx::{Function, Statement};
use kerncast_passes::stats::BoundStats;
use std::collections::BTreeMap;

/// For each instruction in text order, the basic block it belongs to. Leaders are the same as
/// the emulator's and the counter's (`crate::cfg` numbering): the first instruction, every
/// instruction after a label, and every instruction after a branch, return or exit.
pub fn block_of_insts(f: &Function) -> Vec<usize> {
    let mut out = Vec::new();
    let mut block = 0usize;
    let mut after_label = false;
    let mut after_branch = false;
    let mut first = true;
    for s in f.statements() {
        match s {
            Statement::Label(_) => after_label = true,
            Statement::Inst(inst) => {
                if !first && (after_label || after_branch) {
                    block += 1;
                }
                first = false;
                after_label = false;
                after_branch = matches!(inst.opcode.as_str(), "bra" | "ret" | "exit" | "brx");
                out.push(block);
            }
            _ => {}
        }
    }
    out
}

fn is_memory_category(k: &str) -> bool {
    ["dram", "l2", "mem", "global", "shared", "local", "cache"]
        .iter()
        .any(|m| k.contains(m))
}

/// Loads, stores and atomics that reach memory (parameter reads excluded): what the counters
/// count as a memory access (`classify::mem_access`), plus the texture and surface accesses and
/// prefetches and bulk copies they leave unclassified.
fn is_memory_inst(inst: &kerncast_passes::ptx::Inst) -> bool {
    use kerncast_passes::stats::Space;
    match kerncast_passes::classify::mem_access(inst) {
        Some((space, ..)) => space != Space::Param,
        // a `cp` that is not a copy is a group wait or commit (a barrier op)
        None if inst.opcode == "cp" => matches!(
            kerncast_passes::classify::op_feature(inst),
            Some((kerncast_passes::stats::OpKind::Other, _))
        ),
        None => matches!(
            inst.opcode.as_str(),
            "prefetch" | "prefetchu" | "tex" | "suld" | "sust"
        ),
    }
}

/// The parts of `breakdown` that lines carry: all but launch overhead where they add up to the
/// time `time_s` does not already give launch, else (resources at work at once) the largest,
/// as that time.
fn carried(breakdown: &BTreeMap<String, f64>, time_s: f64) -> Vec<(&str, f64)> {
    let launch: f64 = breakdown
        .iter()
        .filter(|(k, _)| k.contains("launch"))
        .map(|(_, v)| v)
        .sum();
    let parts: Vec<(&str, f64)> = breakdown
        .iter()
        .filter(|(k, _)| !k.contains("launch"))
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    let budget = (time_s - launch).max(0.0);
    let sum: f64 = parts.iter().map(|(_, v)| v).sum();
    if sum <= budget * (1.0 + 1e-9) {
        return parts;
    }
    parts
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| (k, budget))
        .into_iter()
        .collect()
}

/// Attribute `breakdown` (seconds per category) to source lines; `file_of` maps a `.file` name
/// to the path shown in the report. Returns the `top` lines, most time first.
pub fn attribute(
    f: &Function,
    stats: &BoundStats,
    breakdown: &BTreeMap<String, f64>,
    energy_j: Option<f64>,
    time_s: f64,
    file_of: &dyn Fn(&str) -> String,
    top: usize,
) -> Vec<HotLine> {
    let blocks = block_of_insts(f);
    let insts: Vec<_> = f.instructions().collect();
    let execs = |i: usize| -> f64 {
        blocks
            .get(i)
            .and_then(|b| stats.block_execs.get(b))
            .map(|e| e.warps)
            .unwrap_or(0.0)
    };
    let (mut w_mem, mut w_other) = (0.0, 0.0);
    for (i, inst) in insts.iter().enumerate() {
        if is_memory_inst(inst) {
            w_mem += execs(i);
        } else {
            w_other += execs(i);
        }
    }
    let (mut t_mem, mut t_other) = (0.0, 0.0);
    for (k, v) in carried(breakdown, time_s) {
        if is_memory_category(k) {
            t_mem += v;
        } else {
            t_other += v;
        }
    }
    // No memory instruction executed: the memory time still belongs to the code that ran.
    if w_mem == 0.0 {
        t_other += t_mem;
        t_mem = 0.0;
    }
    let mut per_line: BTreeMap<SourceLoc, f64> = BTreeMap::new();
    for (i, inst) in insts.iter().enumerate() {
        let Some(loc) = &inst.loc else { continue };
        let e = execs(i);
        let t = if is_memory_inst(inst) {
            if w_mem > 0.0 {
                t_mem * e / w_mem
            } else {
                0.0
            }
        } else if w_other > 0.0 {
            t_other * e / w_other
        } else {
            0.0
        };
        if t > 0.0 && loc.line > 0 {
            let file = file_of(loc.file_name.as_deref().unwrap_or(""));
            *per_line
                .entry(SourceLoc {
                    file,
                    line: loc.line,
                })
                .or_default() += t;
        }
    }
    let mut lines: Vec<HotLine> = per_line
        .into_iter()
        .map(|(loc, t)| HotLine {
            loc,
            text: None,
            time_s: t,
            energy_j: match energy_j {
                Some(e) if time_s > 0.0 => e * t / time_s,
                _ => 0.0,
            },
            share: if time_s > 0.0 { t / time_s } else { 0.0 },
        })
        .collect();
    lines.sort_by(|a, b| b.time_s.total_cmp(&a.time_s).then(a.loc.cmp(&b.loc)));
    lines.truncate(top);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerncast_passes::ptx::Module;
    use kerncast_passes::stats::BlockExecs;

    const PTX: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.file 1 "k.cu"
.visible .entry k(.param .u64 p, .param .u32 n)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    .reg .pred %p<2>;
    .loc 1 3 0
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, 0;
$L_loop:
    .loc 1 5 0
    ld.global.u32 %r2, [%rd1];
    .loc 1 6 0
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p1, %r1, 10;
    @%p1 bra $L_loop;
    .loc 1 8 0
    ret;
}
"#;

    #[test]
    fn blocks_and_attribution() {
        let m = Module::parse(PTX).unwrap();
        let f = m.kernels().next().unwrap();
        assert_eq!(block_of_insts(f), vec![0, 0, 1, 1, 1, 1, 2]);
        let mut s = BoundStats::default();
        for (b, w) in [(0, 1.0), (1, 10.0), (2, 1.0)] {
            s.block_execs.insert(
                b,
                BlockExecs {
                    threads: w * 32.0,
                    warps: w,
                },
            );
        }
        let bd: BTreeMap<String, f64> = [
            ("dram".to_string(), 6.0),
            ("compute".to_string(), 3.0),
            ("launch".to_string(), 1.0),
        ]
        .into_iter()
        .collect();
        let hot = attribute(f, &s, &bd, Some(20.0), 10.0, &|n| n.to_string(), 10);
        // The one global load (line 5) carries all dram time.
        let l5 = hot.iter().find(|h| h.loc.line == 5).unwrap();
        assert!((l5.time_s - 6.0).abs() < 1e-9, "{hot:?}");
        assert!((l5.energy_j - 12.0).abs() < 1e-9);
        assert_eq!(hot[0].loc.line, 5);
        let total: f64 = hot.iter().map(|h| h.time_s).sum();
        assert!((total - 9.0).abs() < 1e-9, "launch time is not on any line");
        // Line 6 (add, setp, bra: 30 warp executions) outweighs lines 3 and 8.
        assert_eq!(hot[1].loc.line, 6);
        assert_eq!(hot[1].loc.file, "k.cu");

        // a roofline's resources at work at once, its time their maximum (dram): the load
        // carries all of it, and no line more than the kernel's time
        let roof: BTreeMap<String, f64> = [("dram", 6.0), ("l2", 4.0), ("issue", 3.0)]
            .map(|(k, v)| (k.to_string(), v))
            .into_iter()
            .collect();
        let hot = attribute(f, &s, &roof, None, 6.0, &|n| n.to_string(), 10);
        assert_eq!(hot.len(), 1, "{hot:?}");
        assert_eq!((hot[0].loc.line, hot[0].share), (5, 1.0));
        // issue-bound: the other instructions carry it, in proportion
        let issue: BTreeMap<String, f64> = [("dram", 2.0), ("issue", 5.0)]
            .map(|(k, v)| (k.to_string(), v))
            .into_iter()
            .collect();
        let hot = attribute(f, &s, &issue, None, 5.0, &|n| n.to_string(), 10);
        let shares: f64 = hot.iter().map(|h| h.share).sum();
        assert!((shares - 1.0).abs() < 1e-9 && hot.iter().all(|h| h.loc.line != 5));
    }
}
