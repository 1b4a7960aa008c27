//! `kerncast count`.

use kerncast::ops::count::*;

pub fn run(args: Args) -> miette::Result<()> {
    print!("{}", output(&args)?);
    Ok(())
}
