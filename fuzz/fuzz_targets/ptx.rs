//! PTX parser, verifier and printer: any text either fails with an error or parses into a
//! module whose printed form parses again.
#![no_main]
use kerncast_passes::ptx;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = ptx::parse(text) else {
        return;
    };
    let _ = ptx::verify(&m);
    let printed = m.to_string();
    let again = ptx::parse(&printed).expect("a printed module parses");
    assert_eq!(again.without_spans(), m.without_spans(), "print round-trip");
});
