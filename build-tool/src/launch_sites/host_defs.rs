//! What a host file defines once and never changes, for the launches' expressions to read:
//! integer and `dim3` declarations, macros, struct variables and size helpers.

use super::c_text::{bare_name, code_only, dim3_parts};
use super::{occupancy_calls, size_fns, struct_args};
use crate::workload::split_top;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// What the file defines once and never changes: scalar values as expression text, and `dim3`
/// variables as their components.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostDefs {
    pub scalars: BTreeMap<String, String>,
    pub dims: BTreeMap<String, Vec<String>>,
    /// The integer macros (`#define TILE 16`): the workload reads them as macros, not as
    /// parameters, so that `kerncast rank --vary TILE=…` recompiles the kernel with the value.
    pub macros: BTreeMap<String, i64>,
    /// Struct variables and the members they are given (`Params p{…}`, `p.n = n;`).
    pub structs: struct_args::StructInits,
    /// Size helpers the expressions may call (`div_up(n, 256)`), expanded where called.
    pub fns: BTreeMap<String, size_fns::SizeFn>,
    /// Names the CUDA occupancy API sets (`cudaOccupancyMaxPotentialBlockSize(&minGrid,
    /// &blockSize, k, 0, 0)`), answered for each device.
    pub queries: BTreeMap<String, occupancy_calls::HostQuery>,
    /// Lists declared once with their elements and never changed (`int sizes[] = {512, 1024};`),
    /// as written, for `sizes[i]` to read (`range_for`).
    pub lists: BTreeMap<String, Vec<String>>,
}

#[cfg(test)]
impl HostDefs {
    /// Scalar definitions only (`[("n", "1 << 20")]`), for tests.
    pub fn of_scalars(pairs: &[(&str, &str)]) -> HostDefs {
        HostDefs {
            scalars: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..HostDefs::default()
        }
    }
}

pub(super) static DEFINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+(.+)$").unwrap()
});
/// An integer declaration, up to its `;`: `int n = 1 << 20;`, `int w = 64, h = 32;`.
static SCALAR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:static\s+)?(?:(?:const|constexpr)\s+)*(?:(?:unsigned|signed|long|short)\s+)*(?:int|long|short|unsigned|size_t|std::size_t|int32_t|int64_t|uint32_t|uint64_t|cl_int|cl_uint|cl_long|cl_ulong|bool|auto)\s+(?:const\s+)?([A-Za-z_](?:[^;{}]|\{[^;{}]*\})*);",
    )
    .unwrap()
});
/// A `dim3` declaration, up to its `;`: `dim3 grid(n / 16, n / 16), block(16, 16);`.
static DIM3: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bdim3\s+([A-Za-z_][^;]*);").unwrap());
/// One declarator of a declaration: `n = 1 << 20`, `grid(a, b)`, `block{16, 16}`, `g = dim3(…)`.
static DECLARATOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)^([A-Za-z_]\w*)\s*(?:=\s*(?:dim3\s*)?(\S.*)|([({].*))$").unwrap()
});

/// How many integer declarations in `code` declare `name`.
fn declarations(code: &str, name: &str) -> usize {
    SCALAR
        .captures_iter(code)
        .filter(|c| {
            split_top(&c[1]).iter().any(|d| {
                let d = d.trim_start();
                d.strip_prefix(name).is_some_and(|rest| {
                    !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            })
        })
        .count()
}

/// The (name, initializer) pairs of a declarator list; `a(…)` and `a{…}` keep their brackets.
pub(super) fn declarators(list: &str) -> Vec<(String, String)> {
    split_top(list)
        .iter()
        .filter_map(|d| {
            let c = DECLARATOR.captures(d.trim())?;
            let init = c.get(2).or(c.get(3))?.as_str().trim();
            Some((c[1].to_string(), init.to_string()))
        })
        .collect()
}

/// The names `text` defines once and changes nowhere (see the module doc).
pub fn host_defs(text: &str) -> HostDefs {
    let code = code_only(text);
    let mut defs = defs_in(&code, &code);
    defs.macros = crate::annotations::int_macros(text);
    defs.fns = size_fns::size_fns(&code);
    defs
}

/// The scalar, `dim3` and struct definitions of `scope` (code, or a stretch of it) that `code`
/// never changes; no macros or size helpers (those are the file's, [`host_defs`]).
pub(super) fn defs_in(scope: &str, code: &str) -> HostDefs {
    let mut scalars: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut note = |name: &str, value: String| {
        let v = value.trim().to_string();
        scalars
            .entry(name.to_string())
            .and_modify(|old| {
                if old.as_deref() != Some(v.as_str()) {
                    *old = None;
                }
            })
            .or_insert(Some(v));
    };
    for c in DEFINE.captures_iter(scope) {
        note(&c[1], c[2].to_string());
    }
    for c in SCALAR.captures_iter(scope) {
        for (name, init) in declarators(&c[1]) {
            // `int n{1024}` is `int n = 1024`
            let braced = init.strip_prefix('{').and_then(|r| r.strip_suffix('}'));
            note(&name, braced.map_or(init.clone(), str::to_string));
        }
        // `size_t global;` given its value by one assignment later (`global = n;`), in the
        // scope or, for a name declared once in the file (a global), anywhere in it
        for name in split_top(&c[1]).iter().filter_map(|d| bare_name(d)) {
            let assigned = crate::launch_sites::c_text::cached_regex(&format!(
                r"\b{}\s*=([^=;][^;]*);",
                regex::escape(name)
            ))
            .unwrap();
            let found: Vec<_> = assigned.captures_iter(scope).collect();
            let found = if found.is_empty() && declarations(code, name) == 1 {
                assigned.captures_iter(code).collect()
            } else {
                found
            };
            if let [one] = &found[..] {
                note(name, one[1].to_string());
            }
        }
    }
    let mut dims: BTreeMap<String, Option<Vec<String>>> = BTreeMap::new();
    for (name, v) in DIM3.captures_iter(scope).flat_map(|c| declarators(&c[1])) {
        let parts = dim3_parts(&format!("dim3{v}")).unwrap_or_else(|| vec![v.to_string()]);
        dims.entry(name)
            .and_modify(|old| {
                if old.as_ref() != Some(&parts) {
                    *old = None;
                }
            })
            .or_insert(Some(parts));
    }
    let mut scalars: BTreeMap<String, String> = scalars
        .into_iter()
        .filter_map(|(k, v)| Some((k.clone(), v.filter(|_| assigned_once(code, &k))?)))
        .collect();
    // `cudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, dev)`: the device's SMs
    for c in SM_ATTRIBUTE.captures_iter(scope) {
        let name = &c[1];
        if set_only_through_address(code, name) {
            scalars.insert(
                name.to_string(),
                crate::workload::DEVICE_SM_COUNT.to_string(),
            );
        }
    }
    scalars.extend(super::containers::sizes_in(scope, code));
    scalars.extend(super::tensors::shapes_in(scope, code));
    scalars.extend(super::dtypes::dtypes_in(scope, code));
    let dims = dims
        .into_iter()
        .filter_map(|(k, v)| Some((k.clone(), v.filter(|_| assigned_once(code, &k))?)))
        .collect();
    HostDefs {
        scalars,
        dims,
        structs: struct_args::struct_inits(scope),
        queries: occupancy_calls::queries(scope, code),
        lists: super::range_for::lists_in(scope, code),
        ..HostDefs::default()
    }
}

/// Whether `code` gives `name` its value only through the one call that takes its address
/// (`cudaDeviceGetAttribute(&numSMs, …)`): no other assignment, no step, and no value but one
/// where it is declared (`int numSMs = 0;`), which the call overwrites.
pub(super) fn set_only_through_address(code: &str, name: &str) -> bool {
    let address =
        crate::launch_sites::c_text::cached_regex(&format!(r"&\s*{}\b", regex::escape(name)))
            .unwrap();
    address.find_iter(code).count() == 1
        && assignments(&address.replace_all(code, ""), name) == Some(initializers(code, name))
}

static SM_ATTRIBUTE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"cudaDeviceGetAttribute\s*\(\s*&\s*([A-Za-z_]\w*)\s*,\s*cudaDevAttrMultiProcessorCount\b",
    )
    .unwrap()
});

/// Whether `name` is given a value at most once in `code` (its definition), never incremented,
/// never passed by address, and no member of it assigned.
/// `defs` with the values that names assigned in branches take where the branches are
/// decided by `defs` (`if (big) n = 1 << 24; else n = 1 << 20;` with `big = 0`: n is
/// `1 << 20`). A name gets a value only when every assignment of it in the file is a plain `=`
/// in `scope` (a range of `code`), every one but one is in a branch ruled out, and that one is
/// in none or in branches that are taken; otherwise it stays unknown, as before.
pub(super) fn add_branch_values(defs: &mut HostDefs, code: &str, scope: std::ops::Range<usize>) {
    let mut by_name = assigned_values(code, scope);
    by_name.retain(|name, found| {
        found.len() > 1
            && !defs.scalars.contains_key(name)
            && assignments(code, name) == Some(found.len())
    });
    for (name, found) in by_name {
        let mut live = Vec::new();
        for (at, value) in found {
            let decided: Option<Vec<bool>> = super::branches::guards(code, at)
                .iter()
                .map(|g| super::branches::decide(g, defs).map(|(holds, _)| holds))
                .collect();
            match decided {
                Some(holds) if holds.contains(&false) => {}
                Some(_) => live.push(value),
                // a branch not decided: either value may hold
                None => {
                    live.clear();
                    break;
                }
            }
        }
        if let [value] = &live[..] {
            defs.scalars.insert(name, value.clone());
        }
    }
}

/// Every plain `=` in the range `scope` of `code`, by name: where the name is and the value as
/// written; not those of a member of another variable (`p.n = …`).
pub(super) fn assigned_values(
    code: &str,
    scope: std::ops::Range<usize>,
) -> BTreeMap<String, Vec<(usize, String)>> {
    static ASSIGN: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\b([A-Za-z_]\w*)\s*=([^=;][^;]*);").unwrap());
    let mut by_name: BTreeMap<String, Vec<(usize, String)>> = BTreeMap::new();
    for c in ASSIGN.captures_iter(&code[scope.clone()]) {
        let at = scope.start + c.get(1).unwrap().start();
        if !struct_args::member_of_another(code, at) {
            by_name
                .entry(c[1].to_string())
                .or_default()
                .push((at, c[2].trim().to_string()));
        }
    }
    by_name
}

/// How many integer declarations in `code` declare `name` with a value (`int n = 0`).
fn initializers(code: &str, name: &str) -> usize {
    SCALAR
        .captures_iter(code)
        .flat_map(|c| declarators(&c[1]))
        .filter(|(declared, _)| declared == name)
        .count()
}

fn assigned_once(code: &str, name: &str) -> bool {
    assignments(code, name).is_some_and(|n| n <= 1)
}

/// How many times `code` assigns `name` (its initializer included) or a member of it; `None`
/// when it also steps it (`++`) or takes its address.
pub(super) fn assignments(code: &str, name: &str) -> Option<usize> {
    let w = writes(code, name);
    w.change
        .is_none()
        .then_some(w.assigns.len() + w.paren_inits)
}

/// Where `code` writes `name`.
struct Writes {
    /// The offsets of its `=` and compound assignments, initializers included; not those of a
    /// member of another variable (`p.n = …`).
    assigns: Vec<usize>,
    /// `dim3 name(…)` and `dim3 name{…}`.
    paren_inits: usize,
    /// The first step (`n++`) or address (`&n`), with its offset.
    change: Option<(usize, String)>,
}

fn writes(code: &str, name: &str) -> Writes {
    let n = regex::escape(name);
    let assign = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b{n}\s*(?:\.\s*[xyz]\s*)?(?:[-+*/%&|^]|<<|>>)?=[^=]"
    ))
    .unwrap();
    let change = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b{n}\s*(?:\+\+|--)|(?:\+\+|--)\s*{n}\b|&\s*{n}\b"
    ))
    .unwrap();
    let paren_init =
        crate::launch_sites::c_text::cached_regex(&format!(r"\bdim3\s+{n}\s*[({{]")).unwrap();
    Writes {
        assigns: assign
            .find_iter(code)
            .filter(|m| !struct_args::member_of_another(code, m.start()))
            .map(|m| m.start())
            .collect(),
        paren_inits: paren_init.find_iter(code).count(),
        change: change
            .find(code)
            .map(|m| (m.start(), m.as_str().to_string())),
    }
}

/// Why `code` gives `name` no single value, for the error that asks for it: it is assigned
/// more than once (`n` is given a value at lines 15 and 22), stepped, or passed by address.
/// `None` where none of these holds.
pub(super) fn why_no_value(code: &str, name: &str) -> Option<String> {
    if let Some(container) = name.strip_suffix(".size") {
        return super::containers::why_no_size(code, container);
    }
    if !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let line = |at: usize| code[..at].matches('\n').count() + 1;
    let w = writes(code, name);
    if let Some((at, text)) = w.change {
        let (how, so) = if text.starts_with('&') {
            ("passed by address", ", so a call may set it")
        } else {
            ("stepped", "")
        };
        return Some(format!(
            "`{name}` is {how} at line {} (`{text}`){so}",
            line(at)
        ));
    }
    let mut lines: Vec<usize> = w.assigns.iter().map(|&at| line(at)).collect();
    lines.dedup();
    if lines.len() < 2 {
        return None;
    }
    let (head, tail) = match lines.len() {
        n if n > 4 => (&lines[..3], format!("{} more", n - 3)),
        n => (&lines[..n - 1], lines[n - 1].to_string()),
    };
    let head: Vec<String> = head.iter().map(ToString::to_string).collect();
    let listed = format!("{} and {tail}", head.join(", "));
    Some(format!(
        "`{name}` is given a value at lines {listed}, so it may differ from one launch to the next"
    ))
}
