//! C/C++/CUDA host reading through libclang: any text read as a host program gives a reading
//! (with the compiler's diagnostics) or an error, within a small step budget, without a panic.
#![no_main]
use kerncast_host::{Options, Program, Toolchain};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn source() -> &'static std::path::PathBuf {
    static PATH: OnceLock<std::path::PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("kerncast-fuzz-c-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        dir.join("host.cpp")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if std::fs::write(source(), text).is_err() {
        return;
    }
    // no CUDA headers: each input parses in milliseconds (the seeds' own includes fail, which
    // is itself input the reader must survive)
    let tools = Toolchain::default();
    let program = Program::from_files(&[source().clone()], &[], &tools);
    let mut opts = Options::default();
    opts.budget.steps = 200_000;
    opts.budget.loop_iterations = 10_000;
    let _ = kerncast_host::read(&program, &opts);
});
