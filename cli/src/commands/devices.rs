//! `kerncast devices`.

use kerncast::ops::devices::*;

pub fn run(args: Args) -> miette::Result<()> {
    print!("{}", output(&args)?);
    Ok(())
}
