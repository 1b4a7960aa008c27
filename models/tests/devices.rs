//! The device library: at least 14 profiles, every value with a non-empty source, names equal to
//! file stems, and every profile loadable through `Device::load`.

use kerncast_models::Device;
use std::path::{Path, PathBuf};

fn devices_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../devices")
}

/// Every leaf below the top-level tables must sit in a `{ value, source }` table.
fn unsourced(v: &toml::Value, path: &str, out: &mut Vec<String>) {
    let Some(t) = v.as_table() else {
        out.push(format!("{path}: not a table"));
        return;
    };
    if t.contains_key("value") {
        match t.get("source").and_then(|s| s.as_str()) {
            Some(s) if !s.trim().is_empty() => {}
            _ => {
                out.push(format!("{path}: value without a source"));
                return;
            }
        }
        if t.len() != 2 {
            out.push(format!("{path}: keys other than value/source"));
        }
        return;
    }
    for (k, child) in t {
        unsourced(child, &format!("{path}.{k}"), out);
    }
}

#[test]
fn at_least_14_profiles_every_value_sourced() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(devices_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 14, "only {} device profiles", files.len());
    let mut problems = Vec::new();
    let mut values = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let doc: toml::Table = text.parse().unwrap();
        for (k, v) in &doc {
            match k.as_str() {
                "name" | "full_name" => assert!(v.is_str(), "{}: {k}", f.display()),
                _ => unsourced(v, &format!("{}:{k}", f.display()), &mut problems),
            }
        }
        values += text.matches("source = ").count();
    }
    assert!(
        problems.is_empty(),
        "unsourced values:\n{}",
        problems.join("\n")
    );
    assert!(values > 14 * 10, "suspiciously few values: {values}");
}

#[test]
fn the_check_catches_an_unsourced_value() {
    let doc: toml::Table = "[hw]\nsm_count = { value = 3 }\n[latency]\nshared = 4\n"
        .parse()
        .unwrap();
    let mut problems = Vec::new();
    for (k, v) in &doc {
        unsourced(v, k, &mut problems);
    }
    assert_eq!(problems.len(), 2, "{problems:?}");
}

#[test]
fn profiles_load_by_name_and_have_a_default_clock_pair() {
    let all = Device::list_in(&devices_dir()).unwrap();
    for d in &all {
        let stem = d.path.file_stem().unwrap().to_string_lossy().to_string();
        assert_eq!(d.name, stem, "name must equal the file stem");
        let again = Device::load(&d.name).unwrap();
        assert_eq!(again.full_name, d.full_name);
        let c = d.default_clocks().unwrap();
        assert!(c.core_mhz > 0.0 && c.mem_mhz > 0.0);
        assert!(
            d.clock_grid().unwrap().contains(&c),
            "{}: default not in grid",
            d.name
        );
    }
    let names: Vec<&str> = all.iter().map(|d| d.name.as_str()).collect();
    for want in [
        "k20",
        "k4200",
        "m60",
        "gtx-1050",
        "v100",
        "gtx-980",
        "gtx-titan-x",
        "titan-xp",
        "titan-v",
        "t4",
        "a100",
        "h100",
        "h200",
        "rtx-3080",
        "rtx-2080-ti",
    ] {
        assert!(names.contains(&want), "missing {want}");
    }
}

#[test]
fn titan_x_grid_and_idle_power_come_from_gpu_info() {
    let d = Device::load("gtx-titan-x").unwrap();
    let grid = d.clock_grid().unwrap();
    assert_eq!(grid.len(), 32);
    let idle = |c, m| d.idle_power(kerncast_models::Clocks::new(c, m)).unwrap();
    assert_eq!(idle(595.0, 810.0), 41.0);
    assert_eq!(idle(1164.0, 810.0), 56.0);
    assert_eq!(idle(1164.0, 3505.0), 89.0);
}

#[test]
fn a_missing_value_is_named() {
    // The H100 profile has no LSU count (not in any source we have): the schedule model says so.
    let d = Device::load("h100").unwrap();
    let e = d
        .need(&d.hw.lsu_per_sm, "hw.lsu_per_sm", "schedule")
        .unwrap_err();
    assert!(e.to_string().contains("hw.lsu_per_sm") && e.to_string().contains("h100"));
}
