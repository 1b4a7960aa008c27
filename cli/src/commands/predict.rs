//! `kerncast predict`.

use kerncast::ops::predict::*;

pub fn run(args: Args) -> miette::Result<()> {
    print!("{}", output(&args)?);
    Ok(())
}
