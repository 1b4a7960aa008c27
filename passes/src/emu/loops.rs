//! Loop trip counts observed in a run, the raw material of trip-count hints for data-dependent
//! loops. Why from edges: a loop's header executes once per iteration, and every execution that
//! does not arrive over a back edge (an edge to a block at or before its source in text order,
//! which is how PTX lays out loops) is an entry; so trips per entry = header executions / entries,
//! whatever the loop's shape.

use serde::Serialize;
use std::collections::BTreeMap;

/// One loop observed in a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoopTrips {
    /// Basic block (CFG index) of the loop header.
    pub header: usize,
    /// Index of the loop in `Cfg::loops`.
    pub index: usize,
    /// PTX line of the header's first instruction.
    pub ptx_line: u32,
    /// `file:line` of the header (from `.loc`), when the PTX has line info.
    pub at: Option<String>,
    /// Thread-level entries into the loop (header executions not over a back edge).
    pub entries: u64,
    /// Thread-level executions of the header.
    pub header_execs: u64,
    /// Mean iterations per entry: `header_execs / entries`.
    pub mean_trips: f64,
}

impl LoopTrips {
    /// The hint key a user sets for this loop's trip count, the same key the static counter
    /// (`crate::domains`) gives a data-dependent loop: `trip.<file>:<line>` of the header, or
    /// `trip.loop<index>` when the PTX carries no line info.
    pub fn hint_key(&self) -> String {
        match &self.at {
            Some(a) => format!("trip.{a}"),
            None => format!("trip.loop{}", self.index),
        }
    }
}

/// Hint keys of a set of loops: [`LoopTrips::hint_key`], qualified by the header block
/// (`trip.k.cu:12.bb7`) where several loops share a source line (an unrolled loop and its remainder).
pub fn hint_keys(loops: &[LoopTrips]) -> Vec<String> {
    let base: Vec<String> = loops.iter().map(LoopTrips::hint_key).collect();
    base.iter()
        .zip(loops)
        .map(|(k, l)| {
            if base.iter().filter(|b| *b == k).count() > 1 {
                format!("{k}.bb{}", l.header)
            } else {
                k.clone()
            }
        })
        .collect()
}

/// Loops from the loop headers (in `Cfg::loops` order), the back edges (`(latch, header)`),
/// thread-level edge traversals and block executions. `lines[b]` gives the PTX line and
/// `file:line` of block `b`. Loops whose header never ran are left out.
pub fn from_edges(
    headers: &[usize],
    back_edges: &[(usize, usize)],
    edges: &BTreeMap<(usize, usize), u64>,
    block_threads: &[u64],
    lines: &[(u32, Option<String>)],
) -> Vec<LoopTrips> {
    headers
        .iter()
        .enumerate()
        .filter(|(_, h)| block_threads.get(**h).is_some_and(|n| *n > 0))
        .map(|(index, &h)| {
            let b: u64 = back_edges
                .iter()
                .filter(|e| e.1 == h)
                .map(|e| edges.get(e).copied().unwrap_or(0))
                .sum();
            let execs = block_threads.get(h).copied().unwrap_or(0);
            let entries = execs.saturating_sub(b);
            let (ptx_line, at) = lines.get(h).cloned().unwrap_or((0, None));
            LoopTrips {
                header: h,
                index,
                ptx_line,
                at,
                entries,
                header_execs: execs,
                mean_trips: if entries == 0 {
                    0.0
                } else {
                    execs as f64 / entries as f64
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trips_from_back_edges() {
        // Block 1 is a loop header entered 10 times from block 0, 30 back edges from block 2.
        let mut e = BTreeMap::new();
        e.insert((0, 1), 10);
        e.insert((2, 1), 30);
        e.insert((1, 2), 40);
        e.insert((2, 3), 10);
        let lines = [
            (1, None),
            (5, Some("k.cu:12".to_string())),
            (9, None),
            (12, None),
        ];
        let l = from_edges(&[1], &[(2, 1)], &e, &[10, 40, 40, 10], &lines);
        assert_eq!(l.len(), 1);
        assert_eq!((l[0].header, l[0].entries, l[0].mean_trips), (1, 10, 4.0));
        assert_eq!(l[0].hint_key(), "trip.k.cu:12");
        let twice = [
            l[0].clone(),
            LoopTrips {
                header: 3,
                ..l[0].clone()
            },
        ];
        assert_eq!(hint_keys(&twice), ["trip.k.cu:12.bb1", "trip.k.cu:12.bb3"]);
    }
}
