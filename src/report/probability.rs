//! The plot of a statistical estimate (`simulate --estimate --report`): for a `finally ψ`
//! property, the estimated probability that a run reaches ψ within `k` steps, for every step
//! bound `k` up to `--steps`, as a step curve in SVG, with the interval of the estimate around
//! it when the method gives one (the exact interval of the runs at each `k`: it holds for each
//! point on its own, not for all at once).

use super::html::esc;
use std::fmt::Write;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 300.0;
const LEFT: f64 = 58.0;
const RIGHT: f64 = 18.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 46.0;

/// `p[k]`: the fraction of `runs` whose first state satisfying ψ came within `k` steps, for
/// `k` in `0..=steps` (`reached[k]` runs first met ψ after exactly `k` steps).
pub(crate) fn cumulative(reached: &[u64], runs: u64, steps: usize) -> Vec<f64> {
    let mut met = 0u64;
    (0..=steps)
        .map(|k| {
            met += reached.get(k).copied().unwrap_or(0);
            if runs == 0 { 0.0 } else { met as f64 / runs as f64 }
        })
        .collect()
}

/// The exact (Clopper–Pearson) interval of each point of `cumulative(reached, runs, steps)`,
/// at `confidence`.
pub(crate) fn band(reached: &[u64], runs: u64, steps: usize, confidence: f64) -> Vec<(f64, f64)> {
    let mut met = 0u64;
    let mut last: Option<(u64, (f64, f64))> = None;
    (0..=steps)
        .map(|k| {
            met += reached.get(k).copied().unwrap_or(0);
            match last {
                Some((m, i)) if m == met => i,
                _ => {
                    let i = crate::engine::estimate::clopper_pearson(met, runs, confidence).unwrap_or((0.0, 1.0));
                    last = Some((met, i));
                    i
                }
            }
        })
        .collect()
}

/// A round step between axis ticks so that about `want` ticks cover `0..=max`.
fn tick_step(max: usize, want: usize) -> usize {
    let raw = (max as f64 / want as f64).max(1.0);
    let mag = 10f64.powi(raw.log10().floor() as i32);
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    step as usize
}

/// The SVG plot of `p` (from `cumulative`), with its band (from `band`) when there is one.
pub(crate) fn plot(p: &[f64], band: Option<&[(f64, f64)]>, title: &str) -> String {
    plot_curves(p.len(), band, &[(p, "estimate", "")], title)
}

/// The SVG plot of step curves over `0..points` (each `(values, class, legend)`, drawn in
/// order, with a legend entry when `legend` is not empty), over the band of the first one.
fn plot_curves(points: usize, band: Option<&[(f64, f64)]>, curves: &[(&[f64], &str, &str)], title: &str) -> String {
    let steps = points.saturating_sub(1).max(1);
    let (w, h) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    let x = |k: usize| LEFT + w * k as f64 / steps as f64;
    let y = |v: f64| TOP + h * (1.0 - v.clamp(0.0, 1.0));
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"probability\" role=\"img\" aria-label=\"{}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         viewBox=\"0 0 {WIDTH} {HEIGHT}\" xmlns=\"http://www.w3.org/2000/svg\">",
        esc(title)
    );
    // Grid and the probability axis.
    for i in 0..=4 {
        let v = i as f64 / 4.0;
        let _ = write!(
            s,
            "<line class=\"grid\" x1=\"{LEFT}\" y1=\"{yv:.1}\" x2=\"{x2:.1}\" y2=\"{yv:.1}\"/>\
             <text class=\"tick\" x=\"{tx:.1}\" y=\"{ty:.1}\" text-anchor=\"end\">{v:.2}</text>",
            yv = y(v),
            x2 = LEFT + w,
            tx = LEFT - 6.0,
            ty = y(v) + 4.0
        );
    }
    let step = tick_step(steps, 8);
    for k in (0..=steps).step_by(step) {
        let _ = write!(
            s,
            "<line class=\"axis\" x1=\"{xk:.1}\" y1=\"{y0:.1}\" x2=\"{xk:.1}\" y2=\"{y1:.1}\"/>\
             <text class=\"tick\" x=\"{xk:.1}\" y=\"{ty:.1}\" text-anchor=\"middle\">{k}</text>",
            xk = x(k),
            y0 = TOP + h,
            y1 = TOP + h + 5.0,
            ty = TOP + h + 19.0
        );
    }
    let _ = write!(
        s,
        "<line class=\"axis\" x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{yb:.1}\"/>\
         <line class=\"axis\" x1=\"{LEFT}\" y1=\"{yb:.1}\" x2=\"{xr:.1}\" y2=\"{yb:.1}\"/>\
         <text class=\"axis-label\" x=\"{xm:.1}\" y=\"{yl:.1}\" text-anchor=\"middle\">step bound k</text>",
        yb = TOP + h,
        xr = LEFT + w,
        xm = LEFT + w / 2.0,
        yl = HEIGHT - 6.0
    );
    // A value holds from step k until step k + 1: a step curve.
    let stairs = |v: &dyn Fn(usize) -> f64| -> Vec<(f64, f64)> {
        let mut pts = Vec::with_capacity(2 * points);
        for k in 0..points {
            pts.push((x(k), y(v(k))));
            pts.push((x((k + 1).min(steps)), y(v(k))));
        }
        pts
    };
    let path = |pts: &[(f64, f64)]| pts.iter().map(|(a, b)| format!("{a:.1},{b:.1}")).collect::<Vec<_>>().join(" ");
    if let Some(b) = band {
        let mut outline = stairs(&|k| b[k].1);
        let mut low = stairs(&|k| b[k].0);
        low.reverse();
        outline.extend(low);
        let _ = write!(s, "<polygon class=\"band\" points=\"{}\"/>", path(&outline));
    }
    for (p, class, _) in curves {
        let _ = write!(s, "<polyline class=\"{class}\" points=\"{}\"/>", path(&stairs(&|k| p[k])));
    }
    // The legend, at the bottom right, where curves that rise from 0 leave room.
    let legend: Vec<_> = curves.iter().filter(|c| !c.2.is_empty()).collect();
    for (i, (_, class, text)) in legend.iter().enumerate() {
        let ly = TOP + h - 12.0 - 18.0 * (legend.len() - 1 - i) as f64;
        let lx = LEFT + w - 340.0;
        let _ = write!(
            s,
            "<line class=\"{class}\" x1=\"{lx:.1}\" y1=\"{ly:.1}\" x2=\"{:.1}\" y2=\"{ly:.1}\"/>\
             <text class=\"key-text\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            lx + 22.0,
            lx + 28.0,
            ly + 4.0,
            esc(text)
        );
    }
    s.push_str("</svg>");
    s
}

/// The values of the curve where they change, as a table (what the plot shows, readable and
/// searchable): `k` and the estimate, with its interval when there is one.
pub(crate) fn table(p: &[f64], band: Option<&[(f64, f64)]>) -> String {
    let mut s = String::from("<table class=\"curve\"><thead><tr><th>k</th><th>estimate</th>");
    if band.is_some() {
        s.push_str("<th>interval</th>");
    }
    s.push_str("</tr></thead><tbody>");
    let mut last = None;
    for (k, v) in p.iter().enumerate() {
        if last == Some(*v) && k + 1 != p.len() {
            continue;
        }
        last = Some(*v);
        let _ = write!(s, "<tr><td>{k}</td><td>{v:.4}</td>");
        if let Some(b) = band {
            let _ = write!(s, "<td>[{:.4}, {:.4}]</td>", b[k].0, b[k].1);
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table>");
    s
}

/// `verify --probability --report`: a table of every property's probability and expected
/// steps, then for each `finally` property (and `fairly`, read as `finally`) the exact
/// probability of reaching ψ within `k` steps against `k`, with the simulation estimate of
/// the same curve beside it where `sim` has the property (its runs' fraction at each `k` and
/// the exact interval of that fraction at its confidence).
pub(crate) fn exact_sections(r: &crate::engine::probability::ProbabilityReport, sim: Option<&Simulated>) -> String {
    use crate::engine::probability::{Interval, Steps};
    let iv = |i: &Interval| format!("{:.6} [{:.6}, {:.6}]", (i.lower + i.upper) / 2.0 + 0.0, i.lower + 0.0, i.upper);
    let steps = |s: &Option<Steps>| match s {
        None => "—".to_string(),
        Some(Steps::Infinite) => "infinite".to_string(),
        Some(Steps::Within(i)) if i.upper.is_infinite() => format!("at least {:.3}", i.lower),
        Some(Steps::Within(i)) => iv(i),
    };
    let mut s = String::from(
        "<section><h2>Probabilities</h2><p class=\"note-text\">The probability that a random run (drawn as \
         <code>labs simulate</code> draws it) satisfies each property, as an interval that contains the exact \
         value; for finally ψ, the expected steps to ψ.</p><table class=\"verdicts\"><thead><tr><th>property</th>\
         <th>probability</th><th>expected steps</th><th>among the runs that reach ψ</th></tr></thead><tbody>",
    );
    for p in &r.properties {
        let prob = match (&p.probability, &p.why_not) {
            (Some(i), _) => {
                let mut t = iv(i);
                if let Some(reading) = p.reading {
                    t += &format!(" (of {reading} ψ)");
                }
                if !p.converged {
                    t += " (stopped before the precision was reached)";
                }
                t
            }
            (None, Some(why)) => format!("not computed: {why}"),
            (None, None) => "—".to_string(),
        };
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&p.property),
            esc(&prob),
            esc(&steps(&p.expected_steps)),
            esc(&steps(&p.expected_steps_if_reached))
        );
    }
    s.push_str("</tbody></table></section>");
    for p in r.properties.iter().filter(|p| !p.within.is_empty()) {
        let title = format!("Exact probability of reaching {} within k steps", p.property);
        let steps = p.within.len() - 1;
        let simulated = sim.and_then(|sm| {
            let q = sm.report.properties.iter().find(|q| q.property == p.property && q.estimated && q.runs > 0)?;
            Some((sm, q))
        });
        let mut notes = format!(
            "<li>Computed on the explored chain, up to the step where it comes within 10^-4 of the probability of \
             ever reaching ψ (at most {} steps).</li>",
            crate::engine::probability::CURVE_STEPS
        );
        let (svg, values) = match simulated {
            Some((sm, q)) => {
                let curve = cumulative(&q.reached, q.runs, steps);
                let confidence = sm.confidence;
                let band = band(&q.reached, q.runs, steps, confidence);
                let _ = write!(
                    notes,
                    "<li>Beside it, the estimate of {} simulation runs of {steps} steps (<code>labs simulate --estimate \
                     --steps {steps} --max-runs {} --seed {}</code> draws the same runs): their fraction that reached ψ \
                     within k steps, and its exact interval at confidence {confidence} at each k on its own (not at \
                     every k at once).</li>",
                    q.runs, q.runs, sm.seed
                );
                let svg = plot_curves(
                    p.within.len(),
                    Some(&band),
                    &[
                        (
                            &curve,
                            "estimate",
                            &format!("simulation estimate ({} runs), its {}% interval", q.runs, confidence * 100.0),
                        ),
                        (&p.within, "exact", "exact probability"),
                    ],
                    &title,
                );
                (svg, compared_table(&p.within, &curve, &band))
            }
            None => {
                if sim.is_some() {
                    notes.push_str(
                        "<li>No simulation estimate: simulation estimates finally properties, not fairly ones.</li>",
                    );
                }
                (
                    plot_curves(p.within.len(), None, &[(&p.within, "exact alone", "")], &title),
                    table(&p.within, None).replacen("<th>estimate</th>", "<th>probability</th>", 1),
                )
            }
        };
        let _ = write!(
            s,
            "<section class=\"estimate\"><h2>{}</h2><ul class=\"notes\">{notes}</ul><div class=\"plot\">{svg}</div>\
             <details><summary>Values</summary>{values}</details></section>",
            esc(&title),
        );
    }
    s
}

/// The simulation estimate drawn beside the exact curves: the estimator's report, the seed
/// its runs were drawn from, and the confidence of the intervals drawn.
pub struct Simulated<'a> {
    pub report: &'a crate::engine::estimate::EstimateReport,
    pub seed: u64,
    pub confidence: f64,
}

/// The exact curve beside the estimate, where either changes: `k`, the exact probability, the
/// estimate and its interval.
fn compared_table(exact: &[f64], estimate: &[f64], band: &[(f64, f64)]) -> String {
    let mut s = String::from(
        "<table class=\"curve\"><thead><tr><th>k</th><th>probability</th><th>estimate</th><th>interval</th></tr>\
         </thead><tbody>",
    );
    let mut last = None;
    for (k, (e, v)) in exact.iter().zip(estimate).enumerate() {
        if last == Some((*e, *v)) && k + 1 != exact.len() {
            continue;
        }
        last = Some((*e, *v));
        let _ = write!(
            s,
            "<tr><td>{k}</td><td>{e:.4}</td><td>{v:.4}</td><td>[{:.4}, {:.4}]</td></tr>",
            band[k].0, band[k].1
        );
    }
    s.push_str("</tbody></table>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_adds_up_first_meetings_and_ends_at_the_estimate() {
        // 10 runs: 2 meet ψ at once, 3 after 2 steps, 1 after 4 steps; 4 never do.
        let p = cumulative(&[2, 0, 3, 0, 1], 10, 6);
        assert_eq!(p, vec![0.2, 0.2, 0.5, 0.5, 0.6, 0.6, 0.6]);
        assert_eq!(cumulative(&[], 0, 2), vec![0.0, 0.0, 0.0]);
    }

    #[test]
    fn ticks_are_round_numbers() {
        assert_eq!(tick_step(200, 8), 50);
        assert_eq!(tick_step(10, 8), 2);
        assert_eq!(tick_step(3, 8), 1);
        assert_eq!(tick_step(1000, 8), 200);
    }

    #[test]
    fn the_band_is_the_exact_interval_at_each_step_bound_and_stays_within_zero_and_one() {
        // 50 runs: none meets ψ at once, 49 after one step, the last after two.
        let (reached, runs) = ([0, 49, 1], 50);
        let p = cumulative(&reached, runs, 2);
        let b = band(&reached, runs, 2, 0.95);
        // 0 and 50 of 50: the closed forms 1 - 0.025^(1/50) and 0.025^(1/50).
        let edge = 0.025f64.powf(1.0 / 50.0);
        assert!(b[0].0 == 0.0 && (b[0].1 - (1.0 - edge)).abs() < 1e-9, "{:?}", b[0]);
        assert!(b[2].1 == 1.0 && (b[2].0 - edge).abs() < 1e-9, "{:?}", b[2]);
        assert!(b[1].0 < 0.98 && 0.98 < b[1].1);
        let svg = plot(&p, Some(&b), "P");
        let outline = svg.split("class=\"band\" points=\"").nth(1).unwrap().split('"').next().unwrap();
        for pt in outline.split(' ') {
            let y: f64 = pt.split(',').nth(1).unwrap().parse().unwrap();
            assert!((TOP..=HEIGHT - BOTTOM).contains(&y), "{pt} outside the plot area");
        }
        let rows = table(&p, Some(&b));
        assert!(rows.contains(&format!("<td>[{edge:.4}, 1.0000]</td>")), "{rows}");
        assert!(rows.contains(&format!("<td>[0.0000, {:.4}]</td>", 1.0 - edge)), "{rows}");
    }
}
