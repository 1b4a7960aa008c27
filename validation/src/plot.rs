//! One SVG per application: energy against time (both as scaling factors vs the default clocks)
//! over the 32 clock pairs, measured and predicted, one line per memory clock, with the predicted
//! and the true minimum-energy settings marked; the shape of the paper's Fig. 7. Plus an index.md.

use crate::data::{Benchmark, Dataset};
use crate::error::{Error, Result};
use crate::metrics::{argmin_energy, Curve};
use plotters::prelude::*;
use std::fmt::Write;
use std::path::{Path, PathBuf};

fn perr(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Plot {
        path: path.to_path_buf(),
        msg: e.to_string(),
    }
}

/// Writes `<out>/<app>.svg` for one application and returns its path.
pub fn plot_app(
    ds: &Dataset,
    b: &Benchmark,
    model: &str,
    pred: &Curve,
    out: &Path,
) -> Result<PathBuf> {
    let path = out.join(format!("{}.svg", b.name));
    let meas = ds.scaling(b);
    let pts = |c: &Curve| -> Vec<(f64, f64)> { c.iter().map(|v| (v[0], v[2])).collect() };
    let (m, p) = (pts(&meas), pts(pred));
    let all: Vec<&(f64, f64)> = m
        .iter()
        .chain(&p)
        .filter(|v| v.0.is_finite() && v.1.is_finite())
        .collect();
    let lo = |f: fn(&(f64, f64)) -> f64| all.iter().map(|v| f(v)).fold(f64::INFINITY, f64::min);
    let hi = |f: fn(&(f64, f64)) -> f64| all.iter().map(|v| f(v)).fold(f64::NEG_INFINITY, f64::max);
    let (x0, x1) = (lo(|v| v.0) * 0.95, hi(|v| v.0) * 1.05);
    let (y0, y1) = (lo(|v| v.1) * 0.95, hi(|v| v.1) * 1.05);
    let svg_path = path.clone();
    let root = SVGBackend::new(&svg_path, (640, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| perr(&path, e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{}: energy vs time over the clock grid", b.name),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| perr(&path, e))?;
    chart
        .configure_mesh()
        .x_desc(format!(
            "time / time at {}/{}",
            ds.grid[ds.reference].mem_mhz, ds.grid[ds.reference].core_mhz
        ))
        .y_desc("energy / energy at default")
        .draw()
        .map_err(|e| perr(&path, e))?;
    let mut mems: Vec<u32> = ds.grid.iter().map(|c| c.mem_mhz).collect();
    mems.sort_unstable();
    mems.dedup();
    for (mi, mem) in mems.iter().enumerate() {
        let idx: Vec<usize> = (0..ds.grid.len())
            .filter(|&i| ds.grid[i].mem_mhz == *mem)
            .collect();
        let color = if mi == 0 {
            RGBColor(31, 119, 180)
        } else {
            RGBColor(214, 39, 40)
        };
        let ms: Vec<(f64, f64)> = idx.iter().map(|&i| m[i]).collect();
        let ps: Vec<(f64, f64)> = idx
            .iter()
            .map(|&i| p[i])
            .filter(|v| v.0.is_finite() && v.1.is_finite())
            .collect();
        chart
            .draw_series(LineSeries::new(ms.clone(), color.stroke_width(2)))
            .map_err(|e| perr(&path, e))?
            .label(format!("measured, mem {mem} MHz"))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(ms.iter().map(|v| Circle::new(*v, 3, color.filled())))
            .map_err(|e| perr(&path, e))?;
        let light = color.mix(0.6);
        chart
            .draw_series(LineSeries::new(ps.clone(), light.stroke_width(1)))
            .map_err(|e| perr(&path, e))?
            .label(format!("predicted, mem {mem} MHz"))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], light.stroke_width(1))
            });
        chart
            .draw_series(ps.iter().map(|v| Cross::new(*v, 4, light.stroke_width(1))))
            .map_err(|e| perr(&path, e))?;
    }
    let (po, pp) = (argmin_energy(&meas), argmin_energy(pred));
    chart
        .draw_series([Circle::new(m[po], 8, BLACK.stroke_width(2))])
        .map_err(|e| perr(&path, e))?
        .label("true min-energy clocks")
        .legend(|(x, y)| Circle::new((x + 10, y), 5, BLACK.stroke_width(2)));
    chart
        .draw_series([TriangleMarker::new(
            m[pp],
            8,
            RGBColor(44, 160, 44).filled(),
        )])
        .map_err(|e| perr(&path, e))?
        .label("predicted min-energy clocks (measured there)")
        .legend(|(x, y)| TriangleMarker::new((x + 10, y), 5, RGBColor(44, 160, 44).filled()));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 11))
        .draw()
        .map_err(|e| perr(&path, e))?;
    root.present().map_err(|e| perr(&path, e))?;
    drop(chart);
    let _ = model;
    Ok(path)
}

/// Plots every application and writes `<out>/index.md` listing them.
pub fn plot_all(
    ds: &Dataset,
    model: &str,
    preds: &[(String, Curve)],
    table: &str,
    out: &Path,
) -> Result<PathBuf> {
    std::fs::create_dir_all(out).map_err(crate::error::io(out))?;
    let mut idx = String::new();
    let gpu = crate::report::published(&ds.gpu).map_or(ds.gpu.as_str(), |p| p.name);
    let _ = writeln!(idx, "# kerncast validation: {gpu} (gpuPTXModel data)\n");
    let _ = writeln!(idx, "Plots: model `{model}`.\n\n```text\n{table}```\n");
    for b in &ds.real {
        if let Some((_, c)) = preds.iter().find(|p| p.0 == b.name) {
            let p = plot_app(ds, b, model, c, out)?;
            let f = p
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            let _ = writeln!(idx, "## {}\n\n![{}]({})\n", b.name, b.name, f);
        }
    }
    let path = out.join("index.md");
    std::fs::write(&path, idx).map_err(crate::error::io(&path))?;
    Ok(path)
}
