//! How many times the host code runs a workload's launch: the launches it stands for, each with
//! the loops around it (`launch_sites::host_loops`). A prediction is one launch's; the note
//! this module writes gives what the host code's launches cost together, and its
//! [`HostRun`]s what the report's host totals add up.

use super::WorkloadSpec;
use crate::report::{fmt_energy, fmt_time, HostRun};
use kerncast_passes::stats::Assumption;

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
    /// Where the loop's head reads an enclosing loop's counter (a bitonic sort's `for (j = k >>
    /// 1; j > 0; j >>= 1)` inside `for (k = 2; k <= n; k <<= 1)`): that loop, and this one at
    /// each of its values. `trips` and `values` are then over the whole run of the enclosing
    /// loop, whose trips are in them.
    pub follows: Option<Follows>,
}

/// The enclosing loop whose counter a loop's head reads, and the loop at each of its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Follows {
    /// The enclosing loop's line and counter.
    pub line: usize,
    pub counter: String,
    /// Per value of the enclosing counter, in order: the value, this loop's trips at it, and
    /// its counter's values (empty where they are not all listed).
    pub at: Vec<(i64, u64, Vec<i64>)>,
}

/// One launch in the host code that a workload stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchCount {
    /// Where the launch is, as the report names it: `line 15`, or `main.cu:15` for a launch in
    /// another file than the kernel.
    pub at: String,
    /// The host file the launch is in, as the report shows it; `None` for the kernel's own.
    pub file: Option<String>,
    /// 1-based line of the launch in it.
    pub line: usize,
    /// The loops around it, innermost first.
    pub loops: Vec<HostLoop>,
    /// The loop counters the launch reads (`k` of `for (k = 0; k < n; k++) step<<<…>>>(a, k)`):
    /// its launches differ, so one launch's figures times the trips are not what they cost.
    pub reads_counters: Vec<String>,
    /// The PyTorch dispatch macro the launch is written in (`AT_DISPATCH_FLOATING_TYPES`): each
    /// call runs the instance of one scalar type of its set, chosen by a tensor's dtype.
    pub dispatched: Option<Dispatch>,
}

/// The `AT_DISPATCH_*` call a launch is written in, and the instance it runs where the
/// dispatched tensor's dtype is known.
#[derive(Clone, Debug, PartialEq)]
pub struct Dispatch {
    /// The macro, `AT_DISPATCH_FLOATING_TYPES`.
    pub macro_name: String,
    /// The tensor whose dtype it reads (`x` of `x.scalar_type()`), where kerncast reads one.
    pub tensor: Option<String>,
    /// The C++ type of that dtype (`float`), where known.
    pub scalar_t: Option<String>,
    /// The kernel instance the launch runs, as the demangler names it (`add_kernel<float>`
    /// where `x` is float32 and the launch is `add_kernel<scalar_t>`; the kernel itself where
    /// the launch names no template argument, which every case runs); `None` where not known.
    pub runs: Option<String>,
}

impl Dispatch {
    /// Why the launch's runs are not added up for the kernel instance `entry`, or `None` where
    /// they are: the dispatch runs `entry`.
    fn left_out(&self, entry: &str) -> Option<String> {
        let tensor = self
            .tensor
            .as_ref()
            .map_or("a tensor".to_string(), |t| format!("`{t}`"));
        match &self.runs {
            Some(runs) if same_instance(runs, entry) => None,
            Some(runs) => Some(format!(
                "in `{}`, which runs `{runs}` for {tensor}'s dtype, not this instance",
                self.macro_name
            )),
            None => match &self.scalar_t {
                Some(ty) => Some(format!(
                    "in `{}`, which runs the `{ty}` case for {tensor}'s dtype, but kerncast \
                     cannot tell which instance the launch's template arguments name there, \
                     so its instances are not added up",
                    self.macro_name
                )),
                None => Some(format!(
                    "in `{}`, which runs the instance of one scalar type per call, chosen by \
                     {tensor}'s dtype at run time, which kerncast does not know here, so its \
                     instances are not added up",
                    self.macro_name
                )),
            },
        }
    }
}

/// Whether two names of a kernel instance name the same one: the same name past its
/// namespaces, and the same template arguments, spaces aside and numbers as numbers (the
/// demangler writes `(unsigned int)256` where the source has `256u`).
fn same_instance(a: &str, b: &str) -> bool {
    fn parts(name: &str) -> (String, Vec<String>) {
        let (base, args) = match name.split_once('<') {
            Some((base, rest)) => (base, rest.strip_suffix('>').unwrap_or(rest)),
            None => (name, ""),
        };
        let base = base.rsplit("::").next().unwrap_or(base).trim().to_string();
        let args = crate::workload::split_top(args)
            .iter()
            .map(|a| {
                let a: String = a.split_whitespace().collect();
                let a = match a.strip_prefix('(').and_then(|r| r.split_once(')')) {
                    Some((_, v)) if v.parse::<i64>().is_ok() => v.to_string(),
                    _ => a,
                };
                let digits = a.trim_end_matches(['u', 'U', 'l', 'L']);
                if digits.parse::<i64>().is_ok() {
                    digits.to_string()
                } else {
                    a
                }
            })
            .filter(|a| !a.is_empty())
            .collect();
        (base, args)
    }
    parts(a) == parts(b)
}

impl LaunchCount {
    /// The loops whose trips multiply: all but those a loop inside follows, whose trips are in
    /// that loop's.
    fn multiplying(&self) -> impl Iterator<Item = &HostLoop> {
        self.loops.iter().filter(|l| {
            !self
                .loops
                .iter()
                .any(|o| o.follows.as_ref().is_some_and(|f| f.line == l.line))
        })
    }

    /// The times the host code runs this launch: the product of its loops' trips.
    fn times(&self) -> Result<u64, (&str, &str)> {
        self.multiplying().try_fold(1u64, |n, l| match &l.trips {
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
            .multiplying()
            .map(|l| l.trips.as_ref().map_or(0, |t| *t).to_string())
            .collect();
        let heads: Vec<String> = self
            .loops
            .iter()
            .map(|l| match &l.follows {
                Some(f) => format!(
                    "`{}` ({} trips over the {} values of `{}`)",
                    l.head,
                    l.trips.as_ref().map_or(0, |t| *t),
                    f.at.len(),
                    f.counter
                ),
                None => format!("`{}`", l.head),
            })
            .collect();
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

    /// `` `k`, `j` ``: the loop counters the launch reads, each once.
    fn counters_read(&self) -> Vec<String> {
        let mut counters: Vec<String> = self
            .reads_counters
            .iter()
            .map(|c| format!("`{c}`"))
            .collect();
        counters.sort();
        counters.dedup();
        counters
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
            .flat_map(LaunchCount::counters_read)
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

    /// This workload with only the loop counters its prediction reads, given the prediction's
    /// `assumptions` ([`WorkloadSpec::drop_counters_unread`]): what its runs note and host
    /// runs are made from.
    pub fn as_predicted(&self, assumptions: &[Assumption]) -> WorkloadSpec {
        let mut spec = self.clone();
        let assumed: Vec<String> = assumptions.iter().map(|a| a.hint_key.clone()).collect();
        spec.drop_counters_unread(&assumed);
        spec
    }

    /// Drops from each launch's counters those its prediction does not read, so that its runs
    /// are all predicted alike: no size or parameter value comes from them, none given on the
    /// command line, and no value assumed (`assumed`, the prediction's hint keys: an emulated
    /// `param.k` of 0). `t` of `step<<<…>>>(u, n, t * dt)`, where the counts need no `t`.
    fn drop_counters_unread(&mut self, assumed: &[String]) {
        let read = self.names_read();
        // a name the counter feeds: itself, or a kernel parameter whose argument reads it
        let fed = |name: &str, c: &str| {
            name == c
                || self
                    .unset
                    .get(name)
                    .is_some_and(|why| why.contains(&format!("`{c}`")))
        };
        let given: Vec<&str> = self
            .params
            .iter()
            .map(|(p, _)| p.as_str())
            .chain(assumed.iter().filter_map(|h| h.strip_prefix("param.")))
            .collect();
        let reads = |c: &String| read.contains(c) || given.iter().any(|n| fed(n, c));
        let kept: Vec<Vec<String>> = self
            .launches
            .iter()
            .map(|l| {
                l.reads_counters
                    .iter()
                    .filter(|c| reads(c))
                    .cloned()
                    .collect()
            })
            .collect();
        for (l, k) in self.launches.iter_mut().zip(kept) {
            l.reads_counters = k;
        }
    }

    /// Each launch this workload stands for, with its runs, and why it cannot be summed where
    /// it cannot: its trips are unknown, it is in a PyTorch dispatch that runs another instance
    /// than `entry` (the kernel instance predicted, as the demangler names it) or one kerncast
    /// cannot tell, or each run reads a loop counter and so differs from the one predicted. A
    /// launch in the kernel's own file is in `kernel_file`.
    pub fn host_runs(&self, kernel_file: &str, entry: &str) -> Vec<HostRun> {
        self.launches
            .iter()
            .map(|l| {
                let times = l.times();
                let counters = l.counters_read();
                let left_out = match &times {
                    Err((head, why)) => Some(format!(
                        "in a host loop whose trips kerncast cannot count (`{head}`: {why})"
                    )),
                    Ok(_) => l
                        .dispatched
                        .as_ref()
                        .and_then(|d| d.left_out(entry))
                        .or_else(|| counters_left_out(&counters)),
                };
                HostRun {
                    file: l.file.clone().unwrap_or_else(|| kernel_file.to_string()),
                    line: l.line as u32,
                    at: l.at.clone(),
                    times: times.ok(),
                    left_out,
                }
            })
            .collect()
    }
}

/// Why a launch whose runs read the loop counters `counters` is not added up, if it reads any.
fn counters_left_out(counters: &[String]) -> Option<String> {
    (!counters.is_empty()).then(|| {
        format!(
            "each run reads {}, which changes from one to the next, and only the values given \
             here are predicted",
            counters.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Expr;

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
                    follows: None,
                })
                .collect(),
            file: None,
            line,
            reads_counters: Vec::new(),
            dispatched: None,
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

    /// A loop that follows its enclosing loop's counter counts the trips of both.
    #[test]
    fn a_loop_that_follows_an_enclosing_counter_counts_for_both() {
        let mut nest = at(
            9,
            &[
                ("for (j = k >> 1; j > 0; j >>= 1)", Ok(6)),
                ("for (k = 2; k <= 8; k <<= 1)", Ok(3)),
                ("for (it…)", Ok(10)),
            ],
        );
        nest.loops[1].line = 8;
        nest.loops[0].follows = Some(Follows {
            line: 8,
            counter: "k".into(),
            at: vec![(2, 1, vec![1]), (4, 2, vec![2, 1]), (8, 3, vec![4, 2, 1])],
        });
        assert_eq!(
            spec(vec![nest]).runs_note(1e-3, None).unwrap(),
            "the host code runs this launch 60 times (line 9: 6 × 10 = 60 times, in \
             `for (j = k >> 1; j > 0; j >>= 1)` (6 trips over the 3 values of `k`) inside \
             `for (k = 2; k <= 8; k <<= 1)` inside `for (it…)`): 60.000 ms in all"
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

    /// A counter the prediction does not read leaves the launch's runs alike; one it reads
    /// through a size, a value given for its argument, or an assumed value does not.
    #[test]
    fn counters_the_prediction_does_not_read_are_dropped() {
        let looped = |counters: &[&str]| {
            let mut l = at(16, &[("for (int t = 0; t < 500; ++t)", Ok(500))]);
            l.reads_counters = counters.iter().map(|c| c.to_string()).collect();
            l
        };
        let counter = "`t` is the counter of `for (int t = 0; t < 500; ++t)` (line 15)";
        let mut w = spec(vec![looped(&["t"])]);
        w.params = vec![("n".into(), Expr::Int(1024))];
        w.unset = [
            ("t".to_string(), counter.to_string()),
            (
                "k".to_string(),
                format!("its argument reads `t`; {counter}"),
            ),
        ]
        .into_iter()
        .collect();
        let mut alike = w.clone();
        alike.drop_counters_unread(&[]);
        assert!(alike.launches[0].reads_counters.is_empty());
        assert_eq!(
            alike.runs_note(1e-3, None).unwrap(),
            "the host code runs this launch 500 times (line 16: 500 times, in \
             `for (int t = 0; t < 500; ++t)`): 500.000 ms in all"
        );
        // the emulator assumed a value for `k`, which the counter feeds
        let mut assumed = w.clone();
        assumed.drop_counters_unread(&["param.k".into(), "buffer_bytes.u".into()]);
        assert_eq!(assumed.launches[0].reads_counters, ["t"]);
        // the command line gave `k`
        let mut given = w.clone();
        given.params.push(("k".into(), Expr::Int(3)));
        given.drop_counters_unread(&[]);
        assert_eq!(given.launches[0].reads_counters, ["t"]);
        // the grid reads `t`
        let mut sized = w.clone();
        sized.params = vec![("n".into(), Expr::Var("t".into()))];
        sized.drop_counters_unread(&[]);
        assert_eq!(sized.launches[0].reads_counters, ["t"]);
    }

    /// Each launch is a host run: counted ones with their runs, in the kernel's file or the one
    /// they are in; those whose trips are unknown or whose runs differ say why they cannot be
    /// summed.
    #[test]
    fn host_runs_count_each_launch_or_say_why_not() {
        let mut reads_k = at(7, &[("for (int k = 0; k < n; k++)", Ok(64))]);
        reads_k.reads_counters = vec!["k".into(), "k".into()];
        let mut elsewhere = at(12, &[("for (r…)", Ok(3)), ("for (it…)", Ok(5))]);
        elsewhere.file = Some("main.cu".into());
        let mut dispatched = at(20, &[("for (int i = 0; i < 4; i++)", Ok(4))]);
        dispatched.dispatched = Some(Dispatch {
            macro_name: "AT_DISPATCH_FLOATING_TYPES".into(),
            tensor: Some("x".into()),
            scalar_t: None,
            runs: None,
        });
        let mut known = dispatched.clone();
        known.dispatched = Some(Dispatch {
            runs: Some("k<double>".into()),
            ..dispatched.dispatched.clone().unwrap()
        });
        let mut other = known.clone();
        other.dispatched = Some(Dispatch {
            runs: Some("ns::k<(unsigned int)7>".into()),
            ..dispatched.dispatched.clone().unwrap()
        });
        let runs = spec(vec![
            at(3, &[]),
            elsewhere,
            at(9, &[("while (err > tol)", Err("a `while` loop".into()))]),
            reads_k,
            dispatched,
            known,
            other,
        ])
        .host_runs("k.cu", "k<double>");
        let got: Vec<(&str, Option<u64>, Option<&str>)> = runs
            .iter()
            .map(|r| (r.file.as_str(), r.times, r.left_out.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("k.cu", Some(1), None),
                ("main.cu", Some(15), None),
                (
                    "k.cu",
                    None,
                    Some(
                        "in a host loop whose trips kerncast cannot count \
                         (`while (err > tol)`: a `while` loop)"
                    )
                ),
                (
                    "k.cu",
                    Some(64),
                    Some(
                        "each run reads `k`, which changes from one to the next, and only the \
                         values given here are predicted"
                    )
                ),
                (
                    "k.cu",
                    Some(4),
                    Some(
                        "in `AT_DISPATCH_FLOATING_TYPES`, which runs the instance of one scalar \
                         type per call, chosen by `x`'s dtype at run time, which kerncast does \
                         not know here, so its instances are not added up"
                    )
                ),
                // the dispatch runs this instance for `x`'s dtype: its runs add up
                ("k.cu", Some(4), None),
                (
                    "k.cu",
                    Some(4),
                    Some(
                        "in `AT_DISPATCH_FLOATING_TYPES`, which runs `ns::k<(unsigned int)7>` \
                         for `x`'s dtype, not this instance"
                    )
                ),
            ]
        );
    }

    #[test]
    fn instances_are_the_same_past_namespaces_spaces_and_number_spellings() {
        assert!(same_instance("k<float>", "ns::k<float>"));
        assert!(same_instance(
            "k<c10::Half, 256u>",
            "k<c10::Half, (unsigned int)256>"
        ));
        assert!(same_instance("relu", "relu"));
        assert!(!same_instance("k<float>", "k<double>"));
        assert!(!same_instance("k<float>", "j<float>"));
        assert!(!same_instance("k<float, 128>", "k<float, 256>"));
    }
}
