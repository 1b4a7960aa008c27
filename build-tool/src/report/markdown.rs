//! Markdown rendering, sized for `$GITHUB_STEP_SUMMARY` (a summary table, then a short section
//! per kernel; no HTML, no images).

use super::shown::{self, SharedNotes};
use super::{fmt_bytes, fmt_energy, fmt_energy_opt, fmt_power, fmt_time, Report};
use std::fmt::Write;

/// The report as Markdown, its paths relative to the report's root.
pub fn render(r: &Report) -> String {
    // last, so that a path in any note, message or location is caught
    shown::relative_paths(&render_as_given(r), r.root.as_deref())
}

fn render_as_given(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## kerncast: predicted time, power and energy\n");
    if r.kernels.is_empty() && r.errors.is_empty() {
        let _ = writeln!(s, "No kernels analysed.");
        return s;
    }
    let _ = writeln!(
        s,
        "| kernel | workload | device | time | power | energy | bottleneck | band |"
    );
    let _ = writeln!(s, "|---|---|---|---:|---:|---:|---|---|");
    for k in &r.kernels {
        let p = &k.prediction;
        let band = p
            .error_band
            .map(|[lo, hi]| format!("{:+.0}% / {:+.0}%", lo * 100.0, hi * 100.0))
            .unwrap_or_else(|| "–".into());
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |",
            k.display_name,
            k.workload.name,
            k.device,
            fmt_time(p.time_s),
            fmt_power(p.power_w),
            fmt_energy_opt(p.energy_j),
            p.bottleneck,
            band
        );
    }
    host_totals(&mut s, r);
    if !r.host_only.is_empty() {
        let files: Vec<String> = r.host_only.iter().map(|f| format!("`{f}`")).collect();
        let _ = writeln!(s, "\nNo kernels (host code only): {}", files.join(", "));
    }
    skipped_kernels(
        &mut s,
        "Not launched at the host code's values",
        &r.not_launched,
    );
    skipped_kernels(&mut s, "Templates never instantiated", &r.not_instantiated);
    skipped_kernels(&mut s, "Library kernels not predicted", &r.library_kernels);
    if !r.errors.is_empty() {
        let _ = writeln!(s, "\n### Errors ({})\n", r.errors.len());
        for e in &r.errors {
            let at = match e.line {
                Some(l) => format!("{}:{l}", e.file),
                None => e.file.clone(),
            };
            let first = e.message.lines().next().unwrap_or("");
            let _ = writeln!(s, "- `{at}` ({}): {first}", e.stage);
        }
    }
    let shared = SharedNotes::of(r);
    shared_notes(&mut s, r, &shared);
    for (i, k) in r.kernels.iter().enumerate() {
        let _ = writeln!(
            s,
            "\n### `{}` — {} on {}\n",
            k.display_name, k.workload.name, k.device
        );
        if let Some(src) = &k.source {
            let _ = writeln!(
                s,
                "Source `{}:{}`, model `{}`, front end {}, counts from the `{}` counter.\n",
                src.file, src.line, k.model, k.frontend, k.counter
            );
        }
        if !k.models.is_empty() {
            let _ = writeln!(
                s,
                "All models at the default clocks: {}.\n",
                shown::models_line(k, &shared)
            );
        }
        if let Some(d) = k.dram.as_ref().filter(|d| d.sector_bytes > 0.0) {
            let dirty = if d.dirty_at_exit_bytes > 0.0 {
                format!(
                    " while it runs ({} of its writes taken to stay dirty in the L2 past its end)",
                    fmt_bytes(d.dirty_at_exit_bytes)
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "Global memory: {} in 32-byte sectors, L2 hit rate {:.1} %, {} from DRAM{dirty}.\n",
                fmt_bytes(d.sector_bytes),
                d.l2_hit_rate * 100.0,
                fmt_bytes(d.bytes - d.local_bytes)
            );
        }
        if let Some(d) = k.dram.as_ref().filter(|d| d.local_bytes > 0.0) {
            let _ = writeln!(
                s,
                "Local memory: {} from DRAM (the frames of the resident threads outgrow the L2).\n",
                fmt_bytes(d.local_bytes)
            );
        }
        if !k.breakdown.is_empty() {
            let _ = writeln!(s, "| component | time | energy |\n|---|---:|---:|");
            for c in &k.breakdown {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} |",
                    c.name,
                    fmt_time(c.time_s),
                    fmt_energy(c.energy_j)
                );
            }
            s.push('\n');
        }
        if !k.hot_lines.is_empty() {
            let _ = writeln!(s, "Hottest source lines:\n");
            for h in k.hot_lines.iter().take(5) {
                let text = h
                    .text
                    .as_deref()
                    .map(|t| format!(" `{}`", t.trim()))
                    .unwrap_or_default();
                let _ = writeln!(
                    s,
                    "- `{}:{}` {:.1}% of time{}",
                    h.loc.file,
                    h.loc.line,
                    h.share * 100.0,
                    text
                );
            }
            s.push('\n');
        }
        if !k.assumptions.is_empty() {
            let _ = writeln!(s, "Assumptions (set a hint to replace a default):\n");
            for a in &k.assumptions {
                let _ = writeln!(s, "- `{}` {}: {}", a.hint_key, a.value_label(), a.what);
            }
            s.push('\n');
        }
        if !k.unknowns.is_empty() {
            let list: Vec<String> = k
                .unknowns
                .iter()
                .map(|(o, n)| format!("`{o}` ×{n}"))
                .collect();
            let _ = writeln!(s, "Unclassified instructions: {}\n", list.join(", "));
        }
        for n in shared.own(k) {
            let _ = writeln!(s, "> {n}");
        }
        let numbers: Vec<String> = shared.of_entry(i).iter().map(|n| n.to_string()).collect();
        if !numbers.is_empty() {
            let _ = writeln!(
                s,
                "> See also {} {} under Notes, shared with other entries.",
                if numbers.len() == 1 { "note" } else { "notes" },
                shown::and_list(&numbers)
            );
        }
    }
    s
}

/// The notes several entries share, each once with the entries it applies to, where they
/// would otherwise repeat in every kernel's section.
fn shared_notes(s: &mut String, r: &Report, shared: &SharedNotes) {
    if shared.notes.is_empty() {
        return;
    }
    let _ = writeln!(s, "\n### Notes\n");
    for (n, note) in shared.notes.iter().enumerate() {
        let to = if note.entries.len() == r.kernels.len() {
            format!("all {} entries", r.kernels.len())
        } else {
            note.entries
                .iter()
                .filter_map(|&i| r.kernels.get(i))
                .map(|k| format!("`{}` {} on {}", k.display_name, k.workload.name, k.device))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(s, "{}. {} ({to})", n + 1, note.text);
    }
}

/// What each host file's launches cost together, where that adds to the entries.
fn host_totals(s: &mut String, r: &Report) {
    let totals = super::host_totals::shown(r);
    if totals.is_empty() {
        return;
    }
    let _ = writeln!(s, "\n### What the host code's launches cost together\n");
    let _ = writeln!(
        s,
        "| host file | device | launches | time | energy | share of the time |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---|");
    for t in &totals {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} | {} |",
            t.file,
            t.device,
            t.launches,
            t.time_shown(),
            fmt_energy_opt(t.energy_j),
            t.shares(4)
        );
    }
    for t in &totals {
        if let Some(least) = t.least_energy_shown() {
            let _ = writeln!(s, "\n`{}` on {}: {least}.", t.file, t.device);
        }
    }
    let left_out: Vec<String> = totals
        .iter()
        .flat_map(|t| t.left_out.iter().map(|l| format!("- `{}`: {l}", t.file)))
        .collect();
    if !left_out.is_empty() {
        let _ = writeln!(s, "\nNot in the totals:\n\n{}", left_out.join("\n"));
    }
    if !r.errors.is_empty() {
        let _ = writeln!(s, "\nNote: {}.", super::host_totals::ERRORS_NOT_IN_TOTALS);
    }
}

/// A section listing kernels with nothing to predict (`title`), and why; none when empty.
fn skipped_kernels(s: &mut String, title: &str, kernels: &[super::NotLaunched]) {
    if kernels.is_empty() {
        return;
    }
    let _ = writeln!(s, "\n### {title} ({})\n", kernels.len());
    for n in kernels {
        let at = n.line.map_or(n.file.clone(), |l| format!("{}:{l}", n.file));
        let _ = writeln!(s, "- `{}` (`{at}`): {}", n.kernel, n.why);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn summary_table_lists_each_kernel() {
        let md = super::render(&crate::report::sample::report());
        assert!(md.contains("| `saxpy` | n=4096 | gtx-titan-x | 2.500 µs | 120.0 W | 300.000 µJ | dram | -20% / +25% |"), "{md}");
        assert!(md.contains("`k/saxpy.cu:5` 80.0% of time"));
        assert!(md.contains("counts from the `symbolic` counter"), "{md}");
        assert!(
            md.contains("All models at the default clocks: schedule 3.000 µs (latency)."),
            "{md}"
        );
        assert!(!md.contains("cost together"), "{md}");
    }

    #[test]
    fn host_totals_have_a_table() {
        let mut r = crate::report::sample::report();
        r.kernels[0].host_runs = vec![crate::report::HostRun {
            file: "main.cu".into(),
            line: 20,
            at: "main.cu:20".into(),
            times: Some(8),
            left_out: None,
        }];
        r.host_totals = crate::report::host_totals::totals(&r.kernels);
        let md = super::render(&r);
        assert!(
            md.contains("| `main.cu` | gtx-titan-x | 8 | 20.000 µs | 2.400 mJ | saxpy 100.0 % |"),
            "{md}"
        );
    }
}
