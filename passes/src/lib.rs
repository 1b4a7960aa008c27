//! kerncast analysis passes. Each module is one pass with typed input and output:
//! `ptx` (text -> Module), `cfg` (Module -> control-flow graphs), then the counting passes.

pub mod addr_program;
pub mod affine;
pub mod budget;
pub mod cfg;
pub mod classify;
pub mod cond;
mod cond_set;
pub mod count;
pub mod domain_count;
pub mod domains;
pub mod emu;
pub mod inline;
pub mod link;
pub mod loop_exit;
pub mod mem_sites;
pub mod named;
pub mod piecewise;
pub mod points_to;
pub mod poly;
pub mod ptx;
pub mod reuse;
mod set_memo;
pub mod slots;
pub mod stats;
pub mod sync_idioms;
pub mod taint;
pub mod unroll;
