//! The rtx-3080 profile's `[linear]` weights are what `kerncast fit` makes of the rows kept
//! beside them in `devices/fits/`: refitting them reproduces every weight and its provenance
//! (the cross-validated figures included). A change to the fit, the features or
//! the rows that moves a shipped weight fails here until the profile is refitted.

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

#[test]
fn the_shipped_rtx_3080_weights_are_refitted_from_their_rows() {
    let root = workspace_root();
    let shipped = root.join("devices/rtx-3080.toml");
    let dir = tempfile::tempdir().unwrap();
    let refitted = dir.path().join("rtx-3080.toml");
    std::fs::copy(&shipped, &refitted).unwrap();
    let fits = root.join("devices/fits");
    let args = fit::Args {
        measurements: fits.join("rtx-3080.rows.json"),
        features: None,
        device: "rtx-3080".into(),
        profile: Some(refitted.clone()),
        dry_run: false,
        write_rows: None,
        folds: 5,
        held_out: None,
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
}
