//! `kerncast validate`.

use kerncast::ops::validate::*;

#[cfg(feature = "validation")]
pub fn run(a: Args) -> miette::Result<()> {
    use kerncast_validation::run::{run, Options};
    let Suite::Gpuptxmodel = a.suite;
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        std::env::set_var("RAYON_NUM_THREADS", "1");
    }
    let mut o = Options::new(&a.workspace);
    o.data = a.data;
    o.gpu = a.gpu;
    o.device = a.device;
    o.out = a.out;
    o.weights = a.weights;
    o.train_lstm = a.train_lstm;
    o.epochs = a.epochs;
    o.seed = a.seed;
    o.lr_scale = a.lr_scale;
    o.no_lstm = a.no_lstm;
    // The LSTM's backward pass walks a deep graph recursively: run on a large stack.
    let h = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || run(&o, |l| eprintln!("{l}")).map_err(|e| e.to_string()))
        .map_err(|e| miette::miette!("could not start the validation thread: {e}"))?;
    match h.join() {
        Ok(Ok(text)) => {
            print!("{text}");
            Ok(())
        }
        Ok(Err(e)) => Err(miette::miette!("validate: {e}")),
        Err(_) => Err(miette::miette!("validate: the validation thread panicked")),
    }
}

#[cfg(not(feature = "validation"))]
pub fn run(a: Args) -> miette::Result<()> {
    let _ = a;
    Err(miette::miette!(
        help = "run `cargo xtask validate`, or build kerncast with `--features validation`",
        "this kerncast was built without the `validation` feature (it pulls in candle)"
    ))
}
