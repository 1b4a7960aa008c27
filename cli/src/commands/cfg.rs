//! `kerncast cfg`.

use kerncast::ops::cfg::*;

pub fn run(args: Args) -> miette::Result<()> {
    let (name, text) = kerncast::ops::ptx::load(&args.file, &args.lower)?;
    let m = kerncast::ops::ptx::parse_named(&name, &text)?;
    let out =
        render(&m, args.kernel.as_deref(), args.dot).map_err(|e| miette::miette!("{name}: {e}"))?;
    print!("{out}");
    Ok(())
}
