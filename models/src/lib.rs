//! Device profiles and performance / power models behind one `Model` trait.
//!
//! Layers: `device` (hardware data files with provenance) → the models (`linear`, `schedule`,
//! `dvfs`, `power`; `auto` picks one) → `sweep` (DVFS grid, minimum energy / EDP, Pareto) →
//! `render` (text for the CLI and snapshots).

pub mod auto;
pub mod capability;
pub mod device;
mod device_check;
pub mod device_file;
pub mod dvfs;
pub mod dvfs_fit;
pub mod dvfs_knn;
pub mod l2;
pub mod linear;
pub mod mlp;
pub mod model;
pub mod nnls;
pub mod periods;
pub mod power;
pub mod render;
pub mod roofline;
pub mod sched_inst;
pub mod sched_terms;
pub mod schedule;
pub mod sweep;

pub use device::{Clocks, Device, DeviceError, Sourced};
pub use model::{ErrorBand, Model, ModelError, ModelInput, Prediction};
pub use sweep::{sweep, Sweep};
