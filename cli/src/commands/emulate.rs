//! `kerncast emulate`.

use kerncast::ops::emulate::*;

pub fn run(args: Args) -> miette::Result<()> {
    let (name, text) = kerncast::ops::ptx::load(&args.file, &args.lower)?;
    let m = kerncast::ops::ptx::parse_for_analysis(&name, &text)?;
    let source = std::fs::read_to_string(&args.file).unwrap_or_default();
    let kernels = kerncast::annotations::scan(&source).unwrap_or_default();
    let report = emulate(&m, &kernels, &args).map_err(|e| miette::miette!("{name}: {e}"))?;
    let out = if args.json {
        serde_json::to_string_pretty(&report).map_err(|e| miette::miette!("{e}"))? + "\n"
    } else {
        render(&report)
    };
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes());
    Ok(())
}
