//! The HTML report: one self-contained file (inline CSS and SVG, no scripts, no external assets)
//! so it can be attached to a CI run or opened from disk anywhere.

use super::shown::{self, SharedNotes};
use super::{charts, fmt_energy, fmt_energy_opt, fmt_power, fmt_time, KernelReport, Report};
use std::fmt::Write;

/// Prose for HTML: escaped, with each pair of backticks (the Markdown the notes and messages
/// are written in) as `<code>`, so no raw backtick reaches the page; a lone one is escaped.
pub fn prose(s: &str) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    let paired = parts.len() % 2 == 1;
    let mut o = String::with_capacity(s.len() + 16);
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        match (i % 2 == 1, paired || !last) {
            (true, true) => {
                let _ = write!(o, "<code>{}</code>", esc(part));
            }
            (true, false) => {
                let _ = write!(o, "&#96;{}", esc(part));
            }
            (false, _) => o.push_str(&esc(part)),
        }
    }
    o
}

/// Escapes text for HTML element content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

const CSS: &str = "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1000px;color:#222;padding:0 1em}\
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}\
table{border-collapse:collapse;margin:.6em 0}td,th{padding:.25em .7em;border-bottom:1px solid #eee;text-align:left}\
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}code{font-size:.92em}\
.charts{display:flex;flex-wrap:wrap;gap:12px}.charts figure{margin:0;border:1px solid #eee}\
.bar{background:#1f77b4;height:.8em;display:inline-block}.note{color:#555;font-style:italic}\
.err{color:#b00}details{margin:.5em 0}ol.notes li{margin:.3em 0}";

/// A roofline per device with every kernel predicted on it as a point.
fn device_rooflines(s: &mut String, r: &Report) {
    let mut devices: Vec<&str> = r.kernels.iter().map(|k| k.device.as_str()).collect();
    devices.sort_unstable();
    devices.dedup();
    let charts: Vec<(&str, String)> = devices
        .into_iter()
        .filter_map(|d| {
            let ks: Vec<&KernelReport> = r.kernels.iter().filter(|k| k.device == d).collect();
            Some((d, super::charts::device_roofline(d, &ks)?))
        })
        .collect();
    if charts.is_empty() {
        return;
    }
    s.push_str("<h2>Rooflines</h2>\n<div class=\"charts\">");
    for (d, svg) in charts {
        let _ = write!(
            s,
            "<figure class=\"device-roofline\" data-device=\"{}\">{svg}</figure>",
            esc(d)
        );
    }
    s.push_str("</div>\n");
}

pub fn render(r: &Report) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>kerncast report</title>\
         <style>{CSS}</style></head><body>\n<h1>kerncast report</h1>\n<p class=\"note\">Predicted without \
         running on a GPU by kerncast {} (report schema {}).</p>\n",
        esc(&r.tool_version),
        r.schema_version
    );
    s.push_str("<table><tr><th>kernel</th><th>workload</th><th>device</th><th>time</th><th>power</th><th>energy</th><th>bottleneck</th></tr>\n");
    for (i, k) in r.kernels.iter().enumerate() {
        let p = &k.prediction;
        let _ = writeln!(
            s,
            "<tr><td><a href=\"#k{i}\"><code>{}</code></a></td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            esc(&k.display_name),
            esc(&k.workload.name),
            esc(&k.device),
            fmt_time(p.time_s),
            fmt_power(p.power_w),
            fmt_energy_opt(p.energy_j),
            esc(&p.bottleneck)
        );
    }
    s.push_str("</table>\n");
    host_totals(&mut s, r);
    if !r.host_only.is_empty() {
        let files: Vec<String> = r
            .host_only
            .iter()
            .map(|f| format!("<code>{}</code>", esc(f)))
            .collect();
        let _ = writeln!(
            s,
            "<p>No kernels (host code only): {}</p>",
            files.join(", ")
        );
    }
    skipped_kernels(
        &mut s,
        "Not launched at the host code's values",
        &r.not_launched,
    );
    skipped_kernels(&mut s, "Templates never instantiated", &r.not_instantiated);
    skipped_kernels(&mut s, "Library kernels not predicted", &r.library_kernels);
    if !r.errors.is_empty() {
        let _ = writeln!(s, "<h2 class=\"err\">Errors ({})</h2><ul>", r.errors.len());
        for e in &r.errors {
            let at = e
                .line
                .map(|l| format!("{}:{l}", e.file))
                .unwrap_or_else(|| e.file.clone());
            let _ = writeln!(
                s,
                "<li class=\"err\"><code>{}</code> ({}): <pre>{}</pre></li>",
                esc(&at),
                esc(&e.stage),
                esc(&e.message)
            );
        }
        s.push_str("</ul>\n");
    }
    let shared = SharedNotes::of(r);
    shared_notes(&mut s, r, &shared);
    device_rooflines(&mut s, r);
    for (i, k) in r.kernels.iter().enumerate() {
        kernel(&mut s, i, k, &shared);
    }
    s.push_str("</body></html>\n");
    // last, so that a path in any note, message or location is caught
    shown::relative_paths(&s, r.root.as_deref())
}

/// The notes several entries share, each once with links to the entries it applies to, where
/// they would otherwise repeat in every kernel's section.
fn shared_notes(s: &mut String, r: &Report, shared: &SharedNotes) {
    if shared.notes.is_empty() {
        return;
    }
    s.push_str("<h2 id=\"notes\">Notes</h2>\n<ol class=\"notes\">\n");
    for (n, note) in shared.notes.iter().enumerate() {
        let to = if note.entries.len() == r.kernels.len() {
            format!("all {} entries", r.kernels.len())
        } else {
            note.entries
                .iter()
                .filter_map(|&i| Some((i, r.kernels.get(i)?)))
                .map(|(i, k)| {
                    format!(
                        "<a href=\"#k{i}\"><code>{}</code> {} on {}</a>",
                        esc(&k.display_name),
                        esc(&k.workload.name),
                        esc(&k.device)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            s,
            "<li id=\"note{}\">{} <span class=\"note\">({to})</span></li>",
            n + 1,
            prose(&note.text)
        );
    }
    s.push_str("</ol>\n");
}

fn kernel(s: &mut String, i: usize, k: &KernelReport, shared: &SharedNotes) {
    let p = &k.prediction;
    let _ = writeln!(
        s,
        "<section id=\"k{i}\"><h2><code>{}</code> — {} on {}</h2>",
        esc(&k.display_name),
        esc(&k.workload.name),
        esc(&k.device)
    );
    let src = k
        .source
        .as_ref()
        .map(|l| format!("<code>{}:{}</code>", esc(&l.file), l.line))
        .unwrap_or_else(|| "unknown source".into());
    let band = p
        .error_band
        .map(|[lo, hi]| format!(" (band {:+.0}% / {:+.0}%)", lo * 100.0, hi * 100.0))
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "<p>{src}, PTX entry <code>{}</code>, front end {}, model <code>{}</code>. Grid {:?}, block {:?}.<br>\
         <b>{}</b>{band}, <b>{}</b>, <b>{}</b>; limited by <b>{}</b>.</p>",
        esc(&k.kernel),
        esc(&k.frontend),
        esc(&k.model),
        k.workload.grid,
        k.workload.block,
        fmt_time(p.time_s),
        fmt_power(p.power_w),
        fmt_energy_opt(p.energy_j),
        esc(&p.bottleneck)
    );
    let _ = writeln!(
        s,
        "<p>Counts from the <code>{}</code> counter. All models at the default clocks: {}.</p>",
        esc(&k.counter),
        prose(&shown::models_line(k, shared))
    );
    for n in shared.own(k) {
        let _ = writeln!(s, "<p class=\"note\">{}</p>", prose(n));
    }
    let numbers: Vec<String> = shared
        .of_entry(i)
        .iter()
        .map(|n| format!("<a href=\"#note{n}\">{n}</a>"))
        .collect();
    if !numbers.is_empty() {
        let _ = writeln!(
            s,
            "<p class=\"note\">See also {} {} under Notes, shared with other entries.</p>",
            if numbers.len() == 1 { "note" } else { "notes" },
            shown::and_list(&numbers)
        );
    }
    s.push_str("<div class=\"charts\">\n");
    for (title, chart) in [
        ("time by component", charts::breakdown(k)),
        ("roofline", charts::roofline(k)),
        ("DVFS Pareto", charts::pareto(k)),
        ("time vs problem size", charts::scaling(k)),
    ] {
        if let Some(svg) = chart {
            let _ = writeln!(s, "<figure title=\"{}\">{svg}</figure>", esc(title));
        }
    }
    s.push_str("</div>\n");
    if !k.hot_lines.is_empty() {
        s.push_str("<h3>Source lines carrying the most predicted time</h3><table><tr><th>line</th><th>time</th><th>energy</th><th>share</th><th>source</th></tr>\n");
        for h in &k.hot_lines {
            let _ = writeln!(
                s,
                "<tr><td><code>{}:{}</code></td><td class=\"n\">{}</td><td class=\"n\">{}</td><td><span class=\"bar\" style=\"width:{:.0}px\"></span> {:.1}%</td><td><code>{}</code></td></tr>",
                esc(&h.loc.file),
                h.loc.line,
                fmt_time(h.time_s),
                fmt_energy(h.energy_j),
                (h.share * 120.0).clamp(0.0, 120.0),
                h.share * 100.0,
                esc(h.text.as_deref().unwrap_or("").trim())
            );
        }
        s.push_str("</table>\n");
    }
    if !k.assumptions.is_empty() || !k.unknowns.is_empty() {
        s.push_str("<h3>Assumptions and unclassified instructions</h3><ul>\n");
        for a in &k.assumptions {
            let _ = writeln!(
                s,
                "<li><code>{}</code> {}{}: {}</li>",
                esc(&a.hint_key),
                a.value_label(),
                a.at.as_deref()
                    .map(|l| format!(" at <code>{}</code>", esc(l)))
                    .unwrap_or_default(),
                prose(&a.what)
            );
        }
        for (op, n) in &k.unknowns {
            let _ = writeln!(s, "<li>unclassified <code>{}</code> ×{n}</li>", esc(op));
        }
        s.push_str("</ul>\n");
    }
    if !k.counts.is_empty() {
        s.push_str("<details><summary>feature counts</summary><table>\n");
        for (f, v) in &k.counts {
            let _ = writeln!(
                s,
                "<tr><td><code>{}</code></td><td class=\"n\">{v}</td></tr>",
                esc(f)
            );
        }
        s.push_str("</table></details>\n");
    }
    s.push_str("</section>\n");
}

/// What each host file's launches cost together, where that adds to the entries.
fn host_totals(s: &mut String, r: &Report) {
    let totals = super::host_totals::shown(r);
    if totals.is_empty() {
        return;
    }
    s.push_str("<h2>What the host code's launches cost together</h2>\n<table><tr><th>host file</th><th>device</th><th>launches</th><th>time</th><th>energy</th><th>share of the time</th></tr>\n");
    for t in &totals {
        let _ = writeln!(
            s,
            "<tr><td><code>{}</code></td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            esc(&t.file),
            esc(&t.device),
            t.launches,
            t.time_shown(),
            fmt_energy_opt(t.energy_j),
            esc(&t.shares(4))
        );
    }
    s.push_str("</table>\n");
    for t in &totals {
        if let Some(least) = t.least_energy_shown() {
            let _ = writeln!(
                s,
                "<p><code>{}</code> on {}: {}.</p>",
                esc(&t.file),
                esc(&t.device),
                prose(&least)
            );
        }
    }
    let left_out: Vec<String> = totals
        .iter()
        .flat_map(|t| {
            t.left_out
                .iter()
                .map(|l| format!("<li><code>{}</code>: {}</li>", esc(&t.file), prose(l)))
        })
        .collect();
    if !left_out.is_empty() {
        let _ = writeln!(s, "<p>Not in the totals:</p><ul>{}</ul>", left_out.join(""));
    }
    if !r.errors.is_empty() {
        let _ = writeln!(
            s,
            "<p class=\"note\">Note: {}.</p>",
            super::host_totals::ERRORS_NOT_IN_TOTALS
        );
    }
}

/// A section listing kernels with nothing to predict (`title`), and why; none when empty.
fn skipped_kernels(s: &mut String, title: &str, kernels: &[super::NotLaunched]) {
    if kernels.is_empty() {
        return;
    }
    let _ = writeln!(s, "<h2>{title} ({})</h2><ul>", kernels.len());
    for n in kernels {
        let _ = writeln!(s, "<li>{}</li>", prose(&n.shown()));
    }
    s.push_str("</ul>\n");
}

#[cfg(test)]
mod tests {
    #[test]
    fn self_contained_with_charts() {
        let h = super::render(&crate::report::sample::report());
        assert!(h.starts_with("<!DOCTYPE html>"));
        // four charts of the kernel, and the roofline of its device
        assert_eq!(h.matches("<svg").count(), 5);
        assert!(h.contains("class=\"device-roofline\" data-device=\"gtx-titan-x\""));
        assert!(!h.contains("<script"));
        assert!(!h.contains("src=\"http"));
        assert!(h.contains("y[i] = a * x[i] + y[i];"));
    }

    #[test]
    fn escapes() {
        assert_eq!(super::esc("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    }
}
