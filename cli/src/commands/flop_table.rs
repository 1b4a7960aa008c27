//! `kerncast flop-table`.

use kerncast::ops::flop_table::*;

pub fn run(args: Args) -> miette::Result<()> {
    let text = generate(&args)?;
    match &args.out {
        Some(p) => kerncast::fsio::write_atomic(p, text.as_bytes())
            .map_err(|e| miette::miette!("{}: {e}", p.display()))?,
        None => print!("{text}"),
    }
    Ok(())
}
