//! `kerncast analyze`.

use kerncast::ops::analyze::*;

pub fn run(args: Args) -> miette::Result<()> {
    let report = analyze(&args.inputs, Some(&args.out))?;
    print!("{}", kerncast::report::table::render(&report));
    println!(
        "reports: {}",
        args.out.join(kerncast::report::HTML_FILE).display()
    );
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(summary)
        {
            let _ = f.write_all(kerncast::report::markdown::render(&report).as_bytes());
        }
    }
    if !report.errors.is_empty() {
        // The reports are written; the exit code still tells CI that something failed.
        std::process::exit(2);
    }
    Ok(())
}
