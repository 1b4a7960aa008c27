//! Inputs the fuzzer (`host_c`, `host_python`) found that stopped the reader, reduced: each
//! must read to a result.

use kerncast_host::{read, Options, Program, Toolchain};

fn reads(name: &str, text: &str) {
    let dir = std::env::temp_dir().join(format!(
        "kerncast-fuzz-found-{}-{}",
        std::process::id(),
        name.replace('.', "-")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    let tools = Toolchain::default();
    let r = read(
        &Program::from_files(&[file], &[], &tools),
        &Options::default(),
    );
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(r.is_ok(), "{name}: {:?}", r.err());
}

#[test]
fn a_global_whose_initialiser_names_itself() {
    // The lowering of the initialiser reached the global again, and lowered its initialiser
    // again, until the stack overflowed.
    reads(
        "self_init.cpp",
        "int g = g + 1;\nint main() { return g; }\n",
    );
    reads(
        "self_init_call.cpp",
        "struct S { S(const S &o); int n; };\nS a = a;\nint main() { return a.n; }\n",
    );
}

#[test]
fn a_string_literal_holding_a_nul_byte() {
    // libclang spells the literal up to the NUL, `"` alone: decoding it sliced past its end.
    reads(
        "nul_in_literal.cpp",
        "struct option { const char *name; int has_arg; int *flag; int val; };\n\
         option opts[] = {{\"\u{0}\u{0}\u{0}\u{4}\", 1, 0, 't'}};\n\
         int main() { return 0; }\n",
    );
}
