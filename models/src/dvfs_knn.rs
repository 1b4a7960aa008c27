//! Model C of the validation (docs/validation.md): how time, power and energy scale with the
//! (memory, core) clocks, read off the measured curves of the ten micro-benchmarks nearest to the
//! kernel in three memory-boundness features. It was chosen by leave-one-family-out
//! cross-validation on the GTX Titan X micro-benchmarks, and its table
//! (`dvfs_knn_gtx_titan_x.json`, exported by kerncast-validation) holds only their measurements.
//!
//! It predicts ratios to the default clocks, not absolute levels, and only on the device and the
//! clock grid it was measured on; [`crate::auto`] multiplies it with another model's prediction at
//! the default clocks and falls back to that model elsewhere.

use crate::device::{Clocks, Device};
use kerncast_passes::stats::{BoundStats, DType, Dir, Feature, Granularity, OpKind, Space};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

#[derive(Debug, Deserialize)]
struct Point {
    name: String,
    x: Vec<f64>,
    /// (time, power, energy) scaling factors at each grid point.
    curve: Vec<[f64; 3]>,
}

#[derive(Debug, Deserialize)]
struct Reference {
    mem_mhz: f64,
    core_mhz: f64,
}

#[derive(Debug, Deserialize)]
pub struct KnnTable {
    pub device: String,
    issue_cost: BTreeMap<String, f64>,
    pub k: usize,
    average: String,
    reference: Reference,
    /// (mem, core) MHz.
    grid: Vec<[f64; 2]>,
    /// Where `held_out_error` was measured.
    pub held_out_source: String,
    /// Mean relative error of the (time, power, energy) factors at each grid point, measured on
    /// applications outside the fit.
    held_out_error: Vec<[f64; 3]>,
    mu: Vec<f64>,
    sd: Vec<f64>,
    points: Vec<Point>,
}

/// The embedded GTX Titan X table; `None` only if the committed file is malformed, which a test
/// rules out.
pub fn gtx_titan_x() -> Option<&'static KnnTable> {
    static T: OnceLock<Option<KnnTable>> = OnceLock::new();
    T.get_or_init(|| serde_json::from_str(include_str!("dvfs_knn_gtx_titan_x.json")).ok())
        .as_ref()
}

/// The device the embedded table was measured on (its `device`, which a test checks): every
/// other device's prediction is spared parsing its 288 KB of JSON.
const TABLE_DEVICE: &str = "gtx-titan-x";

/// The table fitted for a device, if any.
pub fn table_for(d: &Device) -> Option<&'static KnnTable> {
    if d.name != TABLE_DEVICE {
        return None;
    }
    gtx_titan_x().filter(|t| t.device == d.name)
}

/// Ratios to the default clocks at one clock pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scaling {
    pub time: f64,
    pub power: f64,
    pub energy: f64,
}

/// Per-thread class counts the table's features are built from, in the classes of
/// kerncast-validation's `isa::Class`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemFeatures {
    pub instructions: f64,
    pub global_accesses: f64,
    pub global_bytes: f64,
    pub core_cost: f64,
}

fn op_class(kind: OpKind, ty: DType) -> &'static str {
    match kind {
        OpKind::Rcp | OpKind::Sqrt | OpKind::Rsqrt | OpKind::Special => "sfu",
        OpKind::Control | OpKind::Barrier => "control",
        OpKind::Move | OpKind::Convert => "move",
        _ => match ty {
            DType::F64 => "dp",
            DType::F32 | DType::F16 | DType::Bf16 => "sp",
            _ => "int",
        },
    }
}

fn mem_class(space: Space, dir: Dir) -> &'static str {
    match (space, dir) {
        (Space::Shared, _) => "shared",
        (Space::Local, _) => "local",
        (Space::Param | Space::Const, _) => "param",
        (_, Dir::Atomic) => "atomic",
        (_, Dir::Store) => "global_st",
        (_, Dir::Load) => "global_ld",
    }
}

impl MemFeatures {
    fn per(self, n: f64) -> MemFeatures {
        let n = n.max(1.0);
        MemFeatures {
            instructions: self.instructions / n,
            global_accesses: self.global_accesses / n,
            global_bytes: self.global_bytes / n,
            core_cost: self.core_cost / n,
        }
    }
}

impl KnnTable {
    /// Per-thread counts from kerncast's bound statistics. The released sequences the table was
    /// fitted on are unrolled, so their static counts are per-thread executions, which is what
    /// thread-granular counts divided by the thread count give (warp-granular counts per warp
    /// when an input has no thread-granular ones, exact for full warps). Atomics are counted
    /// once, as memory accesses. An access's bytes are its full width (a `v4.f32` load is 16
    /// bytes), where the sequences only knew the element type (4 bytes): vector code looks more
    /// memory-heavy here than it did in training.
    pub fn features(&self, s: &BoundStats) -> MemFeatures {
        let threads = self.sum(s, Granularity::Thread);
        if threads.instructions > 0.0 {
            return threads.per(s.get(&Feature::Threads));
        }
        let warps = s.get(&Feature::Warps);
        let warps = if warps > 0.0 {
            warps
        } else {
            (s.get(&Feature::Threads) / 32.0).ceil()
        };
        self.sum(s, Granularity::Warp).per(warps)
    }

    fn sum(&self, s: &BoundStats, at: Granularity) -> MemFeatures {
        let mut f = MemFeatures::default();
        let cost = |c: &str| self.issue_cost.get(c).copied().unwrap_or(1.0);
        for (k, &n) in &s.features {
            match k {
                Feature::Op { kind, ty, gran } if *gran == at && *kind != OpKind::Atomic => {
                    f.instructions += n;
                    f.core_cost += n * cost(op_class(*kind, *ty));
                }
                Feature::Mem {
                    space,
                    dir,
                    bits,
                    gran,
                    ..
                } if *gran == at => {
                    let c = mem_class(*space, *dir);
                    f.instructions += n;
                    f.core_cost += n * cost(c);
                    if matches!(c, "global_ld" | "global_st" | "local" | "atomic") {
                        f.global_accesses += n;
                        f.global_bytes += n * f64::from(*bits) / 8.0;
                    }
                }
                _ => {}
            }
        }
        f
    }

    fn vector(f: &MemFeatures) -> [f64; 3] {
        [
            (f.global_bytes / f.core_cost.max(1e-9) + 1e-3).ln(),
            (f.global_accesses + 1.0).ln(),
            f.instructions.max(1.0).ln(),
        ]
    }

    /// Index of a clock pair in the grid, if it is one of the measured pairs.
    pub fn grid_index(&self, c: Clocks) -> Option<usize> {
        self.grid
            .iter()
            .position(|g| (g[0] - c.mem_mhz).abs() < 0.5 && (g[1] - c.core_mhz).abs() < 0.5)
    }

    pub fn reference(&self) -> Clocks {
        Clocks::new(self.reference.core_mhz, self.reference.mem_mhz)
    }

    /// Names of the k nearest training points, nearest first (ties by table order).
    pub fn neighbours(&self, f: &MemFeatures) -> Vec<&str> {
        self.nearest(f)
            .into_iter()
            .map(|i| self.points[i].name.as_str())
            .collect()
    }

    fn nearest(&self, f: &MemFeatures) -> Vec<usize> {
        let z: Vec<f64> = Self::vector(f)
            .iter()
            .enumerate()
            .map(|(j, v)| (v - self.mu[j]) / self.sd[j])
            .collect();
        let mut d: Vec<(f64, usize)> = self
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let dist =
                    p.x.iter()
                        .enumerate()
                        .map(|(j, x)| ((x - self.mu[j]) / self.sd[j] - z[j]).powi(2))
                        .sum();
                (dist, i)
            })
            .collect();
        d.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        d.into_iter().take(self.k).map(|(_, i)| i).collect()
    }

    /// The scaling factors at a grid point; `None` off the grid.
    pub fn scaling(&self, f: &MemFeatures, c: Clocks) -> Option<Scaling> {
        let g = self.grid_index(c)?;
        let nn = self.nearest(f);
        let at = |k: usize| {
            let mut v: Vec<f64> = nn.iter().map(|&i| self.points[i].curve[g][k]).collect();
            match self.average.as_str() {
                "geo" => (v.iter().map(|y| y.ln()).sum::<f64>() / v.len() as f64).exp(),
                "mean" => v.iter().sum::<f64>() / v.len() as f64,
                _ => rel_median(&mut v),
            }
        };
        Some(Scaling {
            time: at(0),
            power: at(1),
            energy: at(2),
        })
    }

    /// Mean relative error of the (time, power, energy) factors measured on held-out
    /// applications at a grid point.
    pub fn held_out_error(&self, c: Clocks) -> Option<[f64; 3]> {
        self.held_out_error.get(self.grid_index(c)?).copied()
    }
}

/// The minimiser of Σ |p − y_i| / y_i (the weighted median with weights 1/y_i): the point
/// estimate the validation's relative-error measure rewards when the neighbours disagree.
fn rel_median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let total: f64 = v.iter().map(|y| 1.0 / y).sum();
    let mut acc = 0.0;
    for y in v.iter() {
        acc += 1.0 / y;
        if acc >= total / 2.0 {
            return *y;
        }
    }
    v.last().copied().unwrap_or(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_table_parses_and_is_consistent() {
        let t = gtx_titan_x().expect("the committed table parses");
        assert_eq!(
            t.device, TABLE_DEVICE,
            "table_for looks for the table's own device"
        );
        assert_eq!(t.grid.len(), 32);
        assert_eq!(t.points.len(), 140);
        assert!(t
            .points
            .iter()
            .all(|p| p.curve.len() == 32 && p.x.len() == 3));
        let r = t.grid_index(t.reference()).expect("reference on the grid");
        // Every curve is a ratio to the reference clocks.
        assert!(t
            .points
            .iter()
            .all(|p| p.curve[r].iter().all(|v| (v - 1.0).abs() < 1e-9)));
        // Every factor is exact at the reference, so its measured error there is 0.
        assert_eq!(t.held_out_error.len(), 32);
        assert_eq!(t.held_out_error(t.reference()), Some([0.0; 3]));
    }

    #[test]
    fn a_training_point_is_its_own_nearest_neighbour() {
        let t = gtx_titan_x().unwrap();
        let p = &t.points[7];
        let f = MemFeatures {
            global_bytes: (p.x[0].exp() - 1e-3) * 100.0,
            core_cost: 100.0,
            global_accesses: p.x[1].exp() - 1.0,
            instructions: p.x[2].exp(),
        };
        let first = t.neighbours(&f)[0];
        let same = t.points.iter().find(|q| q.name == first).unwrap();
        assert!(same.x.iter().zip(&p.x).all(|(a, b)| (a - b).abs() < 1e-9));
    }
}
