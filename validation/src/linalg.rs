//! Small dense least squares (normal equations, Gaussian elimination with partial pivoting and a
//! ridge term): all the models here need is a handful of unknowns, so no linear-algebra crate.

/// Solves min Σ_i w_i (x_i·β − y_i)² + λ‖β‖² ; `None` when the system is singular.
pub fn weighted_ridge(x: &[Vec<f64>], y: &[f64], w: &[f64], lambda: f64) -> Option<Vec<f64>> {
    let d = x.first()?.len();
    let mut a = vec![vec![0.0; d + 1]; d];
    for ((xi, yi), wi) in x.iter().zip(y).zip(w) {
        for r in 0..d {
            for c in 0..d {
                a[r][c] += wi * xi[r] * xi[c];
            }
            a[r][d] += wi * xi[r] * yi;
        }
    }
    for (r, row) in a.iter_mut().enumerate() {
        row[r] += lambda;
    }
    solve(a)
}

/// Gaussian elimination on an augmented d×(d+1) matrix.
fn solve(mut a: Vec<Vec<f64>>) -> Option<Vec<f64>> {
    let d = a.len();
    for col in 0..d {
        let piv = (col..d).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[piv][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, piv);
        let pivot = a[col].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot[col];
                for (x, p) in row.iter_mut().zip(&pivot).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    Some((0..d).map(|r| a[r][d] / a[r][r]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_an_exact_linear_relation() {
        let x: Vec<Vec<f64>> = (0..6)
            .map(|i| vec![1.0, i as f64, (i * i) as f64])
            .collect();
        let y: Vec<f64> = x.iter().map(|r| 2.0 - 0.5 * r[1] + 0.25 * r[2]).collect();
        let b = weighted_ridge(&x, &y, &[1.0; 6], 0.0).unwrap();
        for (got, want) in b.iter().zip([2.0, -0.5, 0.25]) {
            assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        }
    }
}
