//! `cargo xtask modgraph [CRATE_DIR…]`: the import graph between the modules (files) of each
//! workspace crate, and its cycles. Every `.rs` file under a crate's `src/` is parsed with
//! `syn`; a path that names another module of the same crate (`use crate::a::b`, `super::x`,
//! `self::y`, or `crate::a::f()` in an expression) is an edge from the file to the file of the
//! longest module the path names. Strongly connected components with more than one file are
//! the cycles (petgraph's Tarjan). Declaring a child (`mod x;`) is not an edge: a parent owns
//! its children; only what it uses of them is.

use anyhow::{Context, Result};
use petgraph::graph::DiGraph;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The crates whose modules are checked, by folder, when none is named.
const CRATES: &[&str] = &[
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
    let mut modules = BTreeMap::new();
    collect_modules(src, src, &mut modules)?;
    let mut edges = BTreeSet::new();
    for (module, file) in &modules {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let ast = syn::parse_file(&text).with_context(|| format!("parsing {}", file.display()))?;
        let mut paths = PathCollector::default();
        paths.visit_file(&ast);
        for p in paths.paths {
            if let Some(target) = resolve(module, &p, &modules) {
                if target != *module && !into_root(&target, module) {
                    edges.insert((module.clone(), target));
                }
            }
        }
    }
    Ok(Graph { modules, edges })
}

/// Whether an edge from `b` to `a` is left out: edges into the crate root are, since what a
/// module names there is mostly the root's re-exports of other modules (`pub use`), whose
/// real owner a path alone does not tell; the root's own edges to its modules are kept.
fn into_root(a: &str, b: &str) -> bool {
    a == "crate" && b != "crate"
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

/// The module a path (as written in `module`) lands in: the longest existing module prefix.
fn resolve(module: &str, path: &[String], modules: &BTreeMap<String, PathBuf>) -> Option<String> {
    let mut base: Vec<String> = if module == "crate" {
        Vec::new()
    } else {
        module.split("::").map(str::to_string).collect()
    };
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    let mut best = None;
    let mut cur = base.clone();
    let name = |v: &[String]| {
        if v.is_empty() {
            "crate".to_string()
        } else {
            v.join("::")
        }
    };
    if modules.contains_key(&name(&cur)) {
        best = Some(name(&cur));
    }
    for seg in rest {
        cur.push(seg.clone());
        let n = name(&cur);
        if modules.contains_key(&n) {
            best = Some(n);
        } else {
            break;
        }
    }
    best
}

/// The paths a file writes: `use` trees flattened, and paths in expressions and types.
#[derive(Default)]
struct PathCollector {
    paths: Vec<Vec<String>>,
}

impl PathCollector {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut v = prefix.clone();
                if n.ident != "self" {
                    v.push(n.ident.to_string());
                }
                self.paths.push(v);
            }
            syn::UseTree::Rename(r) => {
                let mut v = prefix.clone();
                v.push(r.ident.to_string());
                self.paths.push(v);
            }
            syn::UseTree::Glob(_) => self.paths.push(prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for PathCollector {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() > 1 {
            self.paths.push(segs);
        }
        syn::visit::visit_path(self, p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_to_the_longest_module_they_name() {
        let modules: BTreeMap<String, PathBuf> = ["crate", "a", "a::b", "c"]
            .iter()
            .map(|m| (m.to_string(), PathBuf::new()))
            .collect();
        let p = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            resolve("c", &p("crate::a::b::f"), &modules).as_deref(),
            Some("a::b")
        );
        assert_eq!(
            resolve("a::b", &p("super::g"), &modules).as_deref(),
            Some("a")
        );
        assert_eq!(
            resolve("a", &p("self::b::T"), &modules).as_deref(),
            Some("a::b")
        );
        assert_eq!(resolve("a", &p("std::fmt"), &modules), None);
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
