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

/// Each component's time as a share of the kernel's predicted time, one bar each with its
/// percentage written above it. Against the prediction, not against the components' sum: in a
/// model whose components overlap (time = the slowest of them) the bottleneck stands at 100 %;
/// in one that adds them (the linear model) the bars add up to 100 %. Energy is split among
/// components in proportion to time, so its shares are the same.
pub fn breakdown(k: &KernelReport) -> Option<String> {
    let total = k.prediction.time_s;
    if k.breakdown.is_empty() || total.is_nan() || total <= 0.0 {
        return None;
    }
    let n = k.breakdown.len();
    let pct: Vec<f64> = k
        .breakdown
        .iter()
        .map(|c| 100.0 * c.time_s / total)
        .collect();
    let top = pct.iter().cloned().fold(100.0, f64::max) * 1.15;
    svg(|root| {
        let mut ch = ChartBuilder::on(&root)
            .caption("time by component, % of predicted time", ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(45)
            .build_cartesian_2d(0f64..n as f64, 0f64..top)?;
        ch.configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc("% of predicted time")
            .draw()?;
        // the predicted time itself
        ch.draw_series(DashedLineSeries::new(
            vec![(0.0, 100.0), (n as f64, 100.0)],
            4,
            3,
            GREY.stroke_width(1),
        ))?;
        ch.draw_series(pct.iter().enumerate().map(|(i, &p)| {
            let x = i as f64;
            Rectangle::new([(x + 0.15, 0.0), (x + 0.85, p)], BLUE.filled())
        }))?;
        // "name 80.0 %" above each bar: the numbers the bars are drawn from
        ch.draw_series(k.breakdown.iter().zip(&pct).enumerate().map(|(i, (c, p))| {
            Text::new(
                format!("{} {p:.1} %", c.name),
                (i as f64 + 0.15, (p + top * 0.03).min(top * 0.95)),
                ("sans-serif", 13),
            )
        }))?;
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

/// Every kernel of one device as a point (its DRAM intensity, its flop rate) under the device's
/// roofline: the DRAM slope, the f32 roof and the other compute ceilings the kernels name.
/// Points are numbered in the order of `kernels`; the legend names them. `None` when no
/// kernel has a roofline.
pub fn device_roofline(device: &str, kernels: &[&KernelReport]) -> Option<String> {
    let pts: Vec<(usize, &KernelReport, &super::Roofline)> = kernels
        .iter()
        .enumerate()
        .filter_map(|(i, k)| Some((i + 1, *k, k.roofline.as_ref()?)))
        .filter(|(_, _, r)| {
            r.peak_flops_per_s > 0.0
                && r.peak_bytes_per_s > 0.0
                && r.intensity > 0.0
                && r.flops_per_s > 0.0
        })
        .collect();
    let (_, _, first) = pts.first()?;
    let bw = first.peak_bytes_per_s;
    let mut roofs: Vec<(String, f64)> = vec![("fp32".into(), first.peak_flops_per_s)];
    for (_, _, r) in &pts {
        for c in &r.ceilings {
            if c.flops_per_s > 0.0 && !roofs.iter().any(|(n, _)| *n == c.name) {
                roofs.push((c.name.clone(), c.flops_per_s));
            }
        }
    }
    let lowest = roofs.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
    let highest = roofs.iter().map(|r| r.1).fold(0.0, f64::max);
    let (ilo, ihi) = bounds(pts.iter().map(|p| p.2.intensity))?;
    let (flo, _) = bounds(pts.iter().map(|p| p.2.flops_per_s))?;
    let xlo = (ilo.min(lowest / bw) / 10.0).max(1e-4);
    let xhi = ihi.max(highest / bw) * 10.0;
    let ylo = (flo.min(xlo * bw) / 2.0).max(1.0);
    let yhi = highest * 2.0;
    let colours = [GREY, ORANGE, GREEN_DARK, PURPLE];
    let height = H.max(50 + 18 * (roofs.len() + pts.len()) as u32);
    svg_sized((W + LEGEND_W, height), |root| {
        let (plot, legend) = root.split_horizontally(W);
        let mut ch = ChartBuilder::on(&plot)
            .caption(format!("roofline: {device}"), ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d((xlo..xhi).log_scale(), (ylo..yhi).log_scale())?;
        ch.configure_mesh()
            .x_desc("flop / byte (DRAM)")
            .y_desc("flop/s")
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .x_label_formatter(&|v| intensity_label(*v))
            .draw()?;
        let mut entries = Vec::new();
        for (i, (name, peak)) in roofs.iter().enumerate() {
            let colour = colours[i % colours.len()];
            let line: Vec<(f64, f64)> = (0..=60)
                .map(|j| {
                    let x = xlo * (xhi / xlo).powf(j as f64 / 60.0);
                    (x, (x * bw).min(*peak))
                })
                .collect();
            ch.draw_series(LineSeries::new(line, colour.stroke_width(2)))?;
            entries.push((format!("{name} roof"), colour, Swatch::Line));
        }
        for (n, k, r) in &pts {
            ch.draw_series(std::iter::once(Circle::new(
                (r.intensity, r.flops_per_s),
                5,
                BLUE.filled(),
            )))?;
            ch.draw_series(std::iter::once(Text::new(
                n.to_string(),
                (r.intensity, r.flops_per_s),
                ("sans-serif", 12),
            )))?;
            entries.push((
                format!("{n}: {} ({})", k.display_name, k.workload.name),
                BLUE,
                Swatch::Circle,
            ));
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

    /// The percentages the breakdown writes, read back from the SVG.
    fn shares(svg: &str) -> Vec<f64> {
        svg.split("<text")
            .filter_map(|t| {
                let body = t.split('>').nth(1)?.split('<').next()?.trim();
                let v = body.strip_suffix(" %")?.rsplit(' ').next()?;
                v.parse().ok()
            })
            .collect()
    }

    /// Against the predicted time: components that add up (the sample's 2 + 0.5 of 2.5 µs)
    /// give 80 % and 20 %, summing to 100; in an overlapping model the bottleneck is at 100 %.
    #[test]
    fn breakdown_shares_are_of_the_predicted_time() {
        let r = crate::report::sample::report();
        let k = &r.kernels[0];
        let v = shares(&breakdown(k).unwrap());
        assert_eq!(v, [80.0, 20.0]);
        assert!((v.iter().sum::<f64>() - 100.0).abs() < 0.2);
        let mut overlap = k.clone();
        overlap.prediction.time_s = 2.0e-6;
        let v = shares(&breakdown(&overlap).unwrap());
        assert_eq!(v, [100.0, 25.0], "the bottleneck, dram, is the whole time");
    }

    /// One point per kernel, numbered and named in the legend, under the device's roofs.
    #[test]
    fn the_device_roofline_has_a_point_per_kernel() {
        let r = crate::report::sample::report();
        let mut b = r.kernels[0].clone();
        b.display_name = "other".into();
        if let Some(rf) = b.roofline.as_mut() {
            rf.intensity *= 8.0;
            rf.flops_per_s *= 4.0;
        }
        let svg = device_roofline("gtx-titan-x", &[&r.kernels[0], &b]).unwrap();
        assert!(svg.contains("roofline: gtx-titan-x"), "{svg}");
        assert!(
            svg.contains("1: saxpy") && svg.contains("2: other"),
            "{svg}"
        );
        assert!(
            svg.contains("fp32 roof") && svg.contains("fp64 roof"),
            "{svg}"
        );
        // a point and a legend swatch per kernel
        assert_eq!(svg.matches("<circle").count(), 4, "{svg}");
        let mut none = r.kernels[0].clone();
        none.roofline = None;
        assert!(device_roofline("d", &[&none]).is_none());
    }

    #[test]
    fn intensity_ticks_stay_short() {
        let ticks: Vec<String> = [0.001, 0.25, 1.0, 20.0, 500.0, 10000.0]
            .map(intensity_label)
            .to_vec();
        assert_eq!(ticks, ["0.001", "0.25", "1", "20", "500", "1e4"]);
    }
}
