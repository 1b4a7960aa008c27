//! `kerncast fit`.

use kerncast::ops::fit::*;

pub fn run(args: Args) -> miette::Result<()> {
    print!("{}", fit(&args)?);
    Ok(())
}
