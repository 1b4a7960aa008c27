//! One module per subcommand: its `run` takes the parsed flags to the library
//! ([`kerncast::ops`]) and prints what it returns.

pub mod analyze;
pub mod cfg;
pub mod check;
pub mod count;
pub mod devices;
pub mod emulate;
pub mod fit;
pub mod flop_table;
pub mod launches;
pub mod lower;
pub mod predict;
pub mod ptx;
pub mod rank;
pub mod validate;
