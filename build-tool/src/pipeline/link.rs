//! Relocatable device code across the units of one analysis: a unit whose kernels call a
//! function it only declares gets the definition another unit exports
//! ([`kerncast_passes::link`]), and its calls are inlined again, as nvlink joins the units of a
//! program built with `-rdc=true` / `-fgpu-rdc`. What no unit defines stays a call and is shown
//! as before.

use super::{sha256, Unit};
use crate::cache::Cache;
use kerncast_passes::inline::inline_calls;
use kerncast_passes::link::{exports, link};
use kerncast_passes::ptx::Module;
use std::collections::BTreeMap;

/// Links every unit that calls a function it only declares against the other units.
pub(super) fn link_units(units: &mut [Unit]) {
    // which units export each function a unit calls but only declares: one pass over the
    // calls left after inlining, none over every unit per unit
    let mut exporters: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for u in units.iter() {
        for c in &u.not_inlined {
            if u.module
                .function(&c.callee)
                .is_some_and(|f| f.is_declaration)
            {
                exporters.entry(c.callee.as_str()).or_default();
            }
        }
    }
    if exporters.is_empty() {
        return;
    }
    for (j, u) in units.iter().enumerate() {
        for (name, by) in exporters.iter_mut() {
            if exports(&u.module, name) {
                by.push(j);
            }
        }
    }
    // (unit, its module linked, the units its functions came from), worked out before any
    // unit changes: a unit's module has only its kernels inlined, its device functions are
    // as lowered
    let mut linked_units = Vec::new();
    for (i, u) in units.iter().enumerate() {
        let wanted = u.not_inlined.iter().any(|c| {
            exporters
                .get(c.callee.as_str())
                .is_some_and(|by| by.iter().any(|&j| j != i))
        });
        if !wanted {
            continue;
        }
        // the unit's own module before inlining, from its PTX (parsed and verified before)
        let Ok(own) = Module::parse(&u.ptx) else {
            continue;
        };
        let others: Vec<usize> = (0..units.len()).filter(|&j| j != i).collect();
        let libraries: Vec<&Module> = others.iter().map(|&j| &units[j].module).collect();
        let linked = link(&own, &libraries);
        let from: Vec<(String, usize)> = linked
            .functions
            .iter()
            .map(|(n, k)| (n.clone(), others[*k]))
            .collect();
        linked_units.push((i, linked.module, from));
    }
    for (i, module, from) in linked_units {
        let names: Vec<String> = from
            .iter()
            .map(|(n, j)| format!("`{}` ({})", super::demangle(n), units[*j].job.display_path))
            .collect();
        let mut sources: Vec<usize> = from.iter().map(|(_, j)| *j).collect();
        sources.sort_unstable();
        sources.dedup();
        let key: Vec<String> = sources
            .iter()
            .map(|&j| units[j].ptx_sha256.clone())
            .collect();
        // the linked program is what ptxas assembles for the GPU: its registers and frames (not
        // its SASS by line: the text assembled is not the one its spans number)
        let cache = units[i].job.cache.clone().map(Cache::new);
        let registers = super::assemble_cached(&module, &module.to_string(), None, cache.as_ref());
        let inlined = inline_calls(&module);
        let u = &mut units[i];
        u.registers = registers;
        u.module = inlined.module;
        u.not_inlined = inlined.not_inlined;
        u.linked_sha256 = sha256(&key.join(","));
        u.notes.push(format!(
            "device functions of other files linked in, as for relocatable device code (-rdc / -fgpu-rdc): {}",
            names.join(", ")
        ));
    }
}
