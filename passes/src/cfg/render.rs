//! Text and Graphviz views of a CFG (what `kerncast cfg` prints). Deterministic: blocks, edges and
//! loops in index order.

use super::{Cfg, EdgeKind};
use std::fmt::{self, Display, Formatter, Write};

impl Cfg {
    fn block_title(&self, b: usize) -> String {
        let bl = &self.blocks[b];
        if bl.labels.is_empty() {
            format!("bb{b}")
        } else {
            format!("bb{b} ({})", bl.labels.join(", "))
        }
    }

    fn line_range(&self, b: usize) -> Option<(u32, u32)> {
        let lines = self.blocks[b]
            .insts
            .iter()
            .filter_map(|i| i.loc.as_ref().map(|l| l.line))
            .filter(|&l| l != 0);
        lines.fold(None, |acc, l| match acc {
            None => Some((l, l)),
            Some((a, z)) => Some((a.min(l), z.max(l))),
        })
    }

    /// Graphviz `digraph`, loops drawn as nested clusters.
    pub fn to_dot(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "digraph \"{}\" {{", esc(&self.function));
        s.push_str("  node [shape=box, fontname=\"monospace\"];\n");
        // Loop clusters, nested: children of each loop are the loops whose parent it is.
        for (i, l) in self.loops.iter().enumerate() {
            if l.parent.is_none() {
                self.dot_cluster(&mut s, i, 1);
            }
        }
        for b in 0..self.blocks.len() {
            if self.block_loop[b].is_none() {
                self.dot_node(&mut s, b, 1);
            }
        }
        for e in &self.edges {
            let back = self
                .loops
                .iter()
                .any(|l| l.header == e.to && l.latches.contains(&e.from));
            let style = match e.kind {
                EdgeKind::NotTaken => ", style=dashed",
                _ => "",
            };
            let _ = writeln!(
                s,
                "  bb{} -> bb{} [label=\"{}\"{}{}];",
                e.from,
                e.to,
                e.kind.as_str(),
                style,
                if back { ", color=blue, penwidth=2" } else { "" }
            );
        }
        s.push_str("}\n");
        s
    }

    fn dot_cluster(&self, s: &mut String, li: usize, depth: usize) {
        let ind = "  ".repeat(depth);
        let l = &self.loops[li];
        let _ = writeln!(s, "{ind}subgraph cluster_loop{li} {{");
        let _ = writeln!(
            s,
            "{ind}  label=\"loop {li} (header bb{}, depth {})\"; style=rounded;",
            l.header, l.depth
        );
        for (ci, c) in self.loops.iter().enumerate() {
            if c.parent == Some(li) {
                self.dot_cluster(s, ci, depth + 1);
            }
        }
        for &b in &l.blocks {
            // Each block is drawn in its innermost loop's cluster.
            if self.block_loop[b] == Some(li) {
                self.dot_node(s, b, depth + 1);
            }
        }
        let _ = writeln!(s, "{ind}}}");
    }

    fn dot_node(&self, s: &mut String, b: usize, depth: usize) {
        let bl = &self.blocks[b];
        let mut label = format!("{}\\l{} insts", esc(&self.block_title(b)), bl.insts.len());
        if let Some((a, z)) = self.line_range(b) {
            let _ = write!(label, ", lines {a}-{z}");
        }
        label.push_str("\\l");
        if let Some(t) = bl.terminator() {
            let _ = write!(label, "{}\\l", esc(&t.to_string()));
        }
        let _ = writeln!(s, "{}bb{b} [label=\"{label}\"];", "  ".repeat(depth));
    }
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\t', " ")
}

/// The text listing.
impl Display for Cfg {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "cfg {}: {} blocks, {} edges, {} loops",
            self.function,
            self.blocks.len(),
            self.edges.len(),
            self.loops.len()
        )?;
        for (b, bl) in self.blocks.iter().enumerate() {
            write!(f, "{}: {} insts", self.block_title(b), bl.insts.len())?;
            if let Some((a, z)) = self.line_range(b) {
                write!(f, ", lines {a}-{z}")?;
            }
            match self.idom[b] {
                Some(d) => write!(f, ", idom bb{d}")?,
                None if b == 0 => write!(f, ", entry")?,
                None => write!(f, ", unreachable")?,
            }
            writeln!(f, ", loop depth {}", self.loop_depth(b))?;
            if let Some(t) = bl.terminator() {
                writeln!(f, "    ends: {}", t.to_string().replace('\t', ""))?;
            }
            for e in self.successors(b) {
                writeln!(f, "    -> bb{} [{}]", e.to, e.kind.as_str())?;
            }
        }
        for (i, l) in self.loops.iter().enumerate() {
            let list = |v: &[usize]| {
                v.iter()
                    .map(|b| format!("bb{b}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            writeln!(
                f,
                "loop {i}: header bb{}, depth {}, parent {}, blocks [{}], latches [{}], exits [{}]",
                l.header,
                l.depth,
                l.parent.map_or("-".to_string(), |p| format!("loop {p}")),
                list(&l.blocks),
                list(&l.latches),
                list(&l.exits)
            )?;
        }
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        Ok(())
    }
}
