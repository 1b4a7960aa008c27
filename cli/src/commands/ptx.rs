//! `kerncast ptx`.

use kerncast::ops::ptx::*;

pub fn run(args: Args) -> miette::Result<()> {
    let (name, text) = load(&args.file, &args.lower)?;
    let m = parse_named(&name, &text)?;
    let out = if args.json {
        render_json(&m, args.kernel.as_deref())
    } else {
        render(&name, &m, args.kernel.as_deref())
    }
    .map_err(|e| miette::miette!("{name}: {e}"))?;
    print!("{out}");
    Ok(())
}
