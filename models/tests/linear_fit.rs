//! The linear model's fit (least squares on relative error) recovers known weights from a
//! synthetic measurement table: exactly without noise, within 2 % with 5 % noise.

use kerncast_models::linear::{fit, Measurement};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// Stevens & Klöckner Table II (R9 Fury) weights for the features they share with ours.
fn truth() -> BTreeMap<String, f64> {
    [
        ("flop.add.f32", 6.81e-13),
        ("flop.mul.f32", 5.68e-13),
        ("gmem.load.b32.stride1", 8.27e-12),
        ("gmem.store.b32.stride1", 6.52e-12),
        ("barriers", 4.26e-11),
        ("groups", 3.75e-9),
        ("const", 1.29e-4),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Rows whose features vary independently over four orders of magnitude, so every weight
/// (the constant included) dominates some rows.
fn table(rng: &mut ChaCha8Rng, n: usize, noise: f64) -> Vec<Measurement> {
    let w = truth();
    (0..n)
        .map(|i| {
            let mut f = BTreeMap::new();
            let mut t = 0.0;
            for (k, wk) in &w {
                let v = if k == "const" {
                    1.0
                } else {
                    // Scale so each feature contributes comparable time.
                    let base = 1e-4 / wk;
                    base * 10f64.powf(rng.random_range(-3.0..1.0))
                };
                t += wk * v;
                f.insert(k.clone(), v);
            }
            // Gaussian relative noise (Box–Muller).
            let (u1, u2): (f64, f64) = (rng.random_range(1e-12..1.0), rng.random_range(0.0..1.0));
            let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
            Measurement {
                kernel: format!("k{i}"),
                workload: "synthetic".into(),
                features: f,
                seconds: t * (1.0 + noise * z),
            }
        })
        .collect()
}

#[test]
fn recovers_weights_exactly_without_noise() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let rows = table(&mut rng, 60, 0.0);
    for nn in [false, true] {
        let f = fit(&rows, nn).unwrap();
        for (k, w) in truth() {
            let rel = (f.weights[&k] - w).abs() / w;
            assert!(rel < 1e-9, "{k} (nnls {nn}): rel error {rel}");
        }
        assert!(f.residuals.iter().all(|r| r.2.abs() < 1e-9));
    }
}

#[test]
fn recovers_weights_within_2_percent_with_5_percent_noise() {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let rows = table(&mut rng, 2000, 0.05);
    for nn in [false, true] {
        let f = fit(&rows, nn).unwrap();
        let mut worst = 0.0f64;
        for (k, w) in truth() {
            let rel = (f.weights[&k] - w).abs() / w;
            assert!(rel < 0.02, "{k} (nnls {nn}): rel error {rel}");
            worst = worst.max(rel);
        }
        println!(
            "5 % noise, nnls {nn}: worst weight error {:.3} %, geomean rel error {:.4}",
            worst * 100.0,
            f.geomean_rel_error
        );
        // Residuals reflect the noise: geometric-mean |rel err| of N(0, 5 %) ≈ 0.05·0.28.
        assert!(
            f.geomean_rel_error > 0.005 && f.geomean_rel_error < 0.03,
            "{}",
            f.geomean_rel_error
        );
    }
}

#[test]
fn rejects_non_positive_times() {
    let mut rows = table(&mut ChaCha8Rng::seed_from_u64(3), 5, 0.0);
    rows[2].seconds = 0.0;
    let e = fit(&rows, false).unwrap_err().to_string();
    assert!(e.contains("k2"), "{e}");
}
