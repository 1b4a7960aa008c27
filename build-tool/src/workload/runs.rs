//! How many times the host code runs a workload's launch: the launches it stands for, each with
//! the loops around it (`launch_sites::host_loops`). A prediction is one launch's; the note
//! this module writes gives what the host code's launches cost together.

use super::WorkloadSpec;
use crate::report::{fmt_energy, fmt_time};

/// One loop around a launch: its head as written (`for (int it = 0; it < iters; ++it)`), and its
/// trips, or why they cannot be counted.
#[derive(Clone, Debug, PartialEq)]
pub struct HostLoop {
    /// 1-based line of the loop's keyword.
    pub line: usize,
    pub head: String,
    /// The `for` loop's counter (`it`), where it has one.
    pub counter: Option<String>,
    /// The counter's values, one per trip, where the loop runs at most
    /// `launch_sites::host_loops::MAX_SWEPT` trips and they are all known; else empty.
    pub values: Vec<i64>,
    pub trips: Result<u64, String>,
}

/// One launch in the host code that a workload stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchCount {
    /// Where the launch is, as the report names it: `line 15`, or `main.cu:15` for a launch in
    /// another file than the kernel.
    pub at: String,
    /// The loops around it, innermost first.
    pub loops: Vec<HostLoop>,
    /// The loop counters the launch reads (`k` of `for (k = 0; k < n; k++) step<<<…>>>(a, k)`):
    /// its launches differ, so one launch's figures times the trips are not what they cost.
    pub reads_counters: Vec<String>,
}

impl LaunchCount {
    /// The times the host code runs this launch: the product of its loops' trips.
    fn times(&self) -> Result<u64, (&str, &str)> {
        self.loops.iter().try_fold(1u64, |n, l| match &l.trips {
            Ok(t) => Ok(n.saturating_mul(*t)),
            Err(why) => Err((l.head.as_str(), why.as_str())),
        })
    }

    /// ``line 15: 100 times, in `for (…)` ``; for nested loops ``line 15: 20 × 100 = 2000 times, …``.
    fn described(&self, times: u64) -> String {
        if self.loops.is_empty() {
            return format!("{}: once", self.at);
        }
        let trips: Vec<String> = self
            .loops
            .iter()
            .map(|l| l.trips.as_ref().map_or(0, |t| *t).to_string())
            .collect();
        let heads: Vec<String> = self.loops.iter().map(|l| format!("`{}`", l.head)).collect();
        let times_shown = if times == 1 {
            "once".to_string()
        } else {
            format!("{times} times")
        };
        let product = if trips.len() > 1 {
            format!("{} = {times_shown}", trips.join(" × "))
        } else {
            times_shown
        };
        format!("{}: {product}, in {}", self.at, heads.join(" inside "))
    }
}

impl WorkloadSpec {
    /// The note that says how often the host code runs this launch and what that costs, from
    /// one launch's `time_s` and `energy_j`; `None` when it runs once (or the workload is not a
    /// launch's).
    pub fn runs_note(&self, time_s: f64, energy_j: Option<f64>) -> Option<String> {
        let mut total = 0u64;
        // each description once, with how many launches it stands for (three calls on a line)
        let mut described: Vec<(String, usize)> = Vec::new();
        for launch in &self.launches {
            match launch.times() {
                Ok(times) => {
                    total = total.saturating_add(times);
                    let d = launch.described(times);
                    match described.iter_mut().find(|(o, _)| *o == d) {
                        Some((_, n)) => *n += 1,
                        None => described.push((d, 1)),
                    }
                }
                Err((head, why)) => {
                    return Some(format!(
                        "the launch at {} is in a host loop whose trips kerncast cannot count \
                         (`{head}`: {why}): the figures are one launch's",
                        launch.at
                    ));
                }
            }
        }
        if total == 1 || self.launches.is_empty() {
            return None;
        }
        let described: Vec<String> = described
            .into_iter()
            .map(|(d, n)| if n > 1 { format!("{n} × {d}") } else { d })
            .collect();
        let mut counters: Vec<String> = self
            .launches
            .iter()
            .flat_map(|l| l.reads_counters.iter().map(|c| format!("`{c}`")))
            .collect();
        counters.sort();
        counters.dedup();
        if !counters.is_empty() {
            return Some(format!(
                "the host code runs this launch {total} times ({}), and each launch reads {}, \
                 which changes from one to the next: the figures are for the values given here, \
                 not for every launch",
                described.join("; "),
                counters.join(", ")
            ));
        }
        let energy = energy_j.map_or(String::new(), |e| {
            format!(" and {}", fmt_energy(e * total as f64))
        });
        Some(format!(
            "the host code runs this launch {total} times ({}): {}{energy} in all",
            described.join("; "),
            fmt_time(time_s * total as f64)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(launches: Vec<LaunchCount>) -> WorkloadSpec {
        WorkloadSpec {
            launches,
            ..WorkloadSpec::empty()
        }
    }

    fn at(line: usize, loops: &[(&str, Result<u64, String>)]) -> LaunchCount {
        LaunchCount {
            at: format!("line {line}"),
            loops: loops
                .iter()
                .map(|(h, t)| HostLoop {
                    line: 1,
                    head: h.to_string(),
                    counter: None,
                    values: Vec::new(),
                    trips: t.clone(),
                })
                .collect(),
            reads_counters: Vec::new(),
        }
    }

    #[test]
    fn a_launch_in_counted_loops_costs_its_trips() {
        let one = spec(vec![at(
            15,
            &[("for (int it = 0; it < 100; ++it)", Ok(100))],
        )]);
        assert_eq!(
            one.runs_note(1e-3, Some(0.1)).unwrap(),
            "the host code runs this launch 100 times (line 15: 100 times, in \
             `for (int it = 0; it < 100; ++it)`): 100.000 ms and 10.000 J in all"
        );
        let nested = spec(vec![
            at(16, &[("for (s…)", Ok(20)), ("for (it…)", Ok(100))]),
            at(30, &[]),
        ]);
        let note = nested.runs_note(1e-6, None).unwrap();
        assert!(
            note.starts_with(
                "the host code runs this launch 2001 times (line 16: 20 × 100 = 2000 times, in \
                 `for (s…)` inside `for (it…)`; line 30: once): 2.001 ms in all"
            ),
            "{note}"
        );
        // a loop that runs once (a warm-up of one trip)
        let warm = spec(vec![
            at(4, &[("for (w…)", Ok(1))]),
            at(5, &[("for (r…)", Ok(7))]),
        ]);
        assert_eq!(
            warm.runs_note(1e-3, None).unwrap(),
            "the host code runs this launch 8 times (line 4: once, in `for (w…)`; line 5: 7 \
             times, in `for (r…)`): 8.000 ms in all"
        );
    }

    #[test]
    fn one_launch_says_nothing_and_an_uncounted_loop_says_why() {
        assert_eq!(spec(vec![at(3, &[])]).runs_note(1.0, None), None);
        assert_eq!(spec(vec![]).runs_note(1.0, None), None);
        let w = spec(vec![at(
            9,
            &[("while (err > tol)", Err("a `while` loop".into()))],
        )]);
        assert_eq!(
            w.runs_note(1.0, None).unwrap(),
            "the launch at line 9 is in a host loop whose trips kerncast cannot count \
             (`while (err > tol)`: a `while` loop): the figures are one launch's"
        );
    }

    /// Launches that read the loop's counter differ from one another: no total.
    #[test]
    fn launches_that_read_the_counter_get_no_total() {
        let mut gs = at(7, &[("for (int k = 0; k < n; k++)", Ok(64))]);
        gs.reads_counters = vec!["k".into()];
        assert_eq!(
            spec(vec![gs]).runs_note(1e-3, Some(1.0)).unwrap(),
            "the host code runs this launch 64 times (line 7: 64 times, in \
             `for (int k = 0; k < n; k++)`), and each launch reads `k`, which changes from one \
             to the next: the figures are for the values given here, not for every launch"
        );
    }
}
