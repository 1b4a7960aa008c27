//! Device profiles: any text loads or fails with file:line; a profile that loads is in range,
//! so the roofline and the clock grid of it never panic.
#![no_main]
use kerncast_models::Device;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(d) = Device::from_toml(text, std::path::Path::new("fuzz.toml")) {
        let _ = d.clock_grid();
        let _ = kerncast_models::render::render_device(&d);
        if let Ok(c) = d.default_clocks() {
            let _ = d.dram_bandwidth(c.mem_mhz, "fuzz");
            let _ = d.l2_bandwidths(c.core_mhz);
            let _ = d.idle_power(c);
        }
    }
});
