//! `kerncast-validate`: the validation runner behind `cargo xtask validate`, built in release
//! mode so that model fitting and the LSTM run at full speed.

use kerncast_validation::run::{run, Options, EPOCHS};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "kerncast-validate [--gpu NAME] [--device PROFILE] [--out DIR] [--data DIR] [--weights FILE] [--train-lstm] [--train-lstm-cv] [--cv-folds F1,F2,..] [--epochs N] [--seed N] [--lr-scale X] [--no-lstm]";

fn main() -> ExitCode {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default();
    // One rayon thread: the matrices are tiny, and a fixed summation order makes the seeded LSTM
    // training reproducible bit for bit.
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        std::env::set_var("RAYON_NUM_THREADS", "1");
    }
    let mut o = Options::new(&workspace);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = |name: &str| {
            args.next()
                .ok_or_else(|| format!("{name} needs a value\nusage: {USAGE}"))
        };
        let r: Result<(), String> = match a.as_str() {
            "--out" => val("--out").map(|v| o.out = Some(v.into())),
            "--data" => val("--data").map(|v| o.data = Some(v.into())),
            "--gpu" => val("--gpu").map(|v| o.gpu = Some(v)),
            "--device" => val("--device").map(|v| o.device = Some(v)),
            "--weights" => val("--weights").map(|v| o.weights = Some(v.into())),
            "--train-lstm" => {
                o.train_lstm = true;
                Ok(())
            }
            "--train-lstm-cv" => {
                o.train_lstm_cv = true;
                Ok(())
            }
            "--cv-folds" => val("--cv-folds")
                .map(|v| o.cv_folds = v.split(',').map(|f| f.trim().to_string()).collect()),
            "--no-lstm" => {
                o.no_lstm = true;
                Ok(())
            }
            "--lr-scale" => val("--lr-scale").and_then(|v| {
                v.parse()
                    .map(|n| o.lr_scale = n)
                    .map_err(|e| format!("--lr-scale {v}: {e}"))
            }),
            "--epochs" => val("--epochs").and_then(|v| {
                v.parse()
                    .map(|n| o.epochs = n)
                    .map_err(|e| format!("--epochs {v}: {e}"))
            }),
            "--seed" => val("--seed").and_then(|v| {
                v.parse()
                    .map(|n| o.seed = n)
                    .map_err(|e| format!("--seed {v}: {e}"))
            }),
            "-h" | "--help" => {
                println!("usage: {USAGE}\n(default epochs {EPOCHS})");
                return ExitCode::SUCCESS;
            }
            other => Err(format!("unknown argument {other}\nusage: {USAGE}")),
        };
        if let Err(e) = r {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    // The LSTM's backward pass walks a deep graph recursively: give it a large stack.
    let h = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || run(&o, |l| eprintln!("{l}")));
    match h.map(|h| h.join()) {
        Ok(Ok(Ok(text))) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Ok(Ok(Err(e))) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
        _ => {
            eprintln!("error: the validation thread failed");
            ExitCode::FAILURE
        }
    }
}
