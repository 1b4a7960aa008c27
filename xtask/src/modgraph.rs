//! `cargo xtask modgraph [CRATE_DIR…]`: the import graph between the modules (files) of each
//! workspace crate, and its cycles. Every `.rs` file under a crate's `src/` is parsed with
//! `syn`. A path that names an item of another module of the same crate (`use crate::a::T`,
//! `super::f`, `self::b::C`, `b::C` for a child `b`, or such a path in code, also through a
//! name a `use` brought in) is an edge from the file to the file that defines the item: a
//! re-export (`pub use b::C` in `a`) is followed to `b`, since `a` is then only the way in.
//! Re-exports themselves and child declarations (`mod x;`) are not edges. Strongly connected
//! components with more than one file are the cycles (petgraph's Tarjan).

use anyhow::{Context, Result};
use petgraph::graph::DiGraph;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The crates whose modules are checked, by folder, when none is named.
const CRATES: &[&str] = &[
    "cli",
    "build-tool",
    "passes",
    "models",
    "host",
    "kerncast-build",
    "tests",
    "xtask",
];

pub fn run(root: &Path, only: &[String]) -> Result<()> {
    let crates: Vec<String> = if only.is_empty() {
        CRATES.iter().map(|s| s.to_string()).collect()
    } else {
        only.to_vec()
    };
    let mut cyclic = 0;
    for c in &crates {
        let graph = crate_graph(&root.join(c).join("src"))?;
        let cycles = graph.cycles();
        println!(
            "{c}: {} modules, {} import edges, {} cycle(s){}",
            graph.modules.len(),
            graph.edges.len(),
            cycles.len(),
            if cycles.is_empty() { "" } else { ":" }
        );
        for cycle in &cycles {
            println!("  {} modules: {}", cycle.len(), cycle.join(" "));
            // who imports whom inside the cycle: the edges to cut
            for m in cycle {
                let to: Vec<&str> = graph
                    .edges
                    .iter()
                    .filter(|(a, b)| a == m && cycle.contains(b))
                    .map(|(_, b)| b.as_str())
                    .collect();
                println!("    {m} -> {}", to.join(" "));
            }
        }
        cyclic += cycles.len();
    }
    if cyclic > 0 {
        anyhow::bail!("{cyclic} import cycle(s) between modules");
    }
    Ok(())
}

/// The modules of one crate (`a::b`, the crate root as `crate`) and who imports whom.
struct Graph {
    modules: BTreeMap<String, PathBuf>,
    edges: BTreeSet<(String, String)>,
}

impl Graph {
    /// Each cycle's modules, sorted, largest cycle first.
    fn cycles(&self) -> Vec<Vec<String>> {
        let mut g = DiGraph::<&str, ()>::new();
        let index: BTreeMap<&str, _> = self
            .modules
            .keys()
            .map(|m| (m.as_str(), g.add_node(m.as_str())))
            .collect();
        for (a, b) in &self.edges {
            if let (Some(x), Some(y)) = (index.get(a.as_str()), index.get(b.as_str())) {
                g.add_edge(*x, *y, ());
            }
        }
        let mut out: Vec<Vec<String>> = petgraph::algo::tarjan_scc(&g)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                let mut names: Vec<String> = c.iter().map(|n| g[*n].to_string()).collect();
                names.sort();
                names
            })
            .collect();
        out.sort_by_key(|c| std::cmp::Reverse(c.len()));
        out
    }
}

fn crate_graph(src: &Path) -> Result<Graph> {
    let mut files = BTreeMap::new();
    collect_modules(src, src, &mut files)?;
    let mut modules: BTreeMap<String, Module> = BTreeMap::new();
    for (name, file) in &files {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let ast = syn::parse_file(&text).with_context(|| format!("parsing {}", file.display()))?;
        let mut m = Module::default();
        m.visit_file(&ast);
        modules.insert(name.clone(), m);
    }
    let mut edges = BTreeSet::new();
    for (name, m) in &modules {
        for p in &m.paths {
            // a path through a name a `use` brought in starts where that `use` points
            let full: Vec<String> = match p.first().and_then(|f| m.aliases.get(f)) {
                Some(target) if p.len() > 1 => target.iter().chain(&p[1..]).cloned().collect(),
                _ => p.clone(),
            };
            if let Some(target) = resolve(name, &full, &modules, 0) {
                if target != *name {
                    edges.insert((name.clone(), target));
                }
            }
        }
    }
    Ok(Graph {
        modules: files,
        edges,
    })
}

/// What one file defines, re-exports and uses.
#[derive(Default)]
struct Module {
    /// Names of the items it defines (types, functions, traits, constants, macros).
    items: BTreeSet<String>,
    /// `pub use` by the name it is seen under: the path it re-exports.
    reexports: BTreeMap<String, Vec<String>>,
    /// `pub use a::*`: the paths whose items it re-exports.
    globs: Vec<Vec<String>>,
    /// A private `use`'s name: the path it brings in.
    aliases: BTreeMap<String, Vec<String>>,
    /// Paths it uses: private `use`s and paths in code.
    paths: Vec<Vec<String>>,
    /// How many inline `mod x { … }` the visitor is inside: their `super::` stays in the file.
    inline_depth: usize,
}

impl Module {
    fn use_tree(&mut self, public: bool, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(public, prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut v = prefix.clone();
                if n.ident != "self" {
                    v.push(n.ident.to_string());
                }
                let seen = v.last().cloned().unwrap_or_default();
                self.bind(public, seen, v);
            }
            syn::UseTree::Rename(r) => {
                let mut v = prefix.clone();
                v.push(r.ident.to_string());
                self.bind(public, r.rename.to_string(), v);
            }
            syn::UseTree::Glob(_) => {
                let path = self.as_file_writes(prefix.clone());
                if public {
                    self.globs.push(path);
                } else {
                    self.paths.push(path);
                }
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(public, prefix, t);
                }
            }
        }
    }

    /// A path as the file's own module would write it: the `super::`s that only leave an
    /// inline module of the file are dropped.
    fn as_file_writes(&self, mut path: Vec<String>) -> Vec<String> {
        let mut inner = self.inline_depth;
        while inner > 0 && path.first().is_some_and(|s| s == "super") {
            path.remove(0);
            inner -= 1;
        }
        if inner < self.inline_depth && path.first().is_some_and(|s| s != "super") {
            path.insert(0, "self".to_string());
        }
        path
    }

    fn bind(&mut self, public: bool, seen: String, path: Vec<String>) {
        let path = self.as_file_writes(path);
        if public {
            self.reexports.insert(seen, path);
        } else {
            self.aliases.insert(seen, path.clone());
            self.paths.push(path);
        }
    }
}

impl<'ast> Visit<'ast> for Module {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // test code is not what the module depends on
        let test_only = m.attrs.iter().any(|a| {
            a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
        });
        if test_only {
            return;
        }
        self.inline_depth += 1;
        syn::visit::visit_item_mod(self, m);
        self.inline_depth -= 1;
    }

    fn visit_item(&mut self, i: &'ast syn::Item) {
        let name = match i {
            syn::Item::Const(x) => Some(&x.ident),
            syn::Item::Enum(x) => Some(&x.ident),
            syn::Item::Fn(x) => Some(&x.sig.ident),
            syn::Item::Macro(x) => x.ident.as_ref(),
            syn::Item::Static(x) => Some(&x.ident),
            syn::Item::Struct(x) => Some(&x.ident),
            syn::Item::Trait(x) => Some(&x.ident),
            syn::Item::Type(x) => Some(&x.ident),
            syn::Item::Union(x) => Some(&x.ident),
            _ => None,
        };
        if let Some(n) = name {
            self.items.insert(n.to_string());
        }
        syn::visit::visit_item(self, i);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let public = !matches!(u.vis, syn::Visibility::Inherited);
        self.use_tree(public, &mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() > 1 {
            let path = self.as_file_writes(segs);
            self.paths.push(path);
        }
        syn::visit::visit_path(self, p);
    }
}

/// Every file of the crate by module path.
fn collect_modules(src: &Path, dir: &Path, out: &mut BTreeMap<String, PathBuf>) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "bin") && dir == src {
                continue;
            }
            collect_modules(src, &p, out)?;
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p.strip_prefix(src).unwrap_or(&p);
            let mut parts: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|l| l == "mod") {
                parts.pop();
            }
            let name = if parts == ["lib"] || parts == ["main"] || parts.is_empty() {
                "crate".to_string()
            } else {
                parts.join("::")
            };
            out.entry(name).or_insert(p);
        }
    }
    Ok(())
}

/// The module that defines what a path (as written in `module`) names: the modules it walks
/// through, then the item, followed through re-exports (to a depth of 8).
fn resolve(
    module: &str,
    path: &[String],
    modules: &BTreeMap<String, Module>,
    depth: usize,
) -> Option<String> {
    let mut cur: Vec<String> = if module == "crate" {
        Vec::new()
    } else {
        module.split("::").map(str::to_string).collect()
    };
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            cur.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                cur.pop()?;
                rest = &rest[1..];
            }
        }
        // a path that starts with a child module's name (`host_totals::HostRun` in
        // `report`) is relative to the module, as `self::` is
        Some(first) => {
            let mut child = cur.clone();
            child.push(first.to_string());
            if !modules.contains_key(&child.join("::")) {
                return None;
            }
        }
        None => return None,
    }
    let name = |v: &[String]| {
        if v.is_empty() {
            "crate".to_string()
        } else {
            v.join("::")
        }
    };
    for (i, seg) in rest.iter().enumerate() {
        let mut next = cur.clone();
        next.push(seg.clone());
        if modules.contains_key(&name(&next)) {
            cur = next;
            continue;
        }
        // `seg` is an item of `cur`: defined there, or re-exported from elsewhere
        let here = name(&cur);
        let m = modules.get(&here)?;
        if m.items.contains(seg) || depth >= 8 {
            return Some(here);
        }
        // a re-export, or a private `use` the module's children see through `super::`
        if let Some(target) = m.reexports.get(seg).or_else(|| m.aliases.get(seg)) {
            let mut p = target.clone();
            p.extend(rest[i + 1..].iter().cloned());
            // None: the re-export is of another crate's item (`pub use kerncast_host::X`)
            return resolve(&here, &p, modules, depth + 1);
        }
        for g in &m.globs {
            let mut p = g.clone();
            p.push(seg.clone());
            if let Some(t) = resolve(&here, &p, modules, depth + 1) {
                if modules
                    .get(&t)
                    .is_some_and(|tm| tm.items.contains(seg) || tm.reexports.contains_key(seg))
                {
                    return Some(t);
                }
            }
        }
        return Some(here);
    }
    // the path names a module itself (`use crate::ptx;`): what is used through it counts
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(files: &[(&str, &str)]) -> BTreeMap<String, Module> {
        files
            .iter()
            .map(|(name, text)| {
                let mut m = Module::default();
                m.visit_file(&syn::parse_file(text).unwrap());
                (name.to_string(), m)
            })
            .collect()
    }

    #[test]
    fn paths_resolve_to_the_module_that_defines_the_item() {
        let modules = parsed(&[
            ("crate", "pub mod a; pub mod c;"),
            (
                "a",
                "pub mod b; pub use b::Inner; pub use b::*; pub use std::fmt::Write;",
            ),
            (
                "a::b",
                "pub struct Inner; pub fn f() {} pub struct Globbed;",
            ),
            ("c", "pub fn g() {} use crate::a::b::Inner;"),
            ("c::d", ""),
        ]);
        let p = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
        let at = |m: &str, s: &str| resolve(m, &p(s), &modules, 0);
        assert_eq!(at("c", "crate::a::b::f").as_deref(), Some("a::b"));
        // through the re-export, to where it is defined
        assert_eq!(at("c", "crate::a::Inner").as_deref(), Some("a::b"));
        assert_eq!(at("c", "crate::a::Globbed").as_deref(), Some("a::b"));
        // a child naming what its parent brought in with `use` reaches where it is defined
        assert_eq!(at("c::d", "super::Inner").as_deref(), Some("a::b"));
        // another crate's item, re-exported, is no edge
        assert_eq!(at("c", "crate::a::Write"), None);
        assert_eq!(at("a::b", "super::super::c::g").as_deref(), Some("c"));
        assert_eq!(at("a", "b::f").as_deref(), Some("a::b"));
        assert_eq!(at("a", "self::b::f").as_deref(), Some("a::b"));
        assert_eq!(at("c", "b::f"), None);
        assert_eq!(at("a", "std::fmt::Write"), None);
        // a module named by itself is not a use of anything in it
        assert_eq!(at("c", "crate::a"), None);
    }

    #[test]
    fn an_inline_module_s_super_stays_in_the_file_and_tests_are_left_out() {
        let modules = parsed(&[(
            "a",
            "mod inner { use super::helper; } #[cfg(test)] mod tests { use crate::b::T; }",
        )]);
        let a = &modules["a"];
        assert_eq!(a.paths, vec![vec!["self", "helper"]]);
    }

    #[test]
    fn a_re_export_is_not_an_edge_and_a_name_brought_in_is_followed() {
        let modules = parsed(&[
            ("a", "pub use crate::b::T; use crate::c; fn f() { c::g(); }"),
            ("b", "pub struct T;"),
            ("c", "pub fn g() {}"),
        ]);
        let a = &modules["a"];
        assert!(a.reexports.contains_key("T"));
        assert!(!a.paths.iter().any(|p| p.last().is_some_and(|l| l == "T")));
        assert_eq!(a.aliases["c"], vec!["crate", "c"]);
    }

    #[test]
    fn a_two_module_cycle_is_found_and_a_chain_is_not() {
        let modules: BTreeMap<String, PathBuf> = ["crate", "a", "b", "c"]
            .iter()
            .map(|m| (m.to_string(), PathBuf::new()))
            .collect();
        let edge = |x: &str, y: &str| (x.to_string(), y.to_string());
        let chain = Graph {
            modules: modules.clone(),
            edges: [edge("a", "b"), edge("b", "c")].into_iter().collect(),
        };
        assert!(chain.cycles().is_empty());
        let cyclic = Graph {
            modules,
            edges: [edge("a", "b"), edge("b", "c"), edge("c", "a")]
                .into_iter()
                .collect(),
        };
        assert_eq!(cyclic.cycles(), vec![vec!["a", "b", "c"]]);
    }
}
