//! Inline SVG charts for the HTML report, drawn with plotters' SVG backend. Why SVG strings: the
//! HTML report must be one self-contained file (no scripts, no fetched assets), and SVG text
//! stays sharp and diffable. Each function returns an `<svg>` element, or `None` when the report
//! has no data for that chart.

use super::KernelReport;
use plotters::prelude::*;

const W: u32 = 460;
const H: u32 = 300;
const BLUE: RGBColor = RGBColor(31, 119, 180);
const ORANGE: RGBColor = RGBColor(255, 127, 14);
const GREY: RGBColor = RGBColor(150, 150, 150);
const GREEN_DARK: RGBColor = RGBColor(44, 160, 44);
const PURPLE: RGBColor = RGBColor(148, 103, 189);
/// The width a legend beside a chart takes.
const LEGEND_W: u32 = 190;

type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn svg(
    draw: impl FnOnce(DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> DrawResult,
) -> Option<String> {
    svg_sized((W, H), draw)
}

fn svg_sized(
    size: (u32, u32),
    draw: impl FnOnce(DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> DrawResult,
) -> Option<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        if root.fill(&WHITE).is_err() {
            return None;
        }
        draw(root.clone()).ok()?;
        root.present().ok()?;
    }
    Some(out)
}

fn bounds(vals: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let v: Vec<f64> = vals.filter(|x| x.is_finite() && *x > 0.0).collect();
    if v.is_empty() {
        return None;
    }
    let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = v.iter().cloned().fold(0.0, f64::max);
    Some((lo, hi))
}

/// Time and energy shares per component, as side-by-side bars (percent of the kernel's total).
pub fn breakdown(k: &KernelReport) -> Option<String> {
    if k.breakdown.is_empty() {
        return None;
    }
    let tt: f64 = k.breakdown.iter().map(|c| c.time_s).sum();
    let te: f64 = k.breakdown.iter().map(|c| c.energy_j).sum();
    let n = k.breakdown.len();
    let names: Vec<String> = k.breakdown.iter().map(|c| c.name.clone()).collect();
    svg(|root| {
        let mut ch = ChartBuilder::on(&root)
            .caption("time and energy by component", ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(45)
            .build_cartesian_2d(0f64..n as f64, 0f64..100f64)?;
        ch.configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc("% of total")
            .draw()?;
        let pct = |v: f64, t: f64| if t > 0.0 { 100.0 * v / t } else { 0.0 };
        ch.draw_series(k.breakdown.iter().enumerate().map(|(i, c)| {
            let x = i as f64;
            Rectangle::new(
                [(x + 0.1, 0.0), (x + 0.48, pct(c.time_s, tt))],
                BLUE.filled(),
            )
        }))?
        .label("time")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], BLUE.filled()));
        ch.draw_series(k.breakdown.iter().enumerate().map(|(i, c)| {
            let x = i as f64;
            Rectangle::new(
                [(x + 0.52, 0.0), (x + 0.9, pct(c.energy_j, te))],
                ORANGE.filled(),
            )
        }))?
        .label("energy")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], ORANGE.filled()));
        // Component names above their bars (tick labels would not line up with bar pairs).
        ch.draw_series(k.breakdown.iter().enumerate().map(|(i, c)| {
            let top = pct(c.time_s, tt).max(pct(c.energy_j, te));
            Text::new(
                names[i].clone(),
                (i as f64 + 0.1, (top + 3.0).min(96.0)),
                ("sans-serif", 13),
            )
        }))?;
        ch.configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE)
            .draw()?;
        Ok(())
    })
}

/// The kernel's point under the device's roofline (log-log): the DRAM slope, the CUDA cores'
/// f32 roof, and the other ceilings for the work the kernel does (f64, tensor cores). Where
/// the L2's traffic and throughput are known, the L2 level too, as Nsight Compute's
/// hierarchical roofline shows it: the L2's slope and the kernel's point at its L2 intensity.
pub fn roofline(k: &KernelReport) -> Option<String> {
    let r = k.roofline.as_ref()?;
    if !(r.peak_flops_per_s > 0.0
        && r.peak_bytes_per_s > 0.0
        && r.intensity > 0.0
        && r.flops_per_s > 0.0)
    {
        return None;
    }
    let mut roofs = vec![("fp32".to_string(), r.peak_flops_per_s, GREY)];
    let colours = [ORANGE, GREEN_DARK];
    for (c, colour) in r.ceilings.iter().zip(colours) {
        if c.flops_per_s > 0.0 {
            roofs.push((c.name.clone(), c.flops_per_s, colour));
        }
    }
    let lowest = roofs.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
    let highest = roofs.iter().map(|r| r.1).fold(0.0, f64::max);
    let l2 =
        r.l2.as_ref()
            .filter(|l| l.intensity > 0.0 && l.peak_bytes_per_s > 0.0);
    // the intensities on the chart, DRAM's and the L2's, and the fastest slope
    let intensities: Vec<f64> = std::iter::once(r.intensity)
        .chain(l2.map(|l| l.intensity))
        .collect();
    let fastest = l2.map_or(r.peak_bytes_per_s, |l| {
        l.peak_bytes_per_s.max(r.peak_bytes_per_s)
    });
    let xlo = intensities.iter().fold(lowest / fastest, |a, &b| a.min(b)) / 10.0;
    let xlo = xlo.max(1e-4);
    let xhi = intensities
        .iter()
        .fold(highest / r.peak_bytes_per_s, |a, &b| a.max(b))
        * 10.0;
    let ylo = (r.flops_per_s.min(xlo * r.peak_bytes_per_s) / 2.0).max(1.0);
    let yhi = highest * 2.0;
    // the legend goes beside the plot: a point may sit anywhere under the roofs
    svg_sized((W + LEGEND_W, H), |root| {
        let (plot, legend) = root.split_horizontally(W);
        let mut ch = ChartBuilder::on(&plot)
            .caption("roofline", ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d((xlo..xhi).log_scale(), (ylo..yhi).log_scale())?;
        ch.configure_mesh()
            .x_desc("flop / byte (DRAM after L2 hits, or L2)")
            .y_desc("flop/s")
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .x_label_formatter(&|v| intensity_label(*v))
            .draw()?;
        let line = |bytes_per_s: f64, peak: f64| -> Vec<(f64, f64)> {
            (0..=60)
                .map(|i| {
                    let x = xlo * (xhi / xlo).powf(i as f64 / 60.0);
                    (x, (x * bytes_per_s).min(peak))
                })
                .collect()
        };
        let mut entries = Vec::new();
        for (name, peak, colour) in roofs {
            ch.draw_series(LineSeries::new(
                line(r.peak_bytes_per_s, peak),
                colour.stroke_width(2),
            ))?;
            entries.push((format!("{name} roof"), colour, Swatch::Line));
        }
        // the DRAM point first, so that an L2 point at about its intensity (a stream) shows
        ch.draw_series(std::iter::once(Circle::new(
            (r.intensity, r.flops_per_s),
            6,
            BLUE.filled(),
        )))?;
        entries.push((format!("{} (DRAM)", k.display_name), BLUE, Swatch::Circle));
        if let Some(l) = l2 {
            ch.draw_series(DashedLineSeries::new(
                line(l.peak_bytes_per_s, highest),
                4,
                3,
                PURPLE.stroke_width(1),
            ))?;
            entries.push(("L2 slope".into(), PURPLE, Swatch::Dashed));
            ch.draw_series(std::iter::once(TriangleMarker::new(
                (l.intensity, r.flops_per_s),
                6,
                PURPLE.filled(),
            )))?;
            entries.push((format!("{} (L2)", k.display_name), PURPLE, Swatch::Triangle));
        }
        side_legend(&legend, &entries)
    })
}

/// How a legend entry is drawn.
enum Swatch {
    Line,
    Dashed,
    Circle,
    Triangle,
}

/// A legend in its own area beside a chart: one row per entry, a swatch and its text.
fn side_legend(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    entries: &[(String, RGBColor, Swatch)],
) -> DrawResult {
    for (i, (text, colour, swatch)) in entries.iter().enumerate() {
        let y = 40 + 18 * i as i32;
        match swatch {
            Swatch::Line => area.draw(&PathElement::new(
                vec![(4, y), (20, y)],
                colour.stroke_width(2),
            ))?,
            Swatch::Dashed => {
                area.draw(&PathElement::new(vec![(4, y), (9, y)], *colour))?;
                area.draw(&PathElement::new(vec![(14, y), (20, y)], *colour))?
            }
            Swatch::Circle => area.draw(&Circle::new((12, y), 4, colour.filled()))?,
            Swatch::Triangle => area.draw(&TriangleMarker::new((12, y), 5, colour.filled()))?,
        }
        area.draw(&Text::new(text.clone(), (26, y - 7), ("sans-serif", 12)))?;
    }
    Ok(())
}

/// An intensity tick: `0.01`, `0.5`, `20`, `1e4`, short enough for the axis.
fn intensity_label(v: f64) -> String {
    if v >= 1000.0 {
        format!("{v:.0e}")
    } else if v >= 1.0 {
        format!("{v:.0}")
    } else {
        format!("{}", (v * 1e4).round() / 1e4)
    }
}

/// Every DVFS clock pair as (time, energy); the Pareto front joined by a line.
pub fn pareto(k: &KernelReport) -> Option<String> {
    let (tlo, thi) = bounds(k.dvfs.iter().map(|p| p.time_s))?;
    let (elo, ehi) = bounds(k.dvfs.iter().map(|p| p.energy_j))?;
    let pad = |lo: f64, hi: f64| {
        let d = (hi - lo).max(hi * 0.05);
        ((lo - d * 0.1).max(0.0), hi + d * 0.1)
    };
    let (tlo, thi) = pad(tlo, thi);
    let (elo, ehi) = pad(elo, ehi);
    let mut front: Vec<(f64, f64)> = k
        .dvfs
        .iter()
        .filter(|p| p.pareto)
        .map(|p| (p.time_s * 1e6, p.energy_j * 1e6))
        .collect();
    front.sort_by(|a, b| a.0.total_cmp(&b.0));
    svg(|root| {
        let mut ch = ChartBuilder::on(&root)
            .caption("DVFS: energy vs time", ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(tlo * 1e6..thi * 1e6, elo * 1e6..ehi * 1e6)?;
        ch.configure_mesh()
            .x_desc("time (µs)")
            .y_desc("energy (µJ)")
            .draw()?;
        ch.draw_series(
            k.dvfs
                .iter()
                .filter(|p| !p.pareto)
                .map(|p| Circle::new((p.time_s * 1e6, p.energy_j * 1e6), 3, GREY.filled())),
        )?
        .label("clock pair")
        .legend(|(x, y)| Circle::new((x + 5, y), 3, GREY.filled()));
        ch.draw_series(LineSeries::new(front.clone(), ORANGE.stroke_width(2)))?;
        ch.draw_series(front.iter().map(|p| Circle::new(*p, 4, ORANGE.filled())))?
            .label("Pareto front")
            .legend(|(x, y)| Circle::new((x + 5, y), 4, ORANGE.filled()));
        if let Some(e) = k.prediction.energy_j {
            let d = (k.prediction.time_s * 1e6, e * 1e6);
            ch.draw_series(std::iter::once(Cross::new(d, 7, BLUE.stroke_width(2))))?
                .label("default clocks")
                .legend(|(x, y)| Cross::new((x + 5, y), 4, BLUE.stroke_width(2)));
        }
        ch.configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE)
            .draw()?;
        Ok(())
    })
}

/// Predicted time against the size parameter (log-log), from the symbolic counts.
pub fn scaling(k: &KernelReport) -> Option<String> {
    let s = k.scaling.as_ref()?;
    if s.points.len() < 2 {
        return None;
    }
    let (xlo, xhi) = bounds(s.points.iter().map(|p| p.value as f64))?;
    let (ylo, yhi) = bounds(s.points.iter().map(|p| p.time_s * 1e6))?;
    svg(|root| {
        let mut ch = ChartBuilder::on(&root)
            .caption(format!("predicted time vs {}", s.param), ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(
                (xlo / 1.5..xhi * 1.5).log_scale(),
                (ylo / 1.5..yhi * 1.5).log_scale(),
            )?;
        ch.configure_mesh()
            .x_desc(s.param.clone())
            .y_desc("time (µs)")
            .x_labels(4)
            .y_labels(5)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.3}"))
            .draw()?;
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|p| (p.value as f64, p.time_s * 1e6))
            .collect();
        ch.draw_series(LineSeries::new(pts.clone(), BLUE.stroke_width(2)))?;
        ch.draw_series(pts.iter().map(|p| Circle::new(*p, 3, BLUE.filled())))?;
        let cur = k.workload.params.get(&s.param).map(|v| *v as f64);
        if let Some(x) = cur {
            ch.draw_series(std::iter::once(Cross::new(
                (x, k.prediction.time_s * 1e6),
                7,
                ORANGE.stroke_width(2),
            )))?
            .label("this workload")
            .legend(|(x, y)| Cross::new((x + 5, y), 4, ORANGE.stroke_width(2)));
            ch.configure_series_labels()
                .border_style(BLACK)
                .background_style(WHITE)
                .draw()?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chart_renders_svg_for_the_sample() {
        let r = crate::report::sample::report();
        let k = &r.kernels[0];
        for (name, c) in [
            ("breakdown", breakdown(k)),
            ("roofline", roofline(k)),
            ("pareto", pareto(k)),
            ("scaling", scaling(k)),
        ] {
            let c = c.unwrap_or_else(|| panic!("{name} missing"));
            assert!(c.starts_with("<svg"), "{name}: {}", &c[..40.min(c.len())]);
            assert!(c.contains("</svg>"));
        }
        // the sample's f64 ceiling is drawn beside the f32 roof
        let roof = roofline(k).unwrap();
        assert!(
            roof.contains("fp32 roof") && roof.contains("fp64 roof"),
            "{roof}"
        );
        // and the sample's L2 level beside its DRAM point
        assert!(roof.contains("L2 slope") && roof.contains("(L2)") && roof.contains("(DRAM)"));
        let mut empty = k.clone();
        empty.dvfs.clear();
        empty.roofline = None;
        assert!(pareto(&empty).is_none());
        assert!(roofline(&empty).is_none());
    }

    #[test]
    fn intensity_ticks_stay_short() {
        let ticks: Vec<String> = [0.001, 0.25, 1.0, 20.0, 500.0, 10000.0]
            .map(intensity_label)
            .to_vec();
        assert_eq!(ticks, ["0.001", "0.25", "1", "20", "500", "1e4"]);
    }
}
