//! kerncast.toml: any text parses into a validated configuration or fails with a span.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(c) = kerncast::config::Config::parse("kerncast.toml", text, std::path::Path::new("."))
    {
        for k in &c.kernels {
            for w in &k.workloads {
                let _ = w.resolve();
            }
        }
    }
});
