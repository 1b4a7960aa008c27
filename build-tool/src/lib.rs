//! kerncast: the build tool. The engine lives in `kerncast-passes` and `kerncast-models`;
//! this crate lowers sources to PTX, wires the passes together and renders their results.

pub mod cli;
