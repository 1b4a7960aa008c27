//! The symbolic counter behind [`Counter`]: `kerncast_passes::count` turns a kernel into exact
//! closed forms once per block size (and per grid where grid-stride loops need a fixed one), and
//! every workload is an evaluation of them, exact at any
//! launch size (no emulation, no extrapolation). A kernel's first workload is counted at its own
//! parameter values instead, which is quicker where one workload is all that is asked for.
//!
//! It is the default wherever its counts are complete, and hands a kernel to the emulator-backed
//! counter otherwise, saying why in the report:
//! - the analysis failed, or ran out of its work budget (isl operations, `--isl-ops`: a count
//!   of work, not a time, so the same kernel is counted the same way on a busy machine); it
//!   runs on its own thread with a large stack, so a deep input cannot overflow the caller's;
//! - the counts depend on data (`trip.`, `branch.`, `pred.` assumptions) that the workload does
//!   not set as hints: the emulator follows the real control flow on its buffers instead of a
//!   documented default;
//! - a bound count is incomplete (`sectors`, `wavefronts`: an access the analysis could not
//!   resolve is not counted, where the emulator counts it), or control flow decided by products
//!   of launch indices and parameters (`nonaffine.`) stays unresolved with the workload's values.

use crate::engine::{Bound, Counter, EmulatorCounter, Prepared};
use crate::param_fields;
use crate::workload::{Workload, WorkloadSpec};
use kerncast_passes::affine;
use kerncast_passes::budget;
use kerncast_passes::count::{self, KernelStats};
use kerncast_passes::ptx::Module;
use kerncast_passes::reuse::Reuse;
use kerncast_passes::stats::{Assumption, BoundStats};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Assumption keys of data-dependent control flow: the counts hold only for their values.
pub(crate) const DATA_DEPENDENT: [&str; 3] = ["trip.", "branch.", "pred."];
/// Assumption keys (added at bind time) of accesses whose sectors or wavefronts were not counted.
const INCOMPLETE: [&str; 2] = ["sectors", "wavefronts"];
/// Assumption keys of control flow that only products of launch indices and parameters decide:
/// `bind` resolves them for the workload, and any it cannot resolve leaves a guess.
const NON_AFFINE: &str = kerncast_passes::domains::NON_AFFINE;

/// Stack of the analysis and binding threads: the counter's recursion follows the nesting of
/// loops and formulas, which the input decides; reserved, not used, unless needed.
const ANALYSIS_STACK_BYTES: usize = 256 << 20;

/// Symbolic counting with an emulator fallback.
pub struct SymbolicCounter {
    pub fallback: EmulatorCounter,
    /// The work budgets of its analyses (by default those of the command line and config).
    pub budgets: budget::Budgets,
}

impl Default for SymbolicCounter {
    fn default() -> Self {
        SymbolicCounter {
            fallback: EmulatorCounter::default(),
            budgets: budget::get(),
        }
    }
}

/// Runs `f` on a thread of its own with [`ANALYSIS_STACK_BYTES`] of stack; a panic is an error
/// naming `what`, not the end of the run.
fn on_analysis_thread<T: Send + 'static>(
    what: &str,
    name: String,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    std::thread::Builder::new()
        .name(name)
        .stack_size(ANALYSIS_STACK_BYTES)
        .spawn(f)
        .map_err(|e| format!("cannot start the {what} thread: {e}"))?
        .join()
        .map_err(|_| format!("the {what} failed (an internal error: it panicked)"))
}

impl Counter for SymbolicCounter {
    fn name(&self) -> &'static str {
        "symbolic"
    }

    fn prepare(&self, m: &Module, kernel: &str) -> Result<Box<dyn Prepared>, String> {
        Ok(Box::new(SymPrepared {
            emu: self.fallback.prepare(m, kernel)?,
            module: Arc::new(m.clone()),
            kernel: kernel.to_string(),
            budgets: self.budgets,
            analyses: Mutex::new(BTreeMap::new()),
            at_workload: Mutex::new(BTreeMap::new()),
            fell_back: Mutex::new(false),
        }))
    }
}

/// Why the symbolic counter did not count a workload.
enum NotCounted {
    /// The emulator counts it instead; the reason goes into the report.
    Fallback(String),
    /// The counts depend on data the workload does not give (these `trip.`/`branch.`/`pred.`
    /// keys); the emulator counts it on zero-filled buffers.
    DependsOnData(Vec<String>),
    /// A parameter the closed forms depend on has no value. The emulator could only run it as
    /// 0, which makes every count a guess, so the workload itself is incomplete: an error.
    MissingParam(String),
}

impl NotCounted {
    /// Why the emulator counts instead, for the report.
    fn why(&self) -> String {
        match self {
            NotCounted::DependsOnData(keys) => format!(
                "counts depend on data ({}; set them as hints to count symbolically: `--hint \
                 {first}=…`, or `hint.{first}=…` on a workload; a trip count, or for a branch 1 \
                 if every thread takes it)",
                keys.join(", "),
                first = keys.first().map_or("KEY", String::as_str)
            ),
            NotCounted::Fallback(why) | NotCounted::MissingParam(why) => why.clone(),
        }
    }

    /// The data-dependent keys, when that is the reason.
    fn data_keys(&self) -> &[String] {
        match self {
            NotCounted::DependsOnData(keys) => keys,
            _ => &[],
        }
    }
}

impl From<String> for NotCounted {
    fn from(why: String) -> Self {
        NotCounted::Fallback(why)
    }
}

/// One analysis per block size (and grid, for a grid-specialised one): the stats, or why
/// they cannot be used.
type Analysis = Result<Arc<KernelStats>, String>;
/// (block, grid for a grid-specialised analysis, whether under [`QUICK_ISL_OPS`]).
type LaunchKey = ([u64; 3], Option<[u64; 3]>, bool);

/// isl operations per context the symbolic count of every workload at once may take before
/// each workload is counted at its own values instead, and the first workload's count at its
/// values before the symbolic count is tried: a four-hundredth of the default budget.
/// Of the 166 test-corpus kernels, 8 need more, for loop bounds that take a min and a max of
/// parameters or a triangle (`banded_matvec`, `conv2d`: 2.4 to 3.8 s symbolically, under 0.1 s
/// at a workload's values). A budget of work, so the choice is the same on any machine.
const QUICK_ISL_OPS: u64 = 500_000;

/// Analyses of a kernel at a workload's own values, at most (the first workload's may take two:
/// within [`QUICK_ISL_OPS`], then the full budget); past them (a `rank` over many points), the
/// full symbolic count, once, serves the rest.
const MOST_AT_WORKLOAD: usize = 16;

struct SymPrepared {
    emu: Box<dyn Prepared>,
    module: Arc<Module>,
    kernel: String,
    budgets: budget::Budgets,
    analyses: Mutex<BTreeMap<LaunchKey, Analysis>>,
    /// Analyses at one workload's values ([`count::analyze_for_workload`]), by workload.
    at_workload: Mutex<BTreeMap<(String, bool), Analysis>>,
    /// Whether any workload fell back (then size sweeps are as costly as the emulator's).
    fell_back: Mutex<bool>,
}

impl SymPrepared {
    /// The budgets of an analysis; `quick`: its isl operations within [`QUICK_ISL_OPS`].
    fn budgets_for(&self, quick: bool) -> budget::Budgets {
        let mut b = self.budgets;
        if quick {
            b.isl_ops = b.isl_ops.min(QUICK_ISL_OPS);
        }
        b
    }

    /// The analysis for `block` (and `grid`, when given), run at most once (other workloads of
    /// the kernel wait for it); `quick`: within [`QUICK_ISL_OPS`].
    fn analysis(&self, block: [u64; 3], grid: Option<[u64; 3]>, quick: bool) -> Analysis {
        let mut memo = self.analyses.lock().map_err(|e| e.to_string())?;
        if let Some(a) = memo.get(&(block, grid, quick)) {
            return a.clone();
        }
        let b = self.budgets_for(quick);
        let opts = count::Options {
            block: Some(block),
            grid,
        };
        let a = self.analyse(b, move |m, k| count::analyze_kernel_with(m, k, &opts));
        memo.insert((block, grid, quick), a.clone());
        a
    }

    /// The analysis at `w`'s own values, run at most once per workload and budget, for at most
    /// [`MOST_AT_WORKLOAD`] analyses; `quick`: within [`QUICK_ISL_OPS`].
    fn analysis_at(&self, w: &count::Workload, quick: bool) -> Analysis {
        let key = (Self::workload_key(w), quick);
        let mut memo = self.at_workload.lock().map_err(|e| e.to_string())?;
        if let Some(a) = memo.get(&key) {
            return a.clone();
        }
        if memo.len() >= MOST_AT_WORKLOAD {
            return Err(format!(
                "more than {MOST_AT_WORKLOAD} workloads: one symbolic count serves them"
            ));
        }
        let at = w.clone();
        let b = self.budgets_for(quick);
        let a = self.analyse(b, move |m, k| count::analyze_for_workload(m, k, &at));
        memo.insert(key, a.clone());
        a
    }

    /// Runs `analyse` on the kernel, on a thread of its own under budgets `b`.
    fn analyse(
        &self,
        b: budget::Budgets,
        analyse: impl FnOnce(&Module, &str) -> Result<KernelStats, count::AnalyzeError> + Send + 'static,
    ) -> Analysis {
        let (m, k) = (self.module.clone(), self.kernel.clone());
        let name = format!("kerncast-count-{k}");
        on_analysis_thread("analysis", name, move || {
            budget::scoped(b, || analyse(&m, &k)).map_err(|e| e.to_string())
        })
        .and_then(|r| r.map_err(|e| format!("analysis failed: {e}")))
        .map(Arc::new)
    }

    /// The analysis that counts `cw`: for a kernel's first workload, the one at `cw`'s values
    /// within [`QUICK_ISL_OPS`] (parameters that are numbers prune the pieces a symbolic count
    /// must carry, so one workload is counted sooner that way: over the 166 predict cases of
    /// the test corpus, a median 16 % less time, with identical output). Otherwise, and for a
    /// kernel's later workloads (an `analyze` of several, a `rank`), the quick symbolic
    /// analysis for the block, which serves them all; where that is costly, the one at `cw`'s
    /// values; the full symbolic one where those fail.
    fn analysis_for(&self, cw: &count::Workload) -> Analysis {
        if self.first_at_values(cw) {
            if let Ok(a) = self.analysis_at(cw, true) {
                return Ok(a);
            }
        }
        self.analysis(cw.block, None, true)
            .or_else(|_| self.analysis_at(cw, false))
            .or_else(|_| self.analysis(cw.block, None, false))
    }

    /// Whether `cw` is the first workload of the kernel (or one already counted at its values)
    /// and no symbolic analysis for its block is at hand.
    fn first_at_values(&self, cw: &count::Workload) -> bool {
        let symbolic_done = self.analyses.lock().is_ok_and(|memo| {
            memo.get(&(cw.block, None, true))
                .or_else(|| memo.get(&(cw.block, None, false)))
                .is_some_and(|a| a.is_ok())
        });
        let at_values = self.at_workload.lock().is_ok_and(|memo| {
            memo.is_empty() || memo.contains_key(&(Self::workload_key(cw), true))
        });
        !symbolic_done && at_values
    }

    fn workload_key(w: &count::Workload) -> String {
        format!("{w:?}")
    }

    /// Symbolic counts for `w`, or the reason the emulator must count it instead.
    fn symbolic(&self, w: &Workload, params: &[String]) -> Result<BoundStats, NotCounted> {
        let unset_in = |ks: &KernelStats| -> Vec<String> {
            ks.assumptions
                .iter()
                .map(|a| a.hint_key.clone())
                .filter(|k| DATA_DEPENDENT.iter().any(|p| k.starts_with(p)))
                .filter(|k| !w.hints.contains_key(k))
                .collect()
        };
        // Source parameter names in declaration order also name the PTX parameters by position.
        let mut cw = count::Workload {
            grid: w.grid,
            block: w.block,
            params: w.params.clone(),
            hints: w.hints.clone(),
            reuse: true,
        };
        let kernel_fn = self.module.kernels().find(|k| k.name == self.kernel);
        let count = kernel_fn.map_or(params.len(), |f| f.params.len());
        for i in 0..count {
            let Some(name) = params
                .get(i)
                .or_else(|| kernel_fn.map(|f| &f.params[i].name))
            else {
                continue;
            };
            // A `param.NAME` hint stands in for a missing value, as it does for the emulator.
            let value = w
                .params
                .get(name)
                .copied()
                .or_else(|| w.hints.get(&format!("param.{name}")).map(|v| *v as i64));
            if let Some(v) = value {
                cw.params.insert(i.to_string(), v);
            }
        }
        if let Some(f) = kernel_fn {
            for (i, offset, v) in param_fields::field_values(w, f, params) {
                cw.params.insert(affine::param_field_symbol(i, offset), v);
            }
        }
        let mut ks = self.analysis_for(&cw)?;
        let mut unset = unset_in(&ks);
        // A grid-stride loop's step is ntid·nctaid: affine, and its trip count exact, only
        // for a fixed grid, so such a kernel is analysed again for this workload's grid.
        if !unset.is_empty() && ks.reads_grid_size() {
            if let Ok(at_grid) = self.analysis(w.block, Some(w.grid), false) {
                if unset_in(&at_grid).is_empty() {
                    ks = at_grid;
                    unset.clear();
                }
            }
        }
        if !unset.is_empty() {
            // one hint sets every assumption that shares its key
            unset.sort();
            unset.dedup();
            return Err(NotCounted::DependsOnData(unset));
        }
        // Binding may analyse again (for the workload's parameter values and grid): under the
        // same budgets as the analysis, on a thread of its own.
        let (bound, b) = (ks.clone(), self.budgets);
        let done = on_analysis_thread("binding", format!("kerncast-bind-{}", self.kernel), {
            move || budget::scoped(b, || bound.bind(&cw))
        })?;
        let mut stats = match done {
            Ok(stats) => stats,
            Err(count::AnalyzeError::MissingParam { name, .. }) => {
                if let Some(f) = kernel_fn.filter(|f| holds_buffer(f, &name)) {
                    // code that tests a pointer's alignment (a vectorised path, a loop up to an
                    // aligned address): the emulator places its buffers as cudaMalloc does
                    return Err(NotCounted::Fallback(format!(
                        "the counts depend on where the buffer `{}` lies (its alignment), and \
                         the emulator places its buffers 256-byte aligned, as cudaMalloc does",
                        user_param_name(&name, Some(f), params).0
                    )));
                }
                return Err(NotCounted::MissingParam(missing_param_message(
                    &name, kernel_fn, params,
                )));
            }
            Err(e) => return Err(format!("binding failed: {e}").into()),
        };
        if let Some(f) = kernel_fn {
            let unset = param_fields::unset_fields(w, f, params);
            if !unset.is_empty() && stats.reuse.is_some() {
                stats.reuse = Some(Reuse::Unavailable(param_fields::unset_fields_reason(
                    &unset,
                )));
            }
        }
        let open: Vec<&str> = stats
            .assumptions
            .iter()
            .filter(|a| a.hint_key.starts_with(NON_AFFINE))
            .map(|a| a.hint_key.as_str())
            .collect();
        if !open.is_empty() {
            return Err(format!(
                "control flow not affine even for this workload's parameters ({})",
                open.join(", ")
            )
            .into());
        }
        let mut missing: Vec<&str> = Vec::new();
        let mut n = 0;
        for a in &stats.assumptions {
            if INCOMPLETE.contains(&a.hint_key.as_str()) {
                n += 1;
                if !missing.contains(&a.what.as_str()) {
                    missing.push(&a.what);
                }
            }
        }
        if n > 0 {
            return Err(
                format!("incomplete counts ({n} access(es)): {}", missing.join("; ")).into(),
            );
        }
        stats.kernel = self.kernel.clone();
        Ok(stats)
    }

    fn note_fallback(&self) {
        if let Ok(mut f) = self.fell_back.lock() {
            *f = true;
        }
    }
}

impl Prepared for SymPrepared {
    fn bind(&self, w: &Workload, params: &[String]) -> Result<BoundStats, String> {
        match self.symbolic(w, params) {
            Ok(stats) => Ok(stats),
            Err(NotCounted::MissingParam(msg)) => Err(msg),
            Err(e) => {
                self.note_fallback();
                let mut stats = self.emu.bind(w, params)?;
                keep_observed_trips(&mut stats, e.data_keys());
                Ok(stats)
            }
        }
    }

    fn bind_spec(
        &self,
        spec: &WorkloadSpec,
        overrides: &BTreeMap<String, i64>,
        params: &[String],
    ) -> Result<Bound, String> {
        let w = spec.resolve_launch(overrides)?;
        match self.symbolic(&w, params) {
            Ok(stats) => Ok(Bound {
                stats,
                notes: vec![
                    "counts from the symbolic counter: closed forms exact at this launch size"
                        .into(),
                ],
                counter: "symbolic".into(),
            }),
            Err(NotCounted::MissingParam(msg)) => Err(msg),
            Err(e) => {
                self.note_fallback();
                let (why, keys) = (e.why(), e.data_keys());
                let mut b = self.emu.bind_spec(spec, overrides, params).map_err(|e| {
                    format!("the symbolic counter failed ({why}), and so did the emulator: {e}")
                })?;
                keep_observed_trips(&mut b.stats, keys);
                let given: Vec<&str> = spec.buffers.keys().map(String::as_str).collect();
                let on = if given.is_empty() {
                    "zero-filled buffers".to_string()
                } else {
                    format!(
                        "the data given for {} (by --buffer or the host code), other buffers zero-filled",
                        given.join(", ")
                    )
                };
                let on_zeros = if keys.iter().any(|k| k.starts_with("trip.")) {
                    format!(
                        " on {on}, so its data-dependent loops ran the trips listed below; \
                         --buffer NAME=TYPE:GEN gives it data like the real one"
                    )
                } else {
                    String::new()
                };
                b.notes.insert(
                    0,
                    format!("symbolic counter not used: {why}; the emulator counted{on_zeros}"),
                );
                Ok(b)
            }
        }
    }

    fn bind_sizes(
        &self,
        spec: &WorkloadSpec,
        overrides: &BTreeMap<String, i64>,
        params: &[String],
        scales: &[f64],
    ) -> Result<Vec<Bound>, String> {
        if self.cheap() {
            let base = spec.resolve_launch(overrides)?;
            let all: Result<Vec<Bound>, String> = scales
                .iter()
                .map(|f| {
                    let o = crate::engine::scaled_overrides(spec, &base, overrides, *f);
                    self.bind_spec(spec, &o, params)
                })
                .collect();
            if self.cheap() {
                return all;
            }
        }
        // The emulator shares its samples across sizes.
        let mut all = self.emu.bind_sizes(spec, overrides, params, scales)?;
        for b in &mut all {
            keep_observed_trips(&mut b.stats, &[]);
        }
        Ok(all)
    }

    fn cheap(&self) -> bool {
        !self.fell_back.lock().map(|f| *f).unwrap_or(true)
    }

    fn counter(&self) -> &'static str {
        "symbolic"
    }
}

/// The emulator lists the mean trips of every loop it ran (`trip.` assumptions): exact, and no
/// assumption, for a loop the symbolic analysis counts in closed form. Keeps those of the loops
/// whose trips depend on data (`data_keys`): what the counts assumed of the data.
/// A data-dependent loop the run never entered is listed too, at 0 trips.
fn keep_observed_trips(stats: &mut BoundStats, data_keys: &[String]) {
    // the emulator names loops that share a source line by their header block too
    // (`trip.k.cu:6.bb4`, an unrolled loop and its remainder)
    let of = |emu_key: &str, key: &str| {
        emu_key == key
            || emu_key
                .strip_prefix(key)
                .is_some_and(|r| r.starts_with(".bb"))
    };
    stats.assumptions.retain(|a| {
        !a.hint_key.starts_with("trip.") || data_keys.iter().any(|k| of(&a.hint_key, k))
    });
    for key in data_keys.iter().filter(|k| k.starts_with("trip.")) {
        if stats.assumptions.iter().all(|a| !of(&a.hint_key, key)) {
            let at = &key["trip.".len()..];
            stats.assumptions.push(Assumption {
                hint_key: key.clone(),
                what: format!(
                    "mean trips per entry of the loop at {at}, which the emulator never entered on its buffers"
                ),
                default: 0.0,
                from_user: false,
                at: Some(at.to_string()),
            });
        }
    }
}

/// The parameter of a PTX name as the user writes it: its source name where the front end knows
/// it, else the PTX name; with the byte offset of a by-value struct's field (`k_param_0+8`).
fn user_param_name<'a>(
    ptx_name: &'a str,
    f: Option<&kerncast_passes::ptx::Function>,
    source_names: &'a [String],
) -> (&'a str, Option<&'a str>) {
    let (base, field) = match ptx_name.rsplit_once('+') {
        Some((b, off)) if off.bytes().all(|c| c.is_ascii_digit()) => (b, Some(off)),
        _ => (ptx_name, None),
    };
    let position = f.and_then(|f| f.params.iter().position(|p| p.name == base));
    let param = position
        .and_then(|i| source_names.get(i))
        .map(String::as_str)
        .unwrap_or(base);
    (param, field)
}

/// Whether the parameter of this PTX name holds a global buffer's address.
fn holds_buffer(f: &kerncast_passes::ptx::Function, ptx_name: &str) -> bool {
    f.param_index(ptx_name)
        .is_some_and(|k| f.global_pointer_params().contains(&k))
}

/// The error for a parameter the counts need and the workload does not set, naming it as the
/// user writes it: the source name where the front end knows it, else the PTX name. A field of a
/// by-value struct (`k_param_0+8`) is named by its parameter and offset (`p+8`).
pub(crate) fn missing_param_message(
    ptx_name: &str,
    f: Option<&kerncast_passes::ptx::Function>,
    source_names: &[String],
) -> String {
    let (param, field) = user_param_name(ptx_name, f, source_names);
    match field {
        None => format!(
            "the counts depend on parameter `{param}`, which the workload does not set; give it a value (`--param {param}=VALUE`, or `{param}=…` in the workload)"
        ),
        Some(off) => {
            let key = crate::param_fields::offset_key(param, off.parse().unwrap_or(0));
            format!(
                "the counts depend on the field at byte {off} of the by-value parameter `{param}`, which the workload does not set; give it a value (`--param {key}=VALUE`, or `{key}=…` or `{param}.FIELD=…` in the workload)"
            )
        }
    }
}

/// The counter this build uses: symbolic, falling back to the emulator per kernel.
pub fn default_counter() -> Box<dyn Counter> {
    Box::new(SymbolicCounter::default())
}

#[cfg(test)]
mod tests {
    use super::{missing_param_message, NotCounted};
    use kerncast_passes::ptx::Module;

    /// Data-dependent counts name the flag that sets them, with the first key.
    #[test]
    fn data_dependent_counts_say_how_to_give_their_hints() {
        let why = NotCounted::DependsOnData(vec![
            "branch.cooperative_groups.h:175".into(),
            "trip.sync.h:126".into(),
        ])
        .why();
        assert_eq!(
            why,
            "counts depend on data (branch.cooperative_groups.h:175, trip.sync.h:126; set them \
             as hints to count symbolically: `--hint branch.cooperative_groups.h:175=…`, or \
             `hint.branch.cooperative_groups.h:175=…` on a workload; a trip count, or for a \
             branch 1 if every thread takes it)"
        );
    }

    #[test]
    fn a_missing_parameter_is_named_as_the_user_writes_it() {
        let m = Module::parse(
            ".version 7.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)\n{\nret;\n}\n",
        )
        .unwrap();
        let f = m.kernels().next();
        let by_source = missing_param_message("k_param_1", f, &["x".into(), "n".into()]);
        assert!(
            by_source.starts_with("the counts depend on parameter `n`,")
                && by_source.contains("`--param n=VALUE`"),
            "{by_source}"
        );
        // PTX input: no source names, so the PTX name is what --param takes.
        let by_ptx = missing_param_message("k_param_1", f, &[]);
        assert!(by_ptx.contains("`--param k_param_1=VALUE`"), "{by_ptx}");
        // a struct's field, as the counter reports it, by the source's parameter name
        let field = missing_param_message("k_param_0+8", f, &["p".into(), "n".into()]);
        assert!(
            field.contains("byte 8 of the by-value parameter `p`")
                && field.contains("`--param p+8=VALUE`"),
            "{field}"
        );
    }
}
