//! What the host code's launches cost together. A report entry is one launch's prediction; the
//! host code may run that launch many times, and a loop that hands each launch its counter (an
//! FFT's stages) makes one entry per value. Per host file and device, the totals add each
//! entry's figures times the runs the host code makes of it. Launches whose runs cannot be
//! counted, or whose runs all differ (they read a loop counter that is not swept), are left out
//! of the sums and listed, never guessed.

use super::{fmt_energy, fmt_time, ClockTotal, HostTotal, KernelReport, KernelShare, Report};
use std::collections::BTreeMap;

/// Said under the totals of a report with errors.
pub const ERRORS_NOT_IN_TOTALS: &str =
    "the launches of kernels the report has errors for are in no total";

/// The totals worth showing beside the report's entries.
pub fn shown(r: &Report) -> Vec<&HostTotal> {
    r.host_totals.iter().filter(|t| t.adds_anything()).collect()
}

impl HostTotal {
    /// Identity in baselines and gates: `host:file@device`.
    pub fn key(&self) -> String {
        format!("host:{}@{}", self.file, self.device)
    }

    /// Worth showing beside the entries: it sums more than one run, or leaves some out.
    pub fn adds_anything(&self) -> bool {
        self.launches > 1 || !self.left_out.is_empty()
    }

    /// `least energy at core 785 MHz, memory 3505 MHz: 9.800 J (-14.5 %) in 110.000 ms
    /// (+15.0 %)`, or that the default clocks take the least.
    pub fn least_energy_shown(&self) -> Option<String> {
        let (least, energy) = (self.least_energy.as_ref()?, self.energy_j?);
        if least.energy_j >= energy * (1.0 - 1e-9) {
            return Some("no clock pair of the device takes less energy than the default".into());
        }
        let change = |now: f64, then: f64| (now / then - 1.0) * 100.0;
        Some(format!(
            "least energy at core {:.0} MHz, memory {:.0} MHz: {} ({:+.1} %) in {} ({:+.1} %)",
            least.core_mhz,
            least.mem_mhz,
            fmt_energy(least.energy_j),
            change(least.energy_j, energy),
            fmt_time(least.time_s),
            change(least.time_s, self.time_s)
        ))
    }

    /// The summed time, or `–` where no launch is in the sums.
    pub fn time_shown(&self) -> String {
        match self.launches {
            0 => "–".into(),
            _ => fmt_time(self.time_s),
        }
    }

    /// `210 launches, 2.050 ms and 205.000 mJ in all`.
    pub fn sums(&self) -> String {
        if self.launches == 0 {
            return "no launch it can count".into();
        }
        let energy = self
            .energy_j
            .map_or(String::new(), |e| format!(" and {}", fmt_energy(e)));
        let launches = match self.launches {
            1 => "1 launch".to_string(),
            n => format!("{n} launches"),
        };
        format!("{launches}, {}{energy} in all", fmt_time(self.time_s))
    }

    /// `butterfly 95.2 %, scale 4.8 %`: the `n` largest kernels' shares of the time.
    pub fn shares(&self, n: usize) -> String {
        let mut out: Vec<String> = self
            .kernels
            .iter()
            .take(n)
            .map(|k| {
                let share = if self.time_s > 0.0 {
                    k.time_s / self.time_s * 100.0
                } else {
                    0.0
                };
                format!("{} {share:.1} %", k.kernel)
            })
            .collect();
        if self.kernels.len() > n {
            out.push(format!("{} more", self.kernels.len() - n));
        }
        out.join(", ")
    }
}

/// A launch left out of a total, with the workloads it is left out at.
struct LeftOut {
    /// (kernel, where, why)
    what: (String, String, String),
    workloads: Vec<String>,
}

/// The totals of `kernels`' host runs, by host file and device.
pub fn totals(kernels: &[KernelReport]) -> Vec<HostTotal> {
    // by (host file, device)
    let mut by_file: BTreeMap<(String, String), HostTotal> = BTreeMap::new();
    let mut left_out: BTreeMap<(String, String), Vec<LeftOut>> = BTreeMap::new();
    // the sums at each clock pair; `None` once a launch in them has no sweep, or another grid
    let mut grids: BTreeMap<(String, String), Option<Vec<ClockTotal>>> = BTreeMap::new();
    for k in kernels {
        for run in &k.host_runs {
            let key = (run.file.clone(), k.device.clone());
            let total = by_file.entry(key.clone()).or_insert_with(|| HostTotal {
                file: run.file.clone(),
                line: run.line,
                device: k.device.clone(),
                launches: 0,
                time_s: 0.0,
                energy_j: Some(0.0),
                kernels: Vec::new(),
                left_out: Vec::new(),
                least_energy: None,
            });
            total.line = total.line.min(run.line);
            let (Some(times), None) = (run.times, &run.left_out) else {
                let why = run.left_out.clone().unwrap_or_default();
                let what = (k.display_name.clone(), run.at.clone(), why);
                let list = left_out.entry(key).or_default();
                match list.iter_mut().find(|l| l.what == what) {
                    Some(l) => l.workloads.push(k.workload.name.clone()),
                    None => list.push(LeftOut {
                        what,
                        workloads: vec![k.workload.name.clone()],
                    }),
                }
                continue;
            };
            let grid = grids.entry(key).or_insert_with(|| {
                Some(
                    k.dvfs
                        .iter()
                        .map(|p| ClockTotal {
                            core_mhz: p.core_mhz,
                            mem_mhz: p.mem_mhz,
                            time_s: 0.0,
                            energy_j: 0.0,
                        })
                        .collect(),
                )
            });
            let same_pairs = |g: &Vec<ClockTotal>| {
                g.len() == k.dvfs.len()
                    && g.iter()
                        .zip(&k.dvfs)
                        .all(|(c, p)| (c.core_mhz, c.mem_mhz) == (p.core_mhz, p.mem_mhz))
            };
            if grid
                .as_ref()
                .is_some_and(|g| !g.is_empty() && same_pairs(g))
            {
                for (c, p) in grid.iter_mut().flatten().zip(&k.dvfs) {
                    c.time_s += p.time_s * times as f64;
                    c.energy_j += p.energy_j * times as f64;
                }
            } else {
                *grid = None;
            }
            let time = k.prediction.time_s * times as f64;
            total.launches += times;
            total.time_s += time;
            total.energy_j = total
                .energy_j
                .zip(k.prediction.energy_j)
                .map(|(sum, e)| sum + e * times as f64);
            match total
                .kernels
                .iter_mut()
                .find(|s| s.kernel == k.display_name)
            {
                Some(s) => {
                    s.launches += times;
                    s.time_s += time;
                }
                None => total.kernels.push(KernelShare {
                    kernel: k.display_name.clone(),
                    launches: times,
                    time_s: time,
                }),
            }
        }
    }
    for (key, list) in left_out {
        if let Some(total) = by_file.get_mut(&key) {
            total.left_out = list
                .into_iter()
                .map(
                    |LeftOut {
                         what: (kernel, at, why),
                         workloads,
                     }| match workloads.as_slice() {
                        [one] => format!("`{kernel}` ({one}) at {at}: {why}"),
                        many => format!("`{kernel}` at {at}, {} workloads: {why}", many.len()),
                    },
                )
                .collect();
        }
    }
    for (key, grid) in grids {
        if let Some(total) = by_file.get_mut(&key) {
            total.least_energy = grid
                .into_iter()
                .flatten()
                .min_by(|a, b| a.energy_j.total_cmp(&b.energy_j));
        }
    }
    let mut out: Vec<HostTotal> = by_file.into_values().collect();
    for t in &mut out {
        t.kernels.sort_by(|a, b| b.time_s.total_cmp(&a.time_s));
        if t.launches == 0 {
            // nothing summed: no energy was added either
            t.energy_j = None;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sample;
    use crate::report::HostRun;

    fn entry(name: &str, workload: &str, time_s: f64, runs: Vec<HostRun>) -> KernelReport {
        let mut k = sample::report().kernels.remove(0);
        k.display_name = name.into();
        k.workload.name = workload.into();
        k.prediction.time_s = time_s;
        k.prediction.energy_j = Some(time_s * 100.0);
        k.host_runs = runs;
        k
    }

    fn run(file: &str, at: &str, times: Option<u64>, left_out: Option<&str>) -> HostRun {
        HostRun {
            file: file.into(),
            line: 1,
            at: at.into(),
            times,
            left_out: left_out.map(String::from),
        }
    }

    /// An FFT's stages, one entry per stage value, each run 10 times, plus a scaling kernel:
    /// the sums are each entry's figures times its runs, by kernel.
    #[test]
    fn a_swept_loop_s_entries_add_up_with_their_runs() {
        let mut ks: Vec<KernelReport> = (0..20)
            .map(|s| {
                entry(
                    "butterfly",
                    &format!("stage={s}"),
                    1e-5,
                    vec![run("fft.cu", "line 27", Some(10), None)],
                )
            })
            .collect();
        ks.push(entry(
            "scale",
            "n=1024",
            5e-6,
            vec![run("fft.cu", "line 28", Some(10), None)],
        ));
        let t = totals(&ks);
        assert_eq!(t.len(), 1);
        assert_eq!((t[0].file.as_str(), t[0].launches), ("fft.cu", 210));
        assert!((t[0].time_s - 2.05e-3).abs() < 1e-12, "{}", t[0].time_s);
        assert!((t[0].energy_j.unwrap() - 0.205).abs() < 1e-9);
        assert_eq!(t[0].kernels[0].kernel, "butterfly");
        assert_eq!(t[0].kernels[0].launches, 200);
        assert_eq!(t[0].shares(1), "butterfly 97.6 %, 1 more");
        assert!(t[0].left_out.is_empty() && t[0].adds_anything());
    }

    /// The sums at each clock pair of the entries' DVFS sweeps give the program's least-energy
    /// setting; an entry without a sweep leaves it unknown.
    #[test]
    fn the_least_energy_clocks_are_those_of_the_sums() {
        let mut k = sample::report().kernels.remove(0);
        k.host_runs = vec![run("main.cu", "line 4", Some(10), None)];
        let t = totals(std::slice::from_ref(&k));
        let least = t[0].least_energy.as_ref().unwrap();
        assert_eq!((least.core_mhz, least.mem_mhz), (600.0, 3505.0));
        assert!((least.energy_j - 2.4e-3).abs() < 1e-12);
        assert_eq!(
            t[0].least_energy_shown().unwrap(),
            "least energy at core 600 MHz, memory 3505 MHz: 2.400 mJ (-20.0 %) in 30.000 µs \
             (+20.0 %)"
        );
        let mut swept_out = k.clone();
        swept_out.dvfs.clear();
        swept_out.workload.name = "n=8192".into();
        let t = totals(&[k.clone(), swept_out]);
        assert_eq!((t[0].launches, t[0].least_energy.is_none()), (20, true));
        // the default clocks are already the least
        let mut at_default = k;
        at_default.prediction.energy_j = Some(2.4e-4);
        assert_eq!(
            totals(&[at_default])[0].least_energy_shown().unwrap(),
            "no clock pair of the device takes less energy than the default"
        );
    }

    /// Launches whose runs are unknown or differ are listed, once per launch and reason, and
    /// a file's entries with no energy leave its energy unknown.
    #[test]
    fn uncounted_launches_are_listed_and_missing_energy_is_unknown() {
        let why = "in a host loop whose trips kerncast cannot count (`while (err > tol)`)";
        let mut no_energy = entry(
            "init",
            "n=8",
            1e-6,
            vec![run("main.cu", "line 5", Some(1), None)],
        );
        no_energy.prediction.energy_j = None;
        let ks = vec![
            no_energy,
            entry(
                "jacobi",
                "n=8,k=0",
                2e-6,
                vec![run("main.cu", "line 9", None, Some(why))],
            ),
            entry(
                "jacobi",
                "n=8,k=1",
                2e-6,
                vec![run("main.cu", "line 9", None, Some(why))],
            ),
            entry(
                "other",
                "n=8",
                3e-6,
                vec![run("other.cu", "line 2", Some(4), None)],
            ),
        ];
        let t = totals(&ks);
        assert_eq!(t.len(), 2);
        let main = &t[0];
        assert_eq!((main.launches, main.energy_j), (1, None));
        assert_eq!(
            main.left_out,
            [format!("`jacobi` at line 9, 2 workloads: {why}")]
        );
        assert!(main.adds_anything());
        assert_eq!((t[1].file.as_str(), t[1].launches), ("other.cu", 4));
        assert!((t[1].time_s - 1.2e-5).abs() < 1e-15);
        // one launch, run once, adds nothing to its entry
        let once = totals(&ks[..1]);
        assert!(!once[0].adds_anything());
    }
}
