//! `kerncast rank`.

use kerncast::ops::rank::*;
use kerncast::rank::RankOptions;

pub fn run(args: Args) -> miette::Result<()> {
    let vary = args
        .vary
        .iter()
        .map(|v| parse_vary(v))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| miette::miette!("{e}"))?;
    let opts = RankOptions {
        file: args.file.clone(),
        kernel: args.kernel.clone(),
        vary,
        objective: args.objective,
        device: args.device.clone(),
        model: args.model.clone(),
        lower: args.lower.options_for(std::slice::from_ref(&args.device)),
        workload: args.workload.clone(),
    };
    let counter = kerncast::engine::default_counter();
    let mut r =
        kerncast::rank::rank(&opts, counter.as_ref()).map_err(|e| miette::miette!("{e}"))?;
    if args.json {
        r.ranked.truncate(args.top);
        println!(
            "{}",
            serde_json::to_string_pretty(&r).map_err(|e| miette::miette!("{e}"))?
        );
    } else {
        print!("{}", kerncast::rank::render(&r, args.top));
    }
    if r.ranked.is_empty() {
        std::process::exit(2);
    }
    Ok(())
}
