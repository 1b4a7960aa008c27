//! The operation behind each subcommand, callable from any front end (the CLI, `cargo
//! kerncast`, tests): its request (`Args`, also the CLI's flags) and what it computes and
//! renders. Printing, exit codes and process-wide settings stay in the CLI crate (`cli/`).

pub mod analyze;
pub mod cfg;
pub mod check;
pub mod count;
pub mod devices;
pub mod emulate;
pub mod fit;
pub mod fit_dram;
pub mod flop_table;
pub mod launches;
pub mod lower;
pub mod predict;
pub mod ptx;
pub mod rank;
pub mod validate;
pub mod workload_args;
