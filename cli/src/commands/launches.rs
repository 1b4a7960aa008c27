//! `kerncast launches`.

use kerncast::ops::launches::*;

pub fn run(args: Args) -> miette::Result<()> {
    let reading = read(&args)?;
    if args.json {
        let rows: Vec<serde_json::Value> = reading.launches.iter().map(json_row).collect();
        let out = serde_json::to_string_pretty(&rows).map_err(|e| miette::miette!("{e}"))?;
        println!("{out}");
    } else {
        print!("{}", render(&reading));
    }
    for d in &reading.diagnostics {
        eprintln!("{d}");
    }
    Ok(())
}
