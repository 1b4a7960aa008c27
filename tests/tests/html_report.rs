//! The HTML report opened in a real browser: `kerncast analyze` on the bundled example kernels
//! writes one self-contained HTML file; headless Chromium (Debian's package) loads it with
//! console logging on, must report no console error, must see the SVG charts in the DOM, and
//! saves a screenshot under target/ for a person to look at.
//!
//! In unoptimised test builds the counting back end is slow on the O(n³) examples, so the test
//! analyses the examples that finish in seconds; `cargo xtask demo` (release) analyses them all.

use kerncast::lower::LowerArgs;
use kerncast::ops::analyze::{analyze, Inputs};
use kerncast::report::HTML_FILE;
use std::path::PathBuf;
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|n| {
            std::env::var_os("PATH")
                .map(|p| {
                    std::env::split_paths(&p)
                        .map(|d| d.join(n))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
        .find(|p| p.is_file())
}

#[test]
fn html_report_renders_in_headless_chromium() {
    let root = kerncast_tests::workspace_root();
    let ex = root.join("examples/kernels");
    let files: Vec<PathBuf> = ["saxpy.cu", "transpose.cu", "stencil.cl"]
        .iter()
        .map(|f| ex.join(f))
        .filter(|p| p.is_file())
        .collect();
    assert!(!files.is_empty(), "examples/kernels is missing");
    let out = root.join("target/kerncast-html-test");
    let inputs = Inputs {
        files,
        config: None,
        devices: vec!["gtx-titan-x".into()],
        model: None,
        jobs: 0,
        no_cache: true,
        lower: LowerArgs::default(),
        params: vec![],
        size_chart: true,
        sass_in_context: false,
        host: Default::default(),
    };
    let report = analyze(&inputs, Some(&out)).expect("analyze runs");
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    assert!(!report.kernels.is_empty());
    let html_path = out.join(HTML_FILE);
    let html = std::fs::read_to_string(&html_path).expect("HTML written");
    assert!(html.contains("<svg"), "charts are inline SVG");
    assert!(
        !html.contains("<script"),
        "no scripts: nothing to fail at load"
    );

    let Some(chrome) = chromium() else {
        panic!("chromium is not installed (cargo xtask bootstrap installs Debian's package)");
    };
    let url = format!("file://{}", html_path.display());
    let profile = tempfile::tempdir().expect("profile dir");
    let common = [
        "--headless".to_string(),
        "--disable-gpu".into(),
        "--no-sandbox".into(),
        "--enable-logging=stderr".into(),
        "--v=0".into(),
        format!("--user-data-dir={}", profile.path().display()),
    ];
    let dom = Command::new(&chrome)
        .args(&common)
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .expect("chromium runs");
    let dom_text = String::from_utf8_lossy(&dom.stdout);
    let log = String::from_utf8_lossy(&dom.stderr).to_string();
    let svgs = dom_text.matches("<svg").count();
    assert!(
        svgs >= 2 * report.kernels.len(),
        "{svgs} svg elements in the rendered DOM for {} kernels",
        report.kernels.len()
    );
    for name in [
        "time by component, % of predicted time",
        "DVFS: energy vs time",
        "roofline",
        "roofline: gtx-titan-x",
        "predicted time vs ",
    ] {
        assert!(
            dom_text.contains(name),
            "chart `{name}` missing from the DOM"
        );
    }
    // the device's roofline: every kernel a point (and a legend swatch), named in the legend
    let device = dom_text
        .split("class=\"device-roofline\"")
        .nth(1)
        .and_then(|f| f.split("</figure>").next())
        .expect("a roofline figure per device");
    // (a kernel without flops, such as a transpose, has no place on a log-log roofline)
    let placed: Vec<_> = report
        .kernels
        .iter()
        .filter(|k| {
            k.roofline
                .as_ref()
                .is_some_and(|r| r.flops_per_s > 0.0 && r.intensity > 0.0)
        })
        .collect();
    assert!(!placed.is_empty());
    assert_eq!(
        device.matches("<circle").count(),
        2 * placed.len(),
        "{device}"
    );
    for k in placed {
        assert!(
            device.contains(&k.display_name),
            "{} not on the roofline",
            k.display_name
        );
    }
    // each component chart adds up: its shares of the predicted time, read from the SVG, never
    // exceed the whole, and either the bottleneck is the whole time (components that overlap)
    // or the parts sum to it (components that add)
    let charts: Vec<&str> = dom_text
        .split("<svg")
        .filter_map(|c| c.split("</svg>").next())
        .filter(|c| c.contains("time by component, % of predicted time"))
        .collect();
    assert_eq!(charts.len(), report.kernels.len());
    for c in charts {
        let shares: Vec<f64> = c
            .split("<text")
            .filter_map(|t| {
                let body = t.split('>').nth(1)?.split('<').next()?.trim();
                body.strip_suffix(" %")?.rsplit(' ').next()?.parse().ok()
            })
            .collect();
        assert!(!shares.is_empty(), "{c}");
        let max = shares.iter().cloned().fold(0.0, f64::max);
        let sum: f64 = shares.iter().sum();
        assert!(max <= 100.1, "a part above the whole: {shares:?}");
        assert!(
            (max - 100.0).abs() < 0.2 || (sum - 100.0).abs() < 0.5,
            "the parts neither overlap to the whole nor add up to it: {shares:?}"
        );
    }

    let shot = root.join("target/kerncast-html-test/screenshot.png");
    let _ = std::fs::remove_file(&shot);
    let s = Command::new(&chrome)
        .args(&common)
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1100,1600")
        .arg(&url)
        .output()
        .expect("chromium runs");
    let log = log + &String::from_utf8_lossy(&s.stderr);
    let console_errors: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(
        console_errors.is_empty(),
        "console errors: {console_errors:#?}"
    );
    let png = std::fs::metadata(&shot).expect("screenshot saved");
    assert!(png.len() > 10_000, "screenshot is {} bytes", png.len());
}

/// Notes every kernel shares (the device profile a model lacks data in, the arch the bundled
/// compiler targets) are listed once under Notes, with the entries they apply to, instead of in
/// every kernel's section; backticks in them are `<code>`; and no path carries the absolute
/// path of the checkout: the files given with their full paths read relative to the folder
/// that holds them, and the device profile's file relative to it too. The Markdown alike.
#[test]
fn shared_notes_appear_once_with_code_and_relative_paths() {
    let root = kerncast_tests::workspace_root();
    let ex = root.join("examples/kernels");
    let files: Vec<PathBuf> = ["saxpy.cu", "transpose.cu", "stencil.cl"]
        .iter()
        .map(|f| ex.join(f))
        .collect();
    assert!(files.iter().all(|f| f.is_absolute()));
    let out = tempfile::tempdir().unwrap();
    let inputs = Inputs {
        files,
        config: None,
        devices: vec!["gtx-titan-x".into()],
        model: None,
        jobs: 0,
        no_cache: true,
        lower: LowerArgs::default(),
        params: vec![],
        size_chart: false,
        sass_in_context: false,
        host: Default::default(),
    };
    let report = analyze(&inputs, Some(out.path())).expect("analyze runs");
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    assert_eq!(report.kernels.len(), 3);
    let html = std::fs::read_to_string(out.path().join(HTML_FILE)).unwrap();
    let md = std::fs::read_to_string(out.path().join(kerncast::report::MARKDOWN_FILE)).unwrap();

    // a note of every entry, and a model's error of every entry, once each
    let note = "energy per source line assumes constant power over the kernel";
    let lacks = "the schedule model could not predict: device <code>gtx-titan-x</code> lacks \
                 <code>latency.global</code>, which the schedule model needs (add it to \
                 ../../devices/gtx-titan-x.toml with a source)";
    assert!(
        report
            .kernels
            .iter()
            .all(|k| k.notes.iter().any(|n| n == note)),
        "every entry has the note: {:#?}",
        report.kernels[0].notes
    );
    assert_eq!(
        html.matches("<h2 id=\"notes\">Notes</h2>").count(),
        1,
        "{html}"
    );
    assert_eq!(html.matches(note).count(), 1, "{html}");
    assert_eq!(html.matches(lacks).count(), 1, "{html}");
    assert!(html.contains("schedule: see note "), "{html}");
    assert_eq!(md.matches(note).count(), 1, "{md}");
    assert_eq!(md.matches("lacks `latency.global`").count(), 1, "{md}");
    assert!(md.contains("(all 3 entries)"), "{md}");

    assert!(!html.contains('`'), "a raw backtick in the HTML");
    let checkout = root.to_string_lossy().into_owned();
    for (name, text) in [("HTML", &html), ("Markdown", &md)] {
        assert!(
            !text.contains(&checkout),
            "{name} holds the checkout's path {checkout}:\n{text}"
        );
    }
    assert!(html.contains("<code>saxpy.cu:3</code>"), "{html}");
    assert!(md.contains("Source `saxpy.cu:3`"), "{md}");
    // the JSON keeps the paths as given
    assert_eq!(
        report.kernels[0].source.as_ref().map(|s| s.file.clone()),
        Some(ex.join("saxpy.cu").display().to_string())
    );
}
