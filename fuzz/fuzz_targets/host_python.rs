//! Python host reading: any text read as a host script gives a reading or an error, within a
//! small step budget, without a panic.
#![no_main]
use kerncast_host::{Options, Program, Toolchain};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn script() -> &'static std::path::PathBuf {
    static PATH: OnceLock<std::path::PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("kerncast-fuzz-py-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        dir.join("host.py")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if std::fs::write(script(), text).is_err() {
        return;
    }
    let tools = Toolchain::default();
    let program = Program::from_files(&[script().clone()], &[], &tools);
    let mut opts = Options::default();
    opts.budget.steps = 200_000;
    opts.budget.loop_iterations = 10_000;
    let _ = kerncast_host::read(&program, &opts);
});
