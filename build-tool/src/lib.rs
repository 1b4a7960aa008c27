//! kerncast: the build tool. The engine lives in `kerncast-passes` and `kerncast-models`;
//! this crate lowers sources to PTX, wires the passes together and renders their results.

pub mod cli;
pub mod lower;
// issue 5: configuration, workloads, reports, gates, rank, cache
pub mod annotations;
pub mod check;
pub mod config;
pub mod report;
pub mod workload;
