//! The device's `hw.l2_dirty_at_exit_bytes`, fitted on measured DRAM bytes: how much of what a
//! kernel writes the L2 still holds dirty when the kernel ends. A write-back L2 sends those
//! lines to DRAM after the kernel, so a profiler's DRAM count of the kernel leaves them out,
//! and a kernel that writes comes out that much above the measured count however large it is.
//!
//! The fit is one number per device: the amount, in steps of [`STEP_BYTES`] from 0 to the
//! L2's size, under which the most launches moving more than 1 MB come within 10 % of their
//! measured DRAM bytes (the acceptance figure; ties go to the smaller total log error, then
//! to the smaller amount). It is judged by the same cross-validation as the time weights:
//! 5 folds grouped by program, each fold predicted with the amount fitted on the others.

use kerncast_passes::stats::{Dir, Feature, Space};
use std::collections::BTreeMap;

/// Launches that move less are left out of the fit and of its figure (as in the acceptance).
pub const MIN_MEASURED_BYTES: f64 = 1e6;
/// The grid the amount is searched on.
pub const STEP_BYTES: u64 = 16 * 1024;
/// A launch is within when its predicted bytes are within this share of the measured.
const TOLERANCE: f64 = 0.10;

/// One launch's DRAM bytes as the fit reads them.
#[derive(Clone, Debug, PartialEq)]
pub struct DramRow {
    pub program: String,
    pub measured: f64,
    /// kerncast's bytes before any dirty-at-exit amount is taken off.
    pub predicted_in_full: f64,
    /// The sector bytes the launch's global stores and atomics write.
    pub written: f64,
}

impl DramRow {
    /// A launch's row from what `kerncast realcode --json` writes: the measured bytes, the
    /// predicted bytes and the dirty-at-exit amount taken off them, the counts.
    pub fn from_realcode(
        program: &str,
        measured: Option<f64>,
        predicted: Option<f64>,
        dirty_at_exit: Option<f64>,
        counts: &BTreeMap<String, f64>,
    ) -> Option<DramRow> {
        Some(DramRow {
            program: program.to_string(),
            measured: measured?,
            predicted_in_full: predicted? + dirty_at_exit.unwrap_or(0.0),
            written: written_bytes(counts),
        })
    }

    /// The launch's predicted bytes with `dirty` bytes of its writes left in the L2 (as
    /// [`kerncast_models::l2::dirty_at_exit_bytes`] takes them off).
    pub fn predicted(&self, dirty: f64) -> f64 {
        self.predicted_in_full
            - kerncast_models::l2::left_dirty(dirty, self.written, self.predicted_in_full)
    }

    fn within(&self, dirty: f64) -> bool {
        ((self.predicted(dirty) - self.measured) / self.measured).abs() <= TOLERANCE
    }

    fn log_error(&self, dirty: f64) -> f64 {
        (self.predicted(dirty).max(1.0) / self.measured).ln().abs()
    }
}

/// Whether a count is one [`written_bytes`] reads: the sectors of global stores or atomics.
pub fn is_written_sectors(key: &str) -> bool {
    matches!(
        key.parse::<Feature>(),
        Ok(Feature::Sectors {
            space: Space::Global,
            dir: Dir::Store | Dir::Atomic,
        })
    )
}

/// The sector bytes global stores and atomics write, from a row's counts (`sectors.global.store`,
/// `sectors.global.atomic`).
pub fn written_bytes(counts: &BTreeMap<String, f64>) -> f64 {
    32.0 * counts
        .iter()
        .filter(|(k, _)| is_written_sectors(k))
        .map(|(_, v)| *v)
        .sum::<f64>()
}

/// Launches that fit and judge the amount: a measured count over 1 MB and a prediction.
pub fn usable(rows: impl IntoIterator<Item = DramRow>) -> Vec<DramRow> {
    rows.into_iter()
        .filter(|r| r.measured > MIN_MEASURED_BYTES && r.predicted_in_full.is_finite())
        .collect()
}

/// How many of `rows` come within 10 % with `dirty` bytes left in the L2.
pub fn within(rows: &[&DramRow], dirty: f64) -> usize {
    rows.iter().filter(|r| r.within(dirty)).count()
}

/// The amount fitted on `rows` (see the module docs), for an L2 of `l2_bytes`.
pub fn fit(rows: &[&DramRow], l2_bytes: u64) -> u64 {
    let mut best = (0usize, f64::INFINITY, 0u64);
    for dirty in (0..=l2_bytes).step_by(STEP_BYTES as usize) {
        let d = dirty as f64;
        let n = within(rows, d);
        let err: f64 = rows.iter().map(|r| r.log_error(d)).sum();
        // strictly better only: an equal score keeps the smaller amount found first
        if n > best.0 || (n == best.0 && err < best.1) {
            best = (n, err, dirty);
        }
    }
    best.2
}

/// What the cross-validation found.
#[derive(Clone, Debug, PartialEq)]
pub struct Validated {
    pub rows: usize,
    /// Within 10 % with no amount taken off.
    pub within_without: usize,
    /// Within 10 %, each fold predicted with the amount fitted on the other folds.
    pub within_cv: usize,
    /// The amount each fold's fit found, fold by fold.
    pub fold_amounts: Vec<u64>,
}

/// 5-fold (`folds`) cross-validation grouped by program, with the folds of the time fit.
pub fn cross_validate(rows: &[DramRow], folds: usize, l2_bytes: u64) -> Validated {
    let all: Vec<&DramRow> = rows.iter().collect();
    let mut within_cv = 0;
    let mut fold_amounts = Vec::with_capacity(folds);
    for f in 0..folds {
        let (train, test): (Vec<&DramRow>, Vec<&DramRow>) = all
            .iter()
            .partition(|r| super::fit::fold_of(&r.program, folds) != f);
        let amount = fit(&train, l2_bytes);
        fold_amounts.push(amount);
        within_cv += within(&test, amount as f64);
    }
    Validated {
        rows: rows.len(),
        within_without: within(&all, 0.0),
        within_cv,
        fold_amounts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(program: &str, measured: f64, predicted: f64, written: f64) -> DramRow {
        DramRow {
            program: program.into(),
            measured,
            predicted_in_full: predicted,
            written,
        }
    }

    /// Kernels of every size that write come out 600 KB over: the fit finds about that, and a
    /// kernel that writes less than it loses only what it writes.
    #[test]
    fn a_constant_excess_of_writing_kernels_is_found() {
        let mut rows = Vec::new();
        for p in 0..20 {
            let m = 1.5e6 * (1 + p) as f64;
            rows.push(row(&format!("p{p}"), m, m + 6e5, m / 2.0));
            // a reader only: nothing to take off
            rows.push(row(&format!("p{p}"), m, m, 0.0));
        }
        let refs: Vec<&DramRow> = rows.iter().collect();
        let got = fit(&refs, 5 << 20);
        assert!((5e5..=7e5).contains(&(got as f64)), "{got}");
        assert_eq!(within(&refs, got as f64), 40);
        assert!(within(&refs, 0.0) < 40);
        let small = row("q", 2e6, 2.1e6, 1e5);
        assert_eq!(small.predicted(6e5), 2e6);
        let v = cross_validate(&rows, 5, 5 << 20);
        assert_eq!(v.within_cv, 40);
        assert_eq!(v.fold_amounts.len(), 5);
    }

    /// With nothing to explain, the fit keeps the amount at 0.
    #[test]
    fn exact_predictions_keep_the_amount_at_zero() {
        let rows: Vec<DramRow> = (0..10)
            .map(|p| row(&format!("p{p}"), 4e6, 4e6, 2e6))
            .collect();
        let refs: Vec<&DramRow> = rows.iter().collect();
        assert_eq!(fit(&refs, 5 << 20), 0);
    }

    #[test]
    fn written_bytes_are_the_global_store_and_atomic_sectors() {
        let counts: BTreeMap<String, f64> = [
            ("sectors.global.store", 10.0),
            ("sectors.global.atomic", 2.0),
            ("sectors.global.load", 100.0),
            ("sectors.local.store", 7.0),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        assert_eq!(written_bytes(&counts), 32.0 * 12.0);
    }
}
