//! Generates the FFI from the system isl headers. The allowlist is narrow (isl_* only) so the
//! bindgen run stays quick; libisl is found through pkg-config, which also links gmp.
// A build script reports failure by panicking: cargo prints the message and stops the build.
#![allow(clippy::expect_used)]

use std::env;
use std::path::PathBuf;

fn main() {
    let lib = pkg_config::Config::new()
        .atleast_version("0.20")
        .probe("isl")
        .expect("libisl not found through pkg-config: install libisl-dev (cargo xtask bootstrap)");
    println!("cargo:rerun-if-changed=wrapper.h");
    let mut builder = bindgen::Builder::default()
        .header("wrapper.h")
        .allowlist_function("isl_.*")
        .allowlist_type("isl_.*")
        .allowlist_var("isl_.*")
        .rustified_enum("isl_dim_type")
        .rustified_enum("isl_error")
        .layout_tests(false)
        .generate_comments(false);
    for p in &lib.include_paths {
        builder = builder.clang_arg(format!("-I{}", p.display()));
    }
    let bindings = builder
        .generate()
        .expect("bindgen failed on the isl headers");
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR set by cargo"));
    bindings
        .write_to_file(out.join("bindings.rs"))
        .expect("write bindings.rs");
}
