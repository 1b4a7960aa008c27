//! Size sweeps: a launch in a host loop that hands it the loop's counter is a different launch
//! on every trip, as benchmarks write them:
//!
//! ```text
//! for (int n = 1 << 16; n <= 1 << 22; n *= 4) scale<<<(n + 255) / 256, 256>>>(x, n);
//! for (int cols : {512, 1024, 4096}) softmax<<<rows, 256, smem>>>(in, out, cols);
//! ```
//!
//! Where the counter's values are all known and there are at most
//! [`host_loops::MAX_SWEPT`] of them (over every swept loop together), the launch is predicted
//! at each: [`plan`] gives one set of values per workload. A loop that follows the counter of
//! a loop around it (`for (j = k >> 1; j > 0; j >>= 1)` inside a `k` loop) is swept with it,
//! one workload per pair of values the nest runs, up to [`MAX_SWEPT_NEST`]. A loop with more
//! trips, or values kerncast cannot read, is not swept, and says why for the error that asks
//! for its counter.

use super::host_defs::HostDefs;
use super::host_loops::{MAX_SWEPT, MAX_SWEPT_NEST};
use crate::workload::{Follows, HostLoop, LaunchCount};
use std::collections::BTreeMap;

/// One value of a loop's counter that a launch is predicted at.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Swept {
    pub counter: String,
    pub value: i64,
    /// 0-based: the trip that gives it.
    pub index: usize,
    /// The counter's values in all.
    pub of: usize,
    pub head: String,
    pub line: usize,
}

impl Swept {
    /// `n = 65536 (1 of 3 values of `for (…)`, line 4)`.
    fn shown(&self) -> String {
        format!(
            "{} = {} ({} of {} values of `{}`, line {})",
            self.counter,
            self.value,
            self.index + 1,
            self.of,
            self.head,
            self.line
        )
    }
}

/// The workloads a launch is predicted at, one set of counter values each; and, for each
/// counter that cannot be swept, why.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Plan {
    pub variants: Vec<Vec<Swept>>,
    pub unswept: BTreeMap<String, String>,
}

/// The plan for the loops (innermost first) whose counters the launch reads and the host code
/// gives no other value. Without a loop to sweep, one variant with no values.
pub(super) fn plan(loops: &[HostLoop]) -> Plan {
    let mut plan = Plan {
        variants: vec![Vec::new()],
        unswept: BTreeMap::new(),
    };
    let mut swept: Vec<&HostLoop> = Vec::new();
    for l in loops {
        let Some(c) = &l.counter else { continue };
        if swept.iter().any(|s| s.line == l.line) || plan.unswept.contains_key(c) {
            continue;
        }
        if l.values.is_empty() {
            plan.unswept.insert(c.clone(), why_not_swept(c, l));
        } else {
            swept.push(l);
        }
    }
    // a swept loop that follows a swept enclosing loop's counter goes with it, value by value
    let followed = |l: &HostLoop| {
        swept.iter().any(|f| {
            f.follows
                .as_ref()
                .is_some_and(|fo| fo.line == l.line && Some(&fo.counter) == l.counter.as_ref())
        })
    };
    let units: Vec<Vec<Vec<Swept>>> = swept
        .iter()
        .filter(|l| !followed(l))
        .map(|l| {
            let outer = l.follows.as_ref().and_then(|f| {
                let o = swept.iter().find(|o| o.line == f.line)?;
                Some((f, *o))
            });
            match outer {
                Some((f, o)) => nest_values(l, f, o),
                None => single_values(l),
            }
        })
        .collect();
    let combinations: usize = units.iter().map(Vec::len).product();
    let limit = if swept.iter().any(|l| l.follows.is_some()) {
        MAX_SWEPT_NEST
    } else {
        MAX_SWEPT
    };
    if combinations as u64 > limit {
        for l in swept {
            let c = l.counter.clone().unwrap_or_default();
            plan.unswept.insert(
                c.clone(),
                format!(
                    "`{c}` is the counter of `{}` (line {}), and the loops around the launch \
                     give {combinations} combinations of values, more than the {limit} \
                     kerncast predicts one by one",
                    l.head, l.line
                ),
            );
        }
        return plan;
    }
    for unit in units {
        plan.variants = plan
            .variants
            .iter()
            .flat_map(|v| {
                unit.iter().map(move |values| {
                    let mut v = v.clone();
                    v.extend(values.iter().cloned());
                    v
                })
            })
            .collect();
    }
    plan
}

/// The values of a loop's counter, one list per trip.
fn single_values(l: &HostLoop) -> Vec<Vec<Swept>> {
    let c = l.counter.clone().unwrap_or_default();
    l.values
        .iter()
        .enumerate()
        .map(|(index, value)| {
            vec![Swept {
                counter: c.clone(),
                value: *value,
                index,
                of: l.values.len(),
                head: l.head.clone(),
                line: l.line,
            }]
        })
        .collect()
}

/// The values of the counters of a loop `l` that follows the enclosing loop `o` (`f`), one
/// list per trip of the nest: `o`'s value with each of `l`'s at it.
fn nest_values(l: &HostLoop, f: &Follows, o: &HostLoop) -> Vec<Vec<Swept>> {
    let inner = l.counter.clone().unwrap_or_default();
    let mut out = Vec::new();
    for (oi, (ov, _, values)) in f.at.iter().enumerate() {
        for value in values {
            let index = out.len();
            out.push(vec![
                Swept {
                    counter: f.counter.clone(),
                    value: *ov,
                    index: oi,
                    of: f.at.len(),
                    head: o.head.clone(),
                    line: o.line,
                },
                Swept {
                    counter: inner.clone(),
                    value: *value,
                    index,
                    of: l.values.len(),
                    head: l.head.clone(),
                    line: l.line,
                },
            ]);
        }
    }
    out
}

fn why_not_swept(c: &str, l: &HostLoop) -> String {
    let limit = match l.follows {
        Some(_) => MAX_SWEPT_NEST,
        None => MAX_SWEPT,
    };
    match &l.trips {
        Ok(t) if *t > limit => format!(
            "`{c}` is the counter of `{}` (line {}), which takes {t} values, more than the \
             {limit} kerncast predicts one by one",
            l.head, l.line
        ),
        Ok(_) => format!(
            "`{c}` is the counter of `{}` (line {}), whose values kerncast cannot read",
            l.head, l.line
        ),
        Err(why) => format!(
            "`{c}` is the counter of `{}` (line {}), whose trips kerncast cannot count: {why}",
            l.head, l.line
        ),
    }
}

/// A workload's origin at the values `swept`: where it lists a counter's value among the
/// host values it takes (`where n = 65536, …`), that value says which loop gives it;
/// the others are added (`, for n = 65536 (1 of 3 values of `for (…)`, line 4)`).
pub(super) fn annotate(origin: &str, swept: &[Swept]) -> String {
    let mut out = origin.to_string();
    let mut added = Vec::new();
    for s in swept {
        let plain = format!("{} = {}", s.counter, s.value);
        let listed = [format!("where {plain}"), format!(", {plain}")]
            .into_iter()
            .find_map(|lead| {
                out.match_indices(&lead)
                    .map(|(at, _)| at + lead.len())
                    .find(|end| out[*end..].is_empty() || out[*end..].starts_with(','))
                    .map(|end| end - plain.len()..end)
            });
        match listed {
            Some(range) => out.replace_range(range, &s.shown()),
            None => added.push(s.shown()),
        }
    }
    if !added.is_empty() {
        out.push_str(&format!(", for {}", added.join(" and ")));
    }
    out
}

/// `defs` with the counters' values `swept`.
pub(super) fn defs_at(defs: &HostDefs, swept: &[Swept]) -> HostDefs {
    let mut d = defs.clone();
    for s in swept {
        d.scalars.insert(s.counter.clone(), s.value.to_string());
    }
    d
}

/// The counts without the swept loops, and without their counters among those the launch reads:
/// each workload runs once per trip of them, at one value. A swept loop that follows an
/// enclosing loop's counter has that loop's trips in its own.
pub(super) fn drop_swept(counts: &mut [LaunchCount], swept: &[Swept]) {
    let is_swept = |l: &HostLoop| swept.iter().any(|s| s.line == l.line && s.head == l.head);
    for c in counts {
        let followed: Vec<usize> = c
            .loops
            .iter()
            .filter(|l| is_swept(l))
            .filter_map(|l| l.follows.as_ref().map(|f| f.line))
            .collect();
        c.loops
            .retain(|l| !is_swept(l) && !followed.contains(&l.line));
        // a swept counter has one value in this workload
        c.reads_counters
            .retain(|r| !swept.iter().any(|s| &s.counter == r));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lp(line: usize, counter: &str, values: &[i64], trips: Result<u64, String>) -> HostLoop {
        HostLoop {
            line,
            head: format!("for ({counter} …)"),
            counter: Some(counter.into()),
            values: values.to_vec(),
            trips,
            follows: None,
        }
    }

    #[test]
    fn each_combination_of_the_counters_values_is_a_variant() {
        let loops = [
            lp(5, "n", &[1024, 4096], Ok(2)),
            lp(4, "b", &[64, 128, 256], Ok(3)),
        ];
        let p = plan(&loops);
        let values: Vec<Vec<(String, i64)>> = p
            .variants
            .iter()
            .map(|v| v.iter().map(|s| (s.counter.clone(), s.value)).collect())
            .collect();
        assert_eq!(values.len(), 6);
        assert_eq!(values[0], [("n".into(), 1024), ("b".into(), 64)]);
        assert_eq!(values[5], [("n".into(), 4096), ("b".into(), 256)]);
        assert_eq!(
            annotate("the launch at line 6: k<<<…>>>(n)", &p.variants[1]),
            "the launch at line 6: k<<<…>>>(n), for n = 1024 (1 of 2 values of `for (n …)`, \
             line 5) and b = 128 (2 of 3 values of `for (b …)`, line 4)"
        );
        // a value the origin lists among the host's says where it comes from
        assert_eq!(
            annotate(
                "k<<<…>>>(n), where m = 1, n = 1024, n2 = 2",
                &p.variants[1][..1]
            ),
            "k<<<…>>>(n), where m = 1, n = 1024 (1 of 2 values of `for (n …)`, line 5), n2 = 2"
        );
        assert_eq!(
            annotate("k<<<…>>>(n), where n = 10240", &p.variants[1][..1]),
            "k<<<…>>>(n), where n = 10240, for n = 1024 (1 of 2 values of `for (n …)`, line 5)"
        );
        assert!(p.unswept.is_empty());
        // no loop: one variant, nothing swept
        assert_eq!(plan(&[]).variants, vec![Vec::new()]);
    }

    /// A swept loop that follows a swept enclosing loop's counter gives one variant per trip of
    /// the nest, the pair of values it runs at; alone, its values over the nest.
    #[test]
    fn a_nest_s_counters_are_swept_together() {
        let outer = lp(3, "k", &[2, 4, 8], Ok(3));
        let mut inner = lp(4, "j", &[1, 2, 1, 4, 2, 1], Ok(6));
        inner.follows = Some(Follows {
            line: 3,
            counter: "k".into(),
            at: vec![(2, 1, vec![1]), (4, 2, vec![2, 1]), (8, 3, vec![4, 2, 1])],
        });
        let pairs = |p: &Plan| -> Vec<Vec<(String, i64)>> {
            p.variants
                .iter()
                .map(|v| v.iter().map(|s| (s.counter.clone(), s.value)).collect())
                .collect()
        };
        let both = plan(&[inner.clone(), outer.clone()]);
        let got = pairs(&both);
        assert_eq!(got.len(), 6);
        assert_eq!(got[1], [("k".into(), 4), ("j".into(), 2)]);
        assert_eq!(got[5], [("k".into(), 8), ("j".into(), 1)]);
        assert_eq!((both.variants[5][1].index, both.variants[5][1].of), (5, 6));
        assert_eq!(pairs(&plan(&[inner.clone()])).len(), 6);
        // each variant runs once: the swept loop and the one it follows are dropped
        let mut counts = [LaunchCount {
            at: "line 5".into(),
            loops: vec![inner, outer, lp(2, "it", &[], Ok(10))],
            file: None,
            line: 5,
            reads_counters: vec!["j".into()],
            dispatched: None,
        }];
        drop_swept(&mut counts, &both.variants[0][1..]);
        let left: Vec<usize> = counts[0].loops.iter().map(|l| l.line).collect();
        assert_eq!(left, [2]);
        assert!(counts[0].reads_counters.is_empty());
    }

    #[test]
    fn a_counter_that_cannot_be_swept_says_why() {
        let p = plan(&[
            lp(3, "t", &[], Ok(1000)),
            lp(2, "s", &[], Err("its condition `s < f()` …".into())),
        ]);
        assert_eq!(p.variants, vec![Vec::new()]);
        assert!(p.unswept["t"].contains("which takes 1000 values, more than the 32"));
        assert!(p.unswept["s"].contains("whose trips kerncast cannot count: its condition"));
        // too many combinations: none is swept
        let v: Vec<i64> = (0..6).collect();
        let p = plan(&[lp(3, "a", &v, Ok(6)), lp(2, "b", &v, Ok(6))]);
        assert_eq!(p.variants, vec![Vec::new()]);
        assert!(
            p.unswept["a"].contains("36 combinations"),
            "{:?}",
            p.unswept
        );
    }
}
