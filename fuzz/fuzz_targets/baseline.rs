//! Baselines: any text loads or fails with file:line:column; one that loads compares with an
//! empty report without a panic (and, failing closed, never passes).
#![no_main]
use kerncast::check::{compare, Baseline, GateThresholds, Verdict};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(b) = Baseline::parse(std::path::Path::new("b.json"), text) {
        let empty = kerncast::report::Report::new(vec![], vec![]);
        let o = compare(&empty, &b, &GateThresholds::default());
        assert_eq!(
            o.verdict,
            Verdict::Error,
            "nothing analysed is never a pass"
        );
        let _ = kerncast::check::render(&o);
        let _ = b.to_json();
    }
});
