//! Non-negative least squares, Lawson & Hanson (1974), "Solving Least Squares Problems", ch. 23.
//! Used for fits where a negative weight is physically meaningless (seconds per operation,
//! watts per activity). Each inner step solves an unconstrained problem on the passive set with
//! nalgebra's SVD.

use nalgebra::{DMatrix, DVector};

/// Minimise ‖A·x − b‖ subject to x ≥ 0. Returns x.
pub fn nnls(a: &DMatrix<f64>, b: &DVector<f64>) -> DVector<f64> {
    let n = a.ncols();
    let mut x = DVector::zeros(n);
    let mut passive = vec![false; n];
    let tol = 1e-12 * a.norm().max(1.0) * b.norm().max(1.0);
    let max_outer = 3 * n + 10;
    for _ in 0..max_outer {
        let w = a.transpose() * (b - a * &x);
        // Most positive gradient among the active (zero) variables.
        let cand = (0..n)
            .filter(|&j| !passive[j] && w[j] > tol)
            .max_by(|&i, &j| w[i].total_cmp(&w[j]));
        let Some(j) = cand else { break };
        passive[j] = true;
        loop {
            let z = solve_passive(a, b, &passive);
            if (0..n).all(|i| !passive[i] || z[i] > 0.0) {
                x = z;
                break;
            }
            // Step back towards x until one passive variable hits zero.
            let mut alpha = f64::INFINITY;
            for i in 0..n {
                if passive[i] && z[i] <= 0.0 {
                    let d = x[i] - z[i];
                    if d > 0.0 {
                        alpha = alpha.min(x[i] / d);
                    } else {
                        alpha = 0.0f64.min(alpha);
                    }
                }
            }
            if !alpha.is_finite() {
                alpha = 0.0;
            }
            for i in 0..n {
                x[i] += alpha * (z[i] - x[i]);
                if passive[i] && x[i] <= 1e-15 * (1.0 + z[i].abs()) {
                    passive[i] = false;
                    x[i] = 0.0;
                }
            }
            if !passive.iter().any(|&p| p) {
                break;
            }
        }
    }
    x
}

/// Unconstrained least squares on the passive columns; zero elsewhere.
fn solve_passive(a: &DMatrix<f64>, b: &DVector<f64>, passive: &[bool]) -> DVector<f64> {
    let idx: Vec<usize> = (0..a.ncols()).filter(|&j| passive[j]).collect();
    let sub = a.select_columns(&idx);
    let sol = lstsq(&sub, b);
    let mut z = DVector::zeros(a.ncols());
    for (k, &j) in idx.iter().enumerate() {
        z[j] = sol[k];
    }
    z
}

/// Unconstrained least squares through the SVD (rank-deficient problems get the minimum-norm
/// solution).
pub fn lstsq(a: &DMatrix<f64>, b: &DVector<f64>) -> DVector<f64> {
    let svd = a.clone().svd(true, true);
    let eps = 1e-12 * svd.singular_values.max().max(f64::MIN_POSITIVE);
    svd.solve(b, eps)
        .unwrap_or_else(|_| DVector::zeros(a.ncols()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_unconstrained_when_solution_is_positive() {
        let a = DMatrix::from_row_slice(4, 2, &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 1.0]);
        let x0 = DVector::from_vec(vec![2.0, 3.0]);
        let b = &a * &x0;
        let x = nnls(&a, &b);
        assert!((x - x0).norm() < 1e-10);
    }

    #[test]
    fn clamps_negative_component() {
        // The unconstrained solution has a negative second weight; NNLS sets it to 0 and
        // refits the first: min ‖[1;1]·x1 − [1;3]‖ → x1 = 2 (with column 2 = [1;−1]).
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 1.0, 1.0, -1.0]);
        let b = DVector::from_vec(vec![1.0, 3.0]);
        let x = nnls(&a, &b);
        assert!((x[0] - 2.0).abs() < 1e-12 && x[1] == 0.0, "{x}");
    }
}
