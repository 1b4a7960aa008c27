//! One module per subcommand; each owns its clap `Args` and a `run` function.

pub mod analyze;
pub mod cfg;
pub mod check;
pub mod count;
pub mod devices;
pub mod emulate;
pub mod flop_table;
pub mod launches;
pub mod lower;
pub mod predict;
pub mod ptx;
pub mod rank;
pub mod validate;
