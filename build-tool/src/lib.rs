//! kerncast: the build tool. The engine lives in `kerncast-passes` and `kerncast-models`;
//! this crate lowers sources to PTX, wires the passes together and renders their results.

pub mod error;
pub mod lower;
pub use error::{Error, Result};
pub mod names;
pub mod ops;
// issue 5: configuration, workloads, reports, gates, rank, cache
pub mod annotations;
pub mod buffers;
pub mod cache;
pub mod check;
pub mod config;
pub mod embedded;
pub mod engine;
pub mod fsio;
pub mod host_cache;
pub mod host_workloads;
pub mod hotlines;
pub mod includes;
pub mod occupancy;
pub mod param_fields;
pub mod params;
pub mod pipeline;
pub mod progress;
pub mod rank;
pub mod realcode;
pub mod registers;
pub mod report;
pub mod sarif;
pub mod sass_flops;
pub mod symbolic;
pub mod workload;
