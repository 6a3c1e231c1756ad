//! Time-to-solution CDFs as an SVG plot.

use std::path::Path;

use super::{wilson, Report};
use crate::error::{Error, Result};

/// Fraction of puzzle-runs solved within t, against t on a log axis: one
/// line per file and backend.
pub fn plot_svg(reports: &[Report], path: &Path) -> Result<()> {
    use plotters::prelude::*;
    let draw = |err: &dyn std::fmt::Display| {
        Error::Io(std::io::Error::other(format!("cannot draw {}: {err}", path.display())))
    };
    let series: Vec<(String, Vec<f64>, usize)> = reports
        .iter()
        .map(|r| {
            let mut times: Vec<f64> = r
                .runs
                .iter()
                .flat_map(|run| &run.outcomes)
                .filter(|o| o.is_solved())
                .map(|o| o.seconds.max(1e-6))
                .collect();
            times.sort_by(f64::total_cmp);
            let stats = r.stats();
            let total = stats.puzzles * stats.runs;
            let name = Path::new(&r.file).file_name().map_or(r.file.clone(), |n| n.to_string_lossy().into_owned());
            (format!("{name} / {} ({})", r.backend, r.device), times, total)
        })
        .collect();
    let lowest = series.iter().filter_map(|(_, t, _)| t.first()).copied().fold(f64::INFINITY, f64::min);
    let highest = series.iter().filter_map(|(_, t, _)| t.last()).copied().fold(0.0, f64::max);
    let (lowest, highest) = if lowest.is_finite() { (lowest / 2.0, highest * 2.0) } else { (1e-4, 1.0) };
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| draw(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption("time to solution", ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d((lowest..highest).log_scale(), 0.0..1.0)
        .map_err(|e| draw(&e))?;
    chart
        .configure_mesh()
        .x_desc("seconds per puzzle (log scale)")
        .y_desc("fraction solved (band: 95 % Wilson interval)")
        .draw()
        .map_err(|e| draw(&e))?;
    for (index, (name, times, total)) in series.iter().enumerate() {
        let colour = Palette99::pick(index).to_rgba();
        // Each point's 95 % Wilson interval, as a band: the upper ends, then the lower ones back.
        let bounds: Vec<(f64, (f64, f64))> =
            times.iter().enumerate().map(|(i, &t)| (t, wilson(i + 1, *total))).collect();
        let band: Vec<(f64, f64)> = bounds
            .iter()
            .map(|&(t, (_, high))| (t, high))
            .chain(bounds.iter().rev().map(|&(t, (low, _))| (t, low)))
            .collect();
        if band.len() > 2 {
            chart.draw_series(std::iter::once(Polygon::new(band, colour.mix(0.15).filled()))).map_err(|e| draw(&e))?;
        }
        let points = times.iter().enumerate().map(|(i, &t)| (t, (i + 1) as f64 / *total as f64));
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(|e| draw(&e))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| draw(&e))?;
    root.present().map_err(|e| draw(&e))?;
    Ok(())
}
