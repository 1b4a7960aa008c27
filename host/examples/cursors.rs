//! Development aid: `cargo run -p kerncast-host --example cursors -- FILE [FUNCTION] [clang flags…]`
//! prints libclang's cursor tree of a function (kind, spelling, type), as the lowering sees it.
use kerncast_host::clang::{Cursor, Index};
use std::path::PathBuf;

fn dump(c: &Cursor<'_>, depth: usize) {
    println!(
        "{:indent$}{:?} `{}` : {} (line {}) {:?}",
        "",
        c.kind(),
        c.spelling(),
        c.ty().spelling(),
        c.location().line,
        c.extent(),
        indent = depth * 2
    );
    for ch in c.children() {
        dump(&ch, depth + 1);
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let file = PathBuf::from(args.next().expect("a file"));
    let function = args.next().unwrap_or_else(|| "main".into());
    let flags: Vec<String> = args.collect();
    let index = Index::new().unwrap_or_else(|e| panic!("{e}"));
    let unit = index.parse(&file, &flags).unwrap_or_else(|e| panic!("{e}"));
    for d in unit.diagnostics() {
        println!("{d:?}");
    }
    for c in unit.cursor().children() {
        if c.spelling() == function && !c.children().is_empty() {
            dump(&c, 0);
        }
    }
}
