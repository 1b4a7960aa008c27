//! Relocatable device code across the units of one analysis: a unit whose kernels call a
//! function it only declares gets the definition another unit exports
//! ([`kerncast_passes::link`]), and its calls are inlined again, as nvlink joins the units of a
//! program built with `-rdc=true` / `-fgpu-rdc`. What no unit defines stays a call and is shown
//! as before.

use super::{sha256, Unit};
use kerncast_passes::inline::inline_calls;
use kerncast_passes::link::link;
use kerncast_passes::ptx::Module;

/// Whether `m` declares `name` without defining it.
fn declared_only(m: &Module, name: &str) -> bool {
    m.function(name).is_some_and(|f| f.is_declaration)
}

/// Links every unit that calls a function it only declares against the other units.
pub(super) fn link_units(units: &mut [Unit]) {
    let wanting: Vec<usize> = (0..units.len())
        .filter(|&i| {
            let u = &units[i];
            u.not_inlined
                .iter()
                .any(|c| declared_only(&u.module, &c.callee))
        })
        .collect();
    if wanting.is_empty() || units.len() < 2 {
        return;
    }
    // a unit's module has only its kernels inlined: its device functions are as lowered
    let libraries: Vec<Module> = units.iter().map(|u| u.module.clone()).collect();
    for i in wanting {
        // the unit's own module before inlining, from its PTX (parsed and verified before)
        let Ok(own) = Module::parse(&units[i].ptx) else {
            continue;
        };
        let others: Vec<usize> = (0..units.len()).filter(|&j| j != i).collect();
        let refs: Vec<&Module> = others.iter().map(|&j| &libraries[j]).collect();
        let linked = link(&own, &refs);
        if linked.functions.is_empty() {
            continue;
        }
        let mut from: Vec<usize> = linked.functions.iter().map(|(_, k)| others[*k]).collect();
        from.sort_unstable();
        from.dedup();
        let names: Vec<String> = linked
            .functions
            .iter()
            .map(|(n, k)| {
                format!(
                    "`{}` ({})",
                    super::demangle(n),
                    units[others[*k]].job.display_path
                )
            })
            .collect();
        let key: Vec<String> = from.iter().map(|&j| units[j].ptx_sha256.clone()).collect();
        let inlined = inline_calls(&linked.module);
        let u = &mut units[i];
        u.module = inlined.module;
        u.not_inlined = inlined.not_inlined;
        u.linked_sha256 = sha256(&key.join(","));
        u.notes.push(format!(
            "device functions of other files linked in, as for relocatable device code (-rdc / -fgpu-rdc): {}",
            names.join(", ")
        ));
    }
}
