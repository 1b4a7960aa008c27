//! `kerncast emulate`.

use kerncast::ops::emulate::*;

pub fn run(args: Args) -> miette::Result<()> {
    let out = output(&args)?;
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes());
    Ok(())
}
