//! The plain-text summary `kerncast analyze` prints to stdout.

use super::{fmt_energy_opt, fmt_power, fmt_time, KernelReport, Report};
use std::fmt::Write;

fn file(k: &KernelReport) -> Option<&str> {
    k.source.as_ref().map(|s| s.file.as_str())
}

pub fn render(r: &Report) -> String {
    let head = [
        "kernel",
        "workload",
        "device",
        "time",
        "power",
        "energy",
        "bottleneck",
    ];
    // Two files may define kernels of one name: those rows name their file too.
    let ambiguous = |k: &KernelReport| {
        r.kernels
            .iter()
            .any(|o| o.display_name == k.display_name && file(o) != file(k))
    };
    let rows: Vec<[String; 7]> = r
        .kernels
        .iter()
        .map(|k| {
            [
                match file(k) {
                    Some(f) if ambiguous(k) => format!("{f}: {}", k.display_name),
                    _ => k.display_name.clone(),
                },
                k.workload.name.clone(),
                k.device.clone(),
                fmt_time(k.prediction.time_s),
                fmt_power(k.prediction.power_w),
                fmt_energy_opt(k.prediction.energy_j),
                k.prediction.bottleneck.clone(),
            ]
        })
        .collect();
    let mut w: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (i, c) in row.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut s = String::new();
    let line = |s: &mut String, cells: Vec<&str>| {
        let mut out = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = w[i] - c.chars().count();
            // Numbers right-aligned, names left-aligned.
            if (3..6).contains(&i) {
                let _ = write!(out, "{}{}  ", " ".repeat(pad), c);
            } else {
                let _ = write!(out, "{}{}  ", c, " ".repeat(pad));
            }
        }
        let _ = writeln!(s, "{}", out.trim_end());
    };
    line(&mut s, head.to_vec());
    line(
        &mut s,
        w.iter()
            .map(|n| "-".repeat(*n))
            .collect::<Vec<_>>()
            .iter()
            .map(String::as_str)
            .collect(),
    );
    for row in &rows {
        line(&mut s, row.iter().map(String::as_str).collect());
    }
    let _ = writeln!(
        s,
        "{} kernel workload(s), {} error(s)",
        r.kernels.len(),
        r.errors.len()
    );
    let totals = super::host_totals::shown(r);
    for t in &totals {
        let shares = match t.shares(3) {
            s if s.is_empty() => s,
            s => format!(" ({s})"),
        };
        let _ = writeln!(
            s,
            "host code {} on {}: {}{shares}",
            t.file,
            t.device,
            t.sums()
        );
        if let Some(least) = t.least_energy_shown() {
            let _ = writeln!(s, "  {least}");
        }
        for l in &t.left_out {
            let _ = writeln!(s, "  not in the total: {l}");
        }
    }
    if !totals.is_empty() && !r.errors.is_empty() {
        let _ = writeln!(s, "  {}", super::host_totals::ERRORS_NOT_IN_TOTALS);
    }
    if !r.host_only.is_empty() {
        let _ = writeln!(s, "no kernels (host code only): {}", r.host_only.join(", "));
    }
    for n in &r.not_launched {
        let _ = writeln!(s, "not launched at the host code's values: {}", n.shown());
    }
    for n in &r.not_instantiated {
        let _ = writeln!(s, "template never instantiated: {}", n.shown());
    }
    if !r.library_kernels.is_empty() {
        // a library's instances differ in their template arguments: their templates suffice
        let mut names: Vec<&str> = r
            .library_kernels
            .iter()
            .map(|n| n.kernel.split('<').next().unwrap_or(&n.kernel))
            .collect();
        names.sort_unstable();
        names.dedup();
        let _ = writeln!(
            s,
            "{} library kernel(s) not predicted (defined in headers, launched by the library; \
             see the report): {}",
            r.library_kernels.len(),
            names.join(", ")
        );
    }
    for e in &r.errors {
        let at = e
            .line
            .map(|l| format!("{}:{l}", e.file))
            .unwrap_or_else(|| e.file.clone());
        let mut lines = e.message.lines();
        let _ = writeln!(
            s,
            "error: {at}: {}: {}",
            e.stage,
            lines.next().unwrap_or("")
        );
        // A compiler's output follows its exit status: its first error is what to fix.
        if let Some(d) = lines.find(|l| l.contains("error")) {
            let _ = writeln!(s, "  {}", d.trim());
        }
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_compiler_failure_shows_its_first_error() {
        let mut r = crate::report::sample::report();
        r.errors.push(crate::report::Failure {
            file: "bad.cu".into(),
            line: Some(4),
            kernel: None,
            stage: "lower".into(),
            message: "bad.cu: nvcc failed (exit status: 1)\n  command: nvcc -ptx bad.cu\nbad.cu(3): warning #177-D: unused\nbad.cu(4): error: expected a \";\"\n1 error detected".into(),
        });
        let t = super::render(&r);
        assert!(
            t.ends_with("error: bad.cu:4: lower: bad.cu: nvcc failed (exit status: 1)\n  bad.cu(4): error: expected a \";\"\n"),
            "{t}"
        );
    }

    /// A launch run in a loop gets its host file's total under the table, with what is left out.
    #[test]
    fn host_totals_follow_the_count() {
        let mut r = crate::report::sample::report();
        let run = |times, left_out: Option<&str>| crate::report::HostRun {
            file: "k/saxpy.cu".into(),
            line: 9,
            at: "line 9".into(),
            times,
            left_out: left_out.map(String::from),
        };
        r.kernels[0].host_runs = vec![run(Some(100), None), run(None, Some("why"))];
        r.host_totals = crate::report::host_totals::totals(&r.kernels);
        let t = super::render(&r);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[4..7],
            [
                "host code k/saxpy.cu on gtx-titan-x: 100 launches, 250.000 µs and 30.000 mJ in \
                 all (saxpy 100.0 %)",
                "  least energy at core 600 MHz, memory 3505 MHz: 24.000 mJ (-20.0 %) in \
                 300.000 µs (+20.0 %)",
                "  not in the total: `saxpy` (n=4096) at line 9: why"
            ],
            "{t}"
        );
        // run once: nothing to add
        r.kernels[0].host_runs = vec![run(Some(1), None)];
        r.host_totals = crate::report::host_totals::totals(&r.kernels);
        assert_eq!(super::render(&r).lines().count(), 4);
    }

    #[test]
    fn aligned_columns() {
        let t = super::render(&crate::report::sample::report());
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("kernel"));
        assert!(lines[2].starts_with("saxpy"));
        assert!(lines[2].contains("2.500 µs"));
        assert_eq!(lines[3], "1 kernel workload(s), 0 error(s)");
    }

    #[test]
    fn a_kernel_name_in_two_files_is_shown_with_its_file() {
        let mut r = crate::report::sample::report();
        let mut other = r.kernels[0].clone();
        other.source.as_mut().unwrap().file = "b/other.cu".into();
        r.kernels.push(other);
        let t = super::render(&r);
        let lines: Vec<&str> = t.lines().collect();
        let first = r.kernels[0].source.as_ref().unwrap().file.clone();
        assert!(lines[2].starts_with(&format!("{first}: saxpy")), "{t}");
        assert!(lines[3].starts_with("b/other.cu: saxpy"), "{t}");
        // alone, a name stays bare
        assert!(super::render(&crate::report::sample::report())
            .lines()
            .nth(2)
            .unwrap()
            .starts_with("saxpy "));
    }
}
