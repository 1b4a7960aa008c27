//! kerncast validation against real GPU measurements: the DVFS data sets of Guerreiro et al.
//! (2019), released for the GTX Titan X, read for any GPU in the same layout. Trains only on the
//! micro-benchmarks, predicts the applications at every clock pair, and compares models (baseline, the paper's LSTM, kerncast's analytical models, its own
//! Wang & Chu and power models, and the combined model)
//! with the paper's published figures.

pub mod data;
pub mod error;
pub mod isa;

pub use data::{Benchmark, Clock, Dataset, Measurement};
pub use error::{Error, Result};
pub mod analytic;
pub mod baseline;
pub mod combined;
pub mod export;
pub mod features;
pub mod knn;
pub mod linalg;
pub mod lstm;
pub mod lstm_cv;
pub mod metrics;
pub mod model;
pub mod plot;
pub mod profile;
pub mod report;
pub mod run;
pub mod wangchu;
