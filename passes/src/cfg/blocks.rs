//! The parts of a control-flow graph: blocks and the edges between them.

use crate::ptx::Inst;
use serde::Serialize;

/// How control reaches the target of an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// Unguarded branch.
    Jump,
    /// Predicated branch, predicate true.
    Taken,
    /// Predicated branch (or predicated `ret`/`exit`), predicate false: the next block.
    NotTaken,
    /// No branch: the next block in text order.
    Fallthrough,
}

impl EdgeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Jump => "jump",
            EdgeKind::Taken => "taken",
            EdgeKind::NotTaken => "not-taken",
            EdgeKind::Fallthrough => "fallthrough",
        }
    }
}

/// One basic block.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BasicBlock {
    pub id: usize,
    /// Labels at the start of the block (usually zero or one).
    pub labels: Vec<String>,
    /// Index of the first instruction in [`Function::instructions`] order.
    pub first_inst: usize,
    pub insts: Vec<Inst>,
    /// Ends in `ret`/`exit`/`trap` (possibly predicated).
    pub exits: bool,
}

impl BasicBlock {
    pub fn terminator(&self) -> Option<&Inst> {
        self.insts.last()
    }
    /// Display name: the first label, else `bbN`.
    pub fn name(&self) -> String {
        self.labels
            .first()
            .cloned()
            .unwrap_or_else(|| format!("bb{}", self.id))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub kind: EdgeKind,
}
