//! The JSON report's schema: generated from the report's types (schemars), published as
//! `docs/report-schema.json`, and a real report validates against it. After a change to the
//! report's types, `KERNCAST_BLESS=1 cargo test -p kerncast-tests --test report_schema`
//! rewrites the published file (and the diff shows what changed for readers of the JSON).

use std::process::Command;

#[test]
fn the_published_schema_is_the_generated_one() {
    let root = kerncast_tests::workspace_root();
    let path = root.join("docs/report-schema.json");
    let generated = kerncast::report::json_schema();
    if std::env::var_os("KERNCAST_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let published = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        published == generated,
        "docs/report-schema.json is not the schema of the report's types; rerun with \
         KERNCAST_BLESS=1 to rewrite it"
    );
}

#[test]
fn a_real_report_validates_against_the_published_schema() {
    let root = kerncast_tests::workspace_root();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("docs/report-schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let tmp = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_kerncast-gate"))
        .arg("analyze")
        .arg(root.join("examples/kernels/saxpy.cu"))
        .args(["--device", "gtx-titan-x", "--out"])
        .arg(tmp.path())
        .env("CI", "true")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(tmp.path().join("kerncast-report.json")).unwrap(),
    )
    .unwrap();
    assert!(!report["kernels"].as_array().unwrap().is_empty());
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // and the schema is not vacuous: a report without its kernels is refused
    let mut broken = report.clone();
    broken.as_object_mut().unwrap().remove("kernels");
    assert!(!validator.is_valid(&broken));
}
