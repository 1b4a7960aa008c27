//! Each profile's `[linear]` weights (rtx-3080, h200) are what `kerncast fit` makes of the rows
//! kept beside them in `devices/fits/`: refitting them reproduces every weight and its provenance
//! (the cross-validated figures included). A change to the fit, the features or
//! the rows that moves a shipped weight fails here until the profile is refitted. The same holds
//! for `hw.l2_dirty_at_exit_bytes`, fitted on the rows' DRAM bytes.

use kerncast::ops::fit;
use kerncast_tests::workspace_root;

fn linear_table(path: &std::path::Path) -> toml::Table {
    let text = std::fs::read_to_string(path).unwrap();
    let v: toml::Table = toml::from_str(&text).unwrap();
    v.get("linear")
        .and_then(|t| t.as_table())
        .cloned()
        .unwrap_or_else(|| panic!("{}: no [linear] table", path.display()))
}

fn hw_value(path: &std::path::Path, key: &str) -> Option<toml::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let v: toml::Table = toml::from_str(&text).unwrap();
    v.get("hw").and_then(|t| t.get(key)).cloned()
}

fn refits_from_its_rows(device: &str) {
    let root = workspace_root();
    let shipped = root.join(format!("devices/{device}.toml"));
    let dir = tempfile::tempdir().unwrap();
    let refitted = dir.path().join(format!("{device}.toml"));
    std::fs::copy(&shipped, &refitted).unwrap();
    let fits = root.join("devices/fits");
    let args = fit::Args {
        measurements: fits.join(format!("{device}.rows.json")),
        features: None,
        device: device.into(),
        profile: Some(refitted.clone()),
        dry_run: false,
        write_rows: None,
        folds: 5,
        held_out: None,
        held_out_device: None,
        form: fit::Form::Scheduler,
    };
    fit::fit(&args).unwrap();
    let (want, got) = (linear_table(&shipped), linear_table(&refitted));
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>()
    );
    for (k, w) in &want {
        let (wv, gv) = (
            w["value"].as_float().unwrap(),
            got[k]["value"].as_float().unwrap(),
        );
        assert!(
            ((wv - gv) / wv).abs() < 1e-9,
            "{k}: shipped {wv:e}, refitted {gv:e}"
        );
        assert_eq!(w["source"], got[k]["source"], "{k}: provenance");
    }
    let key = "l2_dirty_at_exit_bytes";
    assert_eq!(
        hw_value(&shipped, key),
        hw_value(&refitted, key),
        "hw.{key}: value and provenance"
    );
}

#[test]
fn the_shipped_rtx_3080_weights_are_refitted_from_their_rows() {
    refits_from_its_rows("rtx-3080");
}

/// Fitted on kerncast's own Nsight Compute measurement of an H200 (validation/h200).
#[test]
fn the_shipped_h200_weights_are_refitted_from_their_rows() {
    refits_from_its_rows("h200");
}
