//! Gradient-boosted regression trees (squared loss, Friedman 2001), for the thesis' static power
//! model.
//!
//! Why our own: the crates evaluated were `gbdt` 0.1.3 (gbdt-rs; f32 only, last release 2020),
//! `smartcore` and `linfa` (random forests / single trees, no boosting), and `perpetual`
//! (formerly forust-ml; maintained, but a budget-driven API and a large dependency tree for what
//! we need). Inference must be deterministic and serializable with the device data, and the
//! thesis' hyper-parameters (Table 5.7: 250 trees, depth 5, learning rate 0.17) map directly
//! onto this ~150-line implementation, which is tested against known functions below.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GbrtParams {
    pub n_trees: usize,
    pub learning_rate: f64,
    pub max_depth: usize,
    pub min_samples_leaf: usize,
}

impl Default for GbrtParams {
    /// Thesis Table 5.7, Gradient Boosting: n_estimators 250, max_depth 5, learning_rate 0.17.
    fn default() -> Self {
        GbrtParams {
            n_trees: 250,
            learning_rate: 0.17,
            max_depth: 5,
            min_samples_leaf: 1,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Node {
    Leaf(f64),
    Split {
        feature: usize,
        threshold: f64,
        left: usize,
        right: usize,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    pub nodes: Vec<Node>,
}

impl Tree {
    pub fn predict(&self, x: &[f64]) -> f64 {
        let mut i = 0;
        loop {
            match &self.nodes[i] {
                Node::Leaf(v) => return *v,
                Node::Split {
                    feature,
                    threshold,
                    left,
                    right,
                } => {
                    i = if x[*feature] <= *threshold {
                        *left
                    } else {
                        *right
                    }
                }
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gbrt {
    pub base: f64,
    pub learning_rate: f64,
    pub trees: Vec<Tree>,
}

impl Gbrt {
    /// Fit on rows `x` (all of one width) and targets `y`.
    pub fn fit(x: &[Vec<f64>], y: &[f64], p: &GbrtParams) -> Gbrt {
        let n = y.len();
        let base = if n == 0 {
            0.0
        } else {
            y.iter().sum::<f64>() / n as f64
        };
        let mut pred = vec![base; n];
        let mut trees = Vec::with_capacity(p.n_trees);
        let idx: Vec<usize> = (0..n).collect();
        for _ in 0..p.n_trees {
            let resid: Vec<f64> = (0..n).map(|i| y[i] - pred[i]).collect();
            let mut t = Tree { nodes: Vec::new() };
            grow(&mut t, x, &resid, &idx, 0, p);
            for i in 0..n {
                pred[i] += p.learning_rate * t.predict(&x[i]);
            }
            trees.push(t);
        }
        Gbrt {
            base,
            learning_rate: p.learning_rate,
            trees,
        }
    }

    pub fn predict(&self, x: &[f64]) -> f64 {
        self.base + self.learning_rate * self.trees.iter().map(|t| t.predict(x)).sum::<f64>()
    }
}

/// Grow a node over rows `idx`; returns its index.
fn grow(
    t: &mut Tree,
    x: &[Vec<f64>],
    r: &[f64],
    idx: &[usize],
    depth: usize,
    p: &GbrtParams,
) -> usize {
    let me = t.nodes.len();
    let mean = idx.iter().map(|&i| r[i]).sum::<f64>() / idx.len().max(1) as f64;
    t.nodes.push(Node::Leaf(mean));
    if depth >= p.max_depth || idx.len() < 2 * p.min_samples_leaf.max(1) {
        return me;
    }
    let Some((feature, threshold)) = best_split(x, r, idx, p.min_samples_leaf.max(1)) else {
        return me;
    };
    let (l, rr): (Vec<usize>, Vec<usize>) = idx.iter().partition(|&&i| x[i][feature] <= threshold);
    let left = grow(t, x, r, &l, depth + 1, p);
    let right = grow(t, x, r, &rr, depth + 1, p);
    t.nodes[me] = Node::Split {
        feature,
        threshold,
        left,
        right,
    };
    me
}

/// The split with the largest reduction of squared error (ties: lowest feature, lowest value).
fn best_split(x: &[Vec<f64>], r: &[f64], idx: &[usize], min_leaf: usize) -> Option<(usize, f64)> {
    let n = idx.len();
    let total: f64 = idx.iter().map(|&i| r[i]).sum();
    let width = x.get(idx[0]).map_or(0, |row| row.len());
    let mut best: Option<(f64, usize, f64)> = None;
    let mut order = idx.to_vec();
    #[allow(clippy::needless_range_loop)] // f indexes a column across rows
    for f in 0..width {
        order.sort_by(|&a, &b| x[a][f].total_cmp(&x[b][f]));
        let mut left = 0.0;
        for k in 0..n - 1 {
            left += r[order[k]];
            let (nl, nr) = (k + 1, n - k - 1);
            if nl < min_leaf || nr < min_leaf || x[order[k]][f] == x[order[k + 1]][f] {
                continue;
            }
            let right = total - left;
            let gain =
                left * left / nl as f64 + right * right / nr as f64 - total * total / n as f64;
            if gain > 1e-12 && best.is_none_or(|(g, _, _)| gain > g) {
                let thr = 0.5 * (x[order[k]][f] + x[order[k + 1]][f]);
                best = Some((gain, f, thr));
            }
        }
    }
    best.map(|(_, f, t)| (f, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_a_step_exactly() {
        let x: Vec<Vec<f64>> = (0..20).map(|i| vec![i as f64]).collect();
        let y: Vec<f64> = (0..20).map(|i| if i < 10 { 1.0 } else { 5.0 }).collect();
        let m = Gbrt::fit(
            &x,
            &y,
            &GbrtParams {
                n_trees: 50,
                learning_rate: 0.5,
                max_depth: 1,
                min_samples_leaf: 1,
            },
        );
        assert!((m.predict(&[3.0]) - 1.0).abs() < 1e-6);
        assert!((m.predict(&[15.0]) - 5.0).abs() < 1e-6);
    }

    #[test]
    fn fits_a_nonlinear_function_of_two_features() {
        // y = x0² + 3·[x1 > 0.5], on a grid; held-out midpoints must be close.
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..30 {
            for j in 0..10 {
                let (a, b) = (i as f64 / 29.0, j as f64 / 9.0);
                x.push(vec![a, b]);
                y.push(a * a + 3.0 * (b > 0.5) as u8 as f64);
            }
        }
        let m = Gbrt::fit(&x, &y, &GbrtParams::default());
        for (a, b) in [(0.31, 0.2), (0.72, 0.8), (0.05, 0.95)] {
            let want = a * a + 3.0 * (b > 0.5) as u8 as f64;
            assert!((m.predict(&[a, b]) - want).abs() < 0.05, "{a},{b}");
        }
    }
}
