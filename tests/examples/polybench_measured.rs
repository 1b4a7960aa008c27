//! kerncast's own pipeline on real applications: the 13 PolyBench/GPU applications of the
//! gpuPTXModel data set (`shared/data/gpuptxmodel`, GTX Titan X), predicted from our corpus
//! kernels (`tests/kernels/pb_*.cu`, their nvcc PTX) by the dvfs model over the 32 measured clock
//! pairs, and scored as `cargo xtask validate` scores the sequence models: mean relative error of
//! the time, power and energy factors against the default clocks 3505/975, and the energy saved
//! at the predicted minimum-energy pair against F_max 3505/1164.
//!
//! The released sequences carry no addresses, so `cargo xtask validate` cannot run this
//! pipeline; here the kernels are ours, written from the PolyBench algorithms, so this is a
//! check of kerncast's analysis on the measured applications, not of the measured binaries.
//! What is taken from the data set, and from where, is in `SIZES` below; nothing was fitted.
//!
//! `cargo run --release -p kerncast-tests --example polybench_measured`

use kerncast_tests::gpuptxmodel::{dvfs_sweep, measured, Pair, Point};
use kerncast_tests::ptx_dir;
use std::collections::BTreeMap;

const REFERENCE: Pair = (3505, 975);
const F_MAX: Pair = (3505, 1164);

/// One launch: the PTX file (`tests/ptx/nvcc/<file>.ptx`), the kernel, its leading integer
/// parameters in order, grid and block.
struct Launch {
    file: &'static str,
    kernel: &'static str,
    ints: Vec<u64>,
    grid: [u64; 2],
    block: [u64; 2],
}

fn launch(
    file: &'static str,
    kernel: &'static str,
    ints: &[u64],
    grid: [u64; 2],
    block: [u64; 2],
) -> Launch {
    Launch {
        file,
        kernel,
        ints: ints.to_vec(),
        grid,
        block,
    }
}

/// How the problem sizes were set: every dimension is the inner trip count the released
/// sequence of the application shows (its unrolled loop body repeated that often: 4096 for
/// atax, bicg, gesummv, mvt and 2mm, 512 for 3mm, 2048 for correlation, covariance and
/// gramschmidt, 3072 for syrk, 8256 for gemm), the other dimensions taken equal to it. 2dconvolution
/// and fdtd2d have no loop; they take PolyBench/GPU's default sizes (4096², 2048²). gramschmidt
/// launches its three kernels once per column k; they are timed at k = n/2, where the third
/// kernel does its mean work (it is linear in n − k).
const SIZES: &str = "every dimension = the released sequence's inner trip count; 2dconvolution 4096², fdtd2d 2048² (PolyBench/GPU defaults); gramschmidt at k = n/2";

fn apps() -> Vec<(&'static str, Vec<Launch>)> {
    let tile = |n: u64| [n.div_ceil(32), n.div_ceil(8)];
    let row = |n: u64| [n.div_ceil(256), 1];
    let (t2, r1) = ([32, 8], [256, 1]);
    vec![
        (
            "2dconvolution",
            vec![launch(
                "pb_2dconv",
                "pb_2dconv",
                &[4096, 4096],
                tile(4096),
                t2,
            )],
        ),
        (
            "2mm",
            vec![
                launch("pb_2mm", "pb_2mm_k1", &[4096; 3], tile(4096), t2),
                launch("pb_2mm", "pb_2mm_k2", &[4096; 3], tile(4096), t2),
            ],
        ),
        (
            "3mm",
            // Its three products are one kernel at the same sizes: the sum of three has the
            // factors of one.
            vec![launch("pb_3mm", "pb_3mm_product", &[512; 3], tile(512), t2)],
        ),
        (
            "atax",
            vec![
                launch("pb_atax", "pb_atax_k1", &[4096; 2], row(4096), r1),
                launch("pb_atax", "pb_atax_k2", &[4096; 2], row(4096), r1),
            ],
        ),
        (
            "bicg",
            vec![
                launch("pb_bicg", "pb_bicg_k1", &[4096; 2], row(4096), r1),
                launch("pb_bicg", "pb_bicg_k2", &[4096; 2], row(4096), r1),
            ],
        ),
        (
            "correlation",
            vec![
                launch("pb_correlation", "pb_corr_mean", &[2048; 2], row(2048), r1),
                launch("pb_correlation", "pb_corr_std", &[2048; 2], row(2048), r1),
                launch(
                    "pb_correlation",
                    "pb_corr_reduce",
                    &[2048; 2],
                    tile(2048),
                    t2,
                ),
                launch("pb_correlation", "pb_corr_corr", &[2048; 2], row(2048), r1),
            ],
        ),
        (
            "covariance",
            vec![
                launch("pb_covariance", "pb_cov_mean", &[2048; 2], row(2048), r1),
                launch("pb_covariance", "pb_cov_reduce", &[2048; 2], tile(2048), t2),
                launch("pb_covariance", "pb_cov_covar", &[2048; 2], row(2048), r1),
            ],
        ),
        (
            "fdtd2d",
            vec![
                launch(
                    "pb_fdtd2d",
                    "pb_fdtd_step1",
                    &[2048, 2048, 0],
                    tile(2048),
                    t2,
                ),
                launch("pb_fdtd2d", "pb_fdtd_step2", &[2048, 2048], tile(2048), t2),
                launch("pb_fdtd2d", "pb_fdtd_step3", &[2048, 2048], tile(2048), t2),
            ],
        ),
        (
            "gemm",
            vec![launch("pb_gemm", "pb_gemm", &[8256; 3], tile(8256), t2)],
        ),
        (
            "gesummv",
            vec![launch("pb_gesummv", "pb_gesummv", &[4096], row(4096), r1)],
        ),
        (
            "gramschmidt",
            vec![
                launch(
                    "pb_gramschmidt",
                    "pb_gs_k1",
                    &[2048, 2048, 1024],
                    [1, 1],
                    [1, 1],
                ),
                launch(
                    "pb_gramschmidt",
                    "pb_gs_k2",
                    &[2048, 2048, 1024],
                    row(2048),
                    r1,
                ),
                launch(
                    "pb_gramschmidt",
                    "pb_gs_k3",
                    &[2048, 2048, 1024],
                    row(2048),
                    r1,
                ),
            ],
        ),
        (
            "mvt",
            vec![
                launch("pb_mvt", "pb_mvt_k1", &[4096], row(4096), r1),
                launch("pb_mvt", "pb_mvt_k2", &[4096], row(4096), r1),
            ],
        ),
        (
            "syrk",
            vec![launch("pb_syrk", "pb_syrk", &[3072, 3072], tile(3072), t2)],
        ),
    ]
}

/// The dvfs model's sweep of one launch: time, power and energy by clock pair.
fn sweep(l: &Launch) -> BTreeMap<Pair, Point> {
    let ptx = ptx_dir().join(format!("nvcc/{}.ptx", l.file));
    let mut args: Vec<String> = vec!["--kernel".into(), l.kernel.into()];
    args.extend(["--grid".into(), format!("{},{}", l.grid[0], l.grid[1])]);
    args.extend(["--block".into(), format!("{},{}", l.block[0], l.block[1])]);
    for (i, n) in l.ints.iter().enumerate() {
        args.extend(["--param".into(), format!("{}_param_{i}={n}", l.kernel)]);
    }
    dvfs_sweep(&ptx, &args).0
}

/// Per-application scores: time, power, energy error %, saved % vs F_max, oracle %, and the time
/// factor at 810/975 predicted and measured.
struct Score {
    err: [f64; 3],
    saved: f64,
    oracle: f64,
    mem_factor: (f64, f64),
}

fn score(pred: &BTreeMap<Pair, Point>, meas: &BTreeMap<Pair, Point>) -> Score {
    let factor = |m: &BTreeMap<Pair, Point>, c: &Pair, i: usize| {
        let get = |c: &Pair| m.get(c).unwrap_or_else(|| panic!("no point at {c:?}"))[i];
        get(c) / get(&REFERENCE)
    };
    let mut err = [0.0; 3];
    for c in meas.keys() {
        for (i, e) in err.iter_mut().enumerate() {
            let (p, m) = (factor(pred, c, i), factor(meas, c, i));
            *e += (p - m).abs() / m * 100.0 / meas.len() as f64;
        }
    }
    let argmin = |m: &BTreeMap<Pair, Point>| {
        *meas
            .keys()
            .min_by(|a, b| m[a][2].total_cmp(&m[b][2]))
            .expect("points")
    };
    let saved_at = |c: Pair| (1.0 - meas[&c][2] / meas[&F_MAX][2]) * 100.0;
    Score {
        err,
        saved: saved_at(argmin(pred)),
        oracle: saved_at(argmin(meas)),
        mem_factor: (factor(pred, &(810, 975), 0), factor(meas, &(810, 975), 0)),
    }
}

fn main() {
    let meas = measured("realbenchmarks");
    println!(
        "kerncast --model dvfs on our PolyBench kernels vs the measured applications (GTX Titan X)"
    );
    println!("sizes: {SIZES}\n");
    println!(
        "{:<14} {:>6} {:>7} {:>8} {:>7} {:>8} | {:>11} {:>10}",
        "application", "time%", "power%", "energy%", "saved%", "oracle%", "T810 pred", "T810 meas"
    );
    let mut all = Vec::new();
    for (app, launches) in apps() {
        let mut total: BTreeMap<Pair, Point> = BTreeMap::new();
        for l in &launches {
            for (c, [t, _, e]) in sweep(l) {
                let s = total.entry(c).or_default();
                s[0] += t;
                s[2] += e;
            }
        }
        // The application's power: its energy over its time, whatever each kernel drew.
        for p in total.values_mut() {
            p[1] = p[2] / p[0];
        }
        let m = meas
            .get(app)
            .unwrap_or_else(|| panic!("{app}: not in the data set"));
        let s = score(&total, m);
        println!(
            "{:<14} {:>6.1} {:>7.1} {:>8.1} {:>7.1} {:>8.1} | {:>11.2} {:>10.2}",
            app, s.err[0], s.err[1], s.err[2], s.saved, s.oracle, s.mem_factor.0, s.mem_factor.1
        );
        all.push(s);
    }
    let n = all.len() as f64;
    let mean = |f: &dyn Fn(&Score) -> f64| all.iter().map(f).sum::<f64>() / n;
    println!(
        "{:<14} {:>6.1} {:>7.1} {:>8.1} {:>7.1} {:>8.1}",
        "mean",
        mean(&|s| s.err[0]),
        mean(&|s| s.err[1]),
        mean(&|s| s.err[2]),
        mean(&|s| s.saved),
        mean(&|s| s.oracle)
    );
}
