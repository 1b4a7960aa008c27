//! `kerncast check`.

use kerncast::ops::check::*;

pub fn run(args: Args) -> miette::Result<()> {
    let r = check(&args);
    print!("{}", r.text);
    std::process::exit(r.exit_code);
}
