//! Diagnostic: refit model A's three heads on its frozen encoder (z of the saved weights), with
//! the paper's head optimiser (Adam, lr 0.01, SmoothL1 summed over the grid), for many more steps
//! than the joint training gives each head. If the in-sample energy minima appear, the joint
//! training is short of head steps; if not, the encoder's z carries too little.
//! `cargo run --release -p kerncast-validation --example heads_only [-- STEPS [LR]]`

use candle_core::Tensor;
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use kerncast_validation::data::{default_root, DEFAULT_GPU};
use kerncast_validation::lstm::Lstm;
use kerncast_validation::metrics::{mean, score_app};
use kerncast_validation::model::TrainSet;
use kerncast_validation::Dataset;

fn main() {
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ds = Dataset::load(&default_root(&ws).expect("data set"), DEFAULT_GPU).expect("loads");
    let mut args = std::env::args().skip(1);
    let steps: usize = args
        .next()
        .map(|s| s.parse().expect("steps"))
        .unwrap_or(2000);
    let lr: f64 = args.next().map(|s| s.parse().expect("lr")).unwrap_or(0.01);
    let w = ws.join("validation/weights/lstm_gtxtitanx.safetensors");
    let m = Lstm::load(&w, &ds.grid).expect("weights load");
    let t = TrainSet::micro(&ds);
    let zs: Vec<Tensor> = ds.micro.iter().map(|b| m.latent(b).expect("z")).collect();
    let z = Tensor::cat(&zs, 0).expect("cat").detach();
    let n = ds.micro.len();
    let g = ds.grid.len();
    let report = |step: usize| {
        let heads: Vec<Vec<Vec<f32>>> = (0..3)
            .map(|h| m.head(&z, h).unwrap().to_vec2::<f32>().unwrap())
            .collect();
        let (mut e, mut saved, mut corner) = (vec![Vec::new(); 3], Vec::new(), 0);
        for (i, b) in ds.micro.iter().enumerate() {
            let p: Vec<[f64; 3]> = (0..g)
                .map(|j| [0, 1, 2].map(|h| heads[h][i][j] as f64))
                .collect();
            let s = score_app(&ds, b, &p);
            for (k, ek) in e.iter_mut().enumerate() {
                ek.push(s.mean_err(k));
            }
            saved.push(s.saved_vs_fmax);
            let c = ds.grid[s.chosen];
            if c.core_mhz == 1164 || c.core_mhz == 595 {
                corner += 1;
            }
        }
        println!(
            "step {step:>5}: in-sample time {:.1} power {:.1} energy {:.1} %, saved {:.1} %, minima at a core-clock edge {corner}/{n}",
            mean(&e[0]),
            mean(&e[1]),
            mean(&e[2]),
            mean(&saved)
        );
    };
    report(0);
    for h in 0..3 {
        let name = ["time", "power", "energy"][h];
        let mut opt = AdamW::new(
            m.vars_with_prefix(&format!("head.{name}.")),
            ParamsAdamW {
                lr,
                weight_decay: 0.0,
                ..ParamsAdamW::default()
            },
        )
        .expect("adam");
        let y: Vec<f32> = t
            .targets
            .iter()
            .flat_map(|c| c.iter().map(move |v| v[h] as f32))
            .collect();
        let y = Tensor::from_vec(y, (n, g), z.device()).expect("y");
        for _ in 0..steps {
            let d = (m.head(&z, h).unwrap() - &y).unwrap().abs().unwrap();
            let quad = (d.sqr().unwrap() * 0.5).unwrap();
            let lin = (&d - 0.5).unwrap();
            let loss = d
                .lt(1.0)
                .unwrap()
                .where_cond(&quad, &lin)
                .unwrap()
                .sum_all()
                .unwrap();
            opt.backward_step(&loss).expect("step");
        }
    }
    report(steps);
}
