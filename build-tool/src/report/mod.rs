//! The report: everything `kerncast analyze` learned about a set of kernels, as one serde value.
//! Every output (JSON, Markdown, HTML, SARIF, the stdout table, the baseline) renders from it, so
//! they cannot disagree. The JSON form is documented in `docs/report-schema.md`; bump
//! [`SCHEMA_VERSION`] on any change that is not a pure addition.

pub mod charts;
mod files;
pub mod host_totals;
pub mod html;
pub mod markdown;
mod model;
pub mod shown;
pub mod table;

pub use files::{write_all, HTML_FILE, JSON_FILE, MARKDOWN_FILE};
pub use model::*;

use std::collections::BTreeMap;

impl Report {
    pub fn new(kernels: Vec<KernelReport>, errors: Vec<Failure>) -> Report {
        let mut r = Report {
            schema_version: SCHEMA_VERSION,
            tool: "kerncast".into(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            kernels,
            errors,
            host_only: Vec::new(),
            not_launched: Vec::new(),
            not_instantiated: Vec::new(),
            library_kernels: Vec::new(),
            host_totals: Vec::new(),
            root: None,
        };
        name_shapes_apart(&mut r.kernels);
        // by the names a reader knows (a C++ entry's mangled name begins with its length)
        r.kernels.sort_by(|a, b| {
            natural_order(&a.shown_key(), &b.shown_key())
                .then_with(|| natural_order(&a.key(), &b.key()))
        });
        r.errors
            .sort_by(|a, b| (&a.file, a.line, &a.kernel).cmp(&(&b.file, b.line, &b.kernel)));
        r.host_totals = host_totals::totals(&r.kernels);
        r
    }

    pub fn to_json(&self) -> String {
        let mut s =
            serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
        s.push('\n');
        s
    }
}

/// Gives the launch shape in the workload's name where two predictions of one kernel share a
/// key but not a launch (`k<<<grid, block>>>(a, w, h)` twice with other `dim3`s): a baseline
/// keyed by name would otherwise hold one of them, and `check` compare both with it.
fn name_shapes_apart(kernels: &mut [KernelReport]) {
    type Shape = ([u64; 3], [u64; 3]);
    let shape = |k: &KernelReport| -> Shape { (k.workload.grid, k.workload.block) };
    let mut shapes: BTreeMap<String, Vec<Shape>> = BTreeMap::new();
    for k in kernels.iter() {
        let seen = shapes.entry(k.key()).or_default();
        if !seen.contains(&shape(k)) {
            seen.push(shape(k));
        }
    }
    let dims = |d: [u64; 3]| format!("{}x{}x{}", d[0], d[1], d[2]);
    for k in kernels.iter_mut() {
        if shapes[&k.key()].len() > 1 {
            let (grid, block) = shape(k);
            k.workload.name = format!(
                "{} (grid {}, block {})",
                k.workload.name,
                dims(grid),
                dims(block)
            );
        }
    }
}

/// `a` against `b` with their runs of digits compared as numbers, so that a size sweep's
/// workloads come in the order of their sizes (`n=512`, `n=1024`, `n=4096`).
fn natural_order(a: &str, b: &str) -> std::cmp::Ordering {
    fn runs(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, c) in s.char_indices().skip(1) {
            let prev = s[..i]
                .chars()
                .next_back()
                .is_some_and(|p| p.is_ascii_digit());
            if prev != c.is_ascii_digit() {
                out.push((prev, &s[start..i]));
                start = i;
            }
        }
        if !s.is_empty() {
            let digits = s[start..].starts_with(|c: char| c.is_ascii_digit());
            out.push((digits, &s[start..]));
        }
        out
    }
    for (x, y) in runs(a).into_iter().zip(runs(b)) {
        fn by_number(r: &str) -> (usize, &str) {
            let r = r.trim_start_matches('0');
            (r.len(), r)
        }
        let o = match (x, y) {
            ((true, x), (true, y)) => by_number(x).cmp(&by_number(y)),
            ((_, x), (_, y)) => x.cmp(y),
        };
        if o.is_ne() {
            return o;
        }
    }
    runs(a).len().cmp(&runs(b).len()).then_with(|| a.cmp(b))
}

#[cfg(test)]
pub(crate) mod sample {
    //! A small report for renderer tests.
    use super::*;
    use crate::workload::Workload;

    pub fn report() -> Report {
        let k = KernelReport {
            counter: "symbolic".into(),
            models: vec![ModelResult {
                model: "schedule".into(),
                time_s: Some(3.0e-6),
                bottleneck: Some("latency".into()),
                error: None,
            }],
            kernel: "_Z5saxpyifPKfPf".into(),
            display_name: "saxpy".into(),
            source: Some(SourceLoc {
                file: "k/saxpy.cu".into(),
                line: 3,
            }),
            frontend: "nvcc".into(),
            ptx_sha256: "ab".repeat(32),
            device: "gtx-titan-x".into(),
            model: "test".into(),
            workload: Workload {
                name: "n=4096".into(),
                grid: [16, 1, 1],
                block: [256, 1, 1],
                params: [("n".to_string(), 4096)].into_iter().collect(),
                hints: BTreeMap::new(),
                buffers: BTreeMap::new(),
            },
            prediction: Prediction {
                time_s: 2.5e-6,
                power_w: Some(120.0),
                energy_j: Some(3.0e-4),
                bottleneck: "dram".into(),
                error_band: Some([-0.2, 0.25]),
            },
            breakdown: vec![
                Component {
                    name: "dram".into(),
                    time_s: 2.0e-6,
                    energy_j: 2.4e-4,
                },
                Component {
                    name: "compute".into(),
                    time_s: 0.5e-6,
                    energy_j: 0.6e-4,
                },
            ],
            roofline: Some(Roofline {
                flops: 8192.0,
                tensor_flops: 0.0,
                dram_bytes: 49152.0,
                l2_hit_rate: 0.25,
                intensity: 8192.0 / 49152.0,
                flops_per_s: 8192.0 / 2.5e-6,
                peak_flops_per_s: 6.1e12,
                peak_bytes_per_s: 336e9,
                ceilings: vec![Ceiling {
                    name: "fp64".into(),
                    flops_per_s: 0.19e12,
                }],
                l2: Some(L2Level {
                    bytes: 98304.0,
                    intensity: 8192.0 / 98304.0,
                    peak_bytes_per_s: 1.2e12,
                }),
            }),
            dram: Some(DramTraffic {
                sector_bytes: 65536.0,
                l2_hit_rate: 0.25,
                local_bytes: 0.0,
                dirty_at_exit_bytes: 0.0,
                bytes: 49152.0,
            }),
            dvfs: vec![
                DvfsPoint {
                    core_mhz: 1000.0,
                    mem_mhz: 3505.0,
                    time_s: 2.5e-6,
                    power_w: 120.0,
                    energy_j: 3.0e-4,
                    pareto: true,
                },
                DvfsPoint {
                    core_mhz: 600.0,
                    mem_mhz: 3505.0,
                    time_s: 3.0e-6,
                    power_w: 80.0,
                    energy_j: 2.4e-4,
                    pareto: true,
                },
                DvfsPoint {
                    core_mhz: 600.0,
                    mem_mhz: 810.0,
                    time_s: 9.0e-6,
                    power_w: 60.0,
                    energy_j: 5.4e-4,
                    pareto: false,
                },
            ],
            scaling: Some(Scaling {
                param: "n".into(),
                points: vec![
                    ScalingPoint {
                        value: 1024,
                        time_s: 1.0e-6,
                        energy_j: 1.0e-4,
                    },
                    ScalingPoint {
                        value: 4096,
                        time_s: 2.5e-6,
                        energy_j: 3.0e-4,
                    },
                ],
            }),
            hot_lines: vec![HotLine {
                loc: SourceLoc {
                    file: "k/saxpy.cu".into(),
                    line: 5,
                },
                text: Some("y[i] = a * x[i] + y[i];".into()),
                time_s: 2.0e-6,
                energy_j: 2.4e-4,
                share: 0.8,
            }],
            counts: [("threads".to_string(), 4096.0)].into_iter().collect(),
            unknowns: BTreeMap::new(),
            assumptions: vec![],
            resources: Resources::default(),
            notes: vec![],
            host_runs: vec![],
        };
        Report::new(vec![k], vec![])
    }
}

#[cfg(test)]
mod tests {
    use super::natural_order;

    /// Twenty workloads that fail alike are one error that says so; another stays apart.
    #[test]
    fn repeated_failures_are_merged_in_order() {
        let fail = |kernel: &str, message: &str| super::Failure {
            file: "k.cu".into(),
            line: Some(2),
            kernel: Some(kernel.into()),
            stage: "count".into(),
            message: message.into(),
        };
        let mut all = vec![fail("a", "needs j"); 20];
        all.insert(3, fail("b", "needs n"));
        let merged = super::Failure::merge_repeated(all);
        assert_eq!(
            merged,
            [
                fail("a", "needs j (the same for 20 workloads)"),
                fail("b", "needs n")
            ]
        );
    }

    /// A second run into the same folder leaves only its own per-entry files: the entry of a
    /// kernel renamed since is removed, a file that is not an entry's stays.
    #[test]
    fn stale_entry_files_of_an_earlier_run_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let first = super::sample::report();
        super::write_all(&first, dir.path()).unwrap();
        let kernels = dir.path().join("kernels");
        std::fs::write(kernels.join("README.txt"), "mine").unwrap();
        let mut renamed = first.clone();
        renamed.kernels[0].display_name = "saxpy2".into();
        let written = super::write_all(&renamed, dir.path()).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(&kernels)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["README.txt", "saxpy2-n_4096-gtx-titan-x.json"]);
        assert!(written
            .iter()
            .any(|p| p.ends_with("saxpy2-n_4096-gtx-titan-x.json")));
    }

    #[test]
    fn an_entry_s_file_name_is_cut_to_fit_and_stays_unique() {
        let mut k = super::sample::report().kernels.remove(0);
        assert_eq!(
            super::files::entry_file_stem(&k),
            "saxpy-n_4096-gtx-titan-x"
        );
        let many: Vec<String> = (0..40).map(|i| format!("a.sizes[{i}]=4096")).collect();
        k.workload.name = many.join(",");
        let long = super::files::entry_file_stem(&k);
        assert_eq!(long.len(), super::files::MOST_STEM_BYTES);
        k.workload.name.push('1');
        let other = super::files::entry_file_stem(&k);
        assert_eq!(other.len(), super::files::MOST_STEM_BYTES);
        assert_ne!(long, other);
        assert_eq!(long[..140], other[..140]);
    }

    #[test]
    fn two_launches_of_one_name_and_other_shapes_get_apart_in_their_keys() {
        let one = super::sample::report().kernels[0].clone();
        let mut other = one.clone();
        other.workload.grid = [8, 1, 1];
        other.workload.block = [512, 1, 1];
        let same = one.clone();
        let r = super::Report::new(vec![one, other, same], vec![]);
        let names: Vec<&str> = r.kernels.iter().map(|k| k.workload.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "n=4096 (grid 8x1x1, block 512x1x1)",
                "n=4096 (grid 16x1x1, block 256x1x1)",
                "n=4096 (grid 16x1x1, block 256x1x1)",
            ]
        );
        // one shape keeps its name
        let lone = super::Report::new(vec![r.kernels[0].clone()], vec![]);
        assert_eq!(lone.kernels[0].workload.name, r.kernels[0].workload.name);
        let plain = super::sample::report();
        assert_eq!(plain.kernels[0].workload.name, "n=4096");
    }

    /// C++ entries sort by their source names, not by their mangled ones (`_Z5scale…` before
    /// `_Z9butterfly…`), and each kernel's workloads by their numbers.
    #[test]
    fn entries_sort_by_source_name_then_workload() {
        let entry = |ptx: &str, name: &str, workload: &str| {
            let mut k = super::sample::report().kernels.remove(0);
            (k.kernel, k.display_name) = (ptx.into(), name.into());
            k.workload.name = workload.into();
            k
        };
        let r = super::Report::new(
            vec![
                entry("_Z5scaleP6float2if", "scale", "n=1024"),
                entry("_Z9butterflyP6float2ii", "butterfly", "stage=10"),
                entry("_Z9butterflyP6float2ii", "butterfly", "stage=2"),
            ],
            vec![],
        );
        let order: Vec<String> = r
            .kernels
            .iter()
            .map(|k| format!("{} {}", k.display_name, k.workload.name))
            .collect();
        assert_eq!(
            order,
            ["butterfly stage=2", "butterfly stage=10", "scale n=1024"]
        );
    }

    #[test]
    fn workloads_sort_by_their_numbers() {
        let mut keys = vec![
            "a.cu::k::n=4096@gpu",
            "a.cu::k::n=512@gpu",
            "a.cu::k::n=1024@gpu",
            "a.cu::k::n=1024,m=2@gpu",
            "a.cu::j::n=99999@gpu",
            "a.cu::k::n=0512@gpu",
        ];
        keys.sort_by(|a, b| natural_order(a, b));
        assert_eq!(
            keys,
            [
                "a.cu::j::n=99999@gpu",
                "a.cu::k::n=0512@gpu",
                "a.cu::k::n=512@gpu",
                "a.cu::k::n=1024,m=2@gpu",
                "a.cu::k::n=1024@gpu",
                "a.cu::k::n=4096@gpu",
            ]
        );
    }
}
