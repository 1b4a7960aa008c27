//! How many times the host code runs a workload's launch: the launches it stands for, each with
//! the count the host reading gives it (`kerncast-host`, loops followed to their end). A
//! prediction is one launch's; the note this module writes gives what the host code's launches
//! cost together, and its [`HostRun`]s what the report's host totals add up.

use super::WorkloadSpec;
use crate::report::{fmt_energy, fmt_time, HostRun};

/// One launch in the host code that a workload stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchCount {
    /// Where the launch is, as the report names it: `line 15`, or `main.cu:15` for a launch in
    /// another file than the kernel, then the calls from other files that reach it
    /// (`kernels.cu:6, called at main.cpp:7`).
    pub at: String,
    /// The host file the launch is in, as the report shows it.
    pub file: String,
    /// 1-based line of the launch in it.
    pub line: usize,
    /// How many times the program makes it, or why that is not known: a loop not followed to
    /// its end gives only a lower bound.
    pub times: Result<u64, String>,
    /// Conditions the host reading could not decide that the launch runs under.
    pub conditions: Vec<String>,
}

impl LaunchCount {
    /// Why its runs are not added up, if they are not: unknown, or under conditions kerncast
    /// could not decide.
    fn left_out(&self) -> Option<String> {
        match &self.times {
            Err(why) => Some(why.clone()),
            Ok(_) if !self.conditions.is_empty() => Some(format!(
                "it runs only if {}, which kerncast could not decide",
                self.conditions.join(" and ")
            )),
            Ok(_) => None,
        }
    }

    /// `line 15: 100 times`, `line 3: once`.
    fn described(&self, times: u64) -> String {
        match times {
            1 => format!("{}: once", self.at),
            n => format!("{}: {n} times", self.at),
        }
    }
}

impl WorkloadSpec {
    /// The note that says how often the host code runs this launch and what that costs, from
    /// one launch's `time_s` and `energy_j`; `None` when it runs once (or the workload is not a
    /// launch's).
    pub fn runs_note(&self, time_s: f64, energy_j: Option<f64>) -> Option<String> {
        if let Some((l, why)) = self
            .launches
            .iter()
            .find_map(|l| l.left_out().map(|why| (l, why)))
        {
            return Some(format!(
                "the launch at {} is not counted ({why}): the figures are one launch's",
                l.at
            ));
        }
        let total = self
            .launches
            .iter()
            .filter_map(|l| l.times.as_ref().ok())
            .fold(0u64, |n, t| n.saturating_add(*t));
        if total <= 1 {
            return None;
        }
        let described: Vec<String> = self
            .launches
            .iter()
            .filter_map(|l| l.times.as_ref().ok().map(|t| l.described(*t)))
            .collect();
        let energy = energy_j.map_or(String::new(), |e| {
            format!(" and {}", fmt_energy(e * total as f64))
        });
        Some(format!(
            "the host code runs this launch {total} times ({}): {}{energy} in all",
            described.join("; "),
            fmt_time(time_s * total as f64)
        ))
    }

    /// Each launch this workload stands for, with its runs, and why it cannot be summed where
    /// it cannot: its count is a lower bound, or it runs under a condition kerncast could not
    /// decide.
    pub fn host_runs(&self) -> Vec<HostRun> {
        self.launches
            .iter()
            .map(|l| HostRun {
                file: l.file.clone(),
                line: l.line as u32,
                at: l.at.clone(),
                times: l.times.as_ref().ok().copied(),
                left_out: l.left_out(),
            })
            .collect()
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

    fn at(line: usize, times: Result<u64, String>) -> LaunchCount {
        LaunchCount {
            at: format!("line {line}"),
            file: "k.cu".into(),
            line,
            times,
            conditions: Vec::new(),
        }
    }

    #[test]
    fn launches_in_counted_loops_cost_their_runs() {
        let one = spec(vec![at(15, Ok(100))]);
        assert_eq!(
            one.runs_note(1e-3, Some(0.1)).unwrap(),
            "the host code runs this launch 100 times (line 15: 100 times): 100.000 ms and \
             10.000 J in all"
        );
        let two = spec(vec![at(16, Ok(2000)), at(30, Ok(1))]);
        assert_eq!(
            two.runs_note(1e-6, None).unwrap(),
            "the host code runs this launch 2001 times (line 16: 2000 times; line 30: once): \
             2.001 ms in all"
        );
        assert_eq!(spec(vec![at(3, Ok(1))]).runs_note(1.0, None), None);
        assert_eq!(spec(vec![]).runs_note(1.0, None), None);
    }

    #[test]
    fn a_lower_bound_or_an_undecided_condition_is_not_summed_and_says_why() {
        let bound = spec(vec![at(
            9,
            Err("at least 1000 times: a loop not followed to its end".into()),
        )]);
        assert_eq!(
            bound.runs_note(1.0, None).unwrap(),
            "the launch at line 9 is not counted (at least 1000 times: a loop not followed to \
             its end): the figures are one launch's"
        );
        let mut guarded = at(12, Ok(4));
        guarded.conditions = vec!["`x.dtype` is float".into()];
        let runs = spec(vec![at(3, Ok(5)), guarded]).host_runs();
        let got: Vec<(u32, Option<u64>, Option<&str>)> = runs
            .iter()
            .map(|r| (r.line, r.times, r.left_out.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (3, Some(5), None),
                (
                    12,
                    Some(4),
                    Some("it runs only if `x.dtype` is float, which kerncast could not decide")
                ),
            ]
        );
    }
}
