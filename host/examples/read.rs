//! `cargo run -p kerncast-host --example read -- [--args "…"] [--compile-commands F [--program P]] FILE…`:
//! the launches kerncast-host reads, as JSON (a development aid; users have `kerncast launches`).
use kerncast_host::*;
use std::path::PathBuf;

fn main() {
    let mut files = Vec::new();
    let mut args = None;
    let mut compdb = None;
    let mut program = None;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--args" => {
                args = it
                    .next()
                    .map(|s| s.split_whitespace().map(String::from).collect())
            }
            "--compile-commands" => compdb = it.next().map(PathBuf::from),
            "--program" => program = it.next(),
            _ => files.push(PathBuf::from(a)),
        }
    }
    let tools = Toolchain::discover();
    let mut p = match compdb {
        Some(c) => {
            let units = compdb::read(&c, &tools).unwrap_or_else(|e| panic!("{e}"));
            Program {
                units: units
                    .into_iter()
                    .filter(|u| program.is_none() || u.program == program)
                    .collect(),
                args: None,
            }
        }
        None => Program::from_files(&files, &[], &tools),
    };
    p.args = args;
    let t = std::time::Instant::now();
    let r = read(
        &p,
        &Options {
            toolchain: tools,
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("read in {:?}", t.elapsed());
    println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
}
