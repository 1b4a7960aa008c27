//! Workloads: the launch (grid, block) and parameter values a kernel is predicted for.
//!
//! Grid, block and parameter values are small integer expressions over the workload's
//! parameters ([`Expr`]). Why a tiny language: launches are written in terms of the problem size
//! (`grid = n/256`), and the same spec is re-evaluated for every size of the time-vs-size chart
//! and for rank's workload sweeps.

use serde::Serialize;
use std::collections::BTreeMap;

mod expr;
mod runs;
pub use expr::{Div, Expr};
pub use runs::LaunchCount;

/// `s` split at its commas outside brackets and template argument lists, each part trimmed
/// (one empty part when `s` is blank): the terms of a launch, a `dim3(…)` or a generator's
/// arguments.
pub fn split_top(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let (mut depth, mut start, mut k) = (0i32, 0, 0);
    while k < b.len() {
        match b[k] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                out.push(s[start..k].trim().to_string());
                start = k + 1;
            }
            b'<' => {
                if let Some(end) = template_args_close(b, k) {
                    k = end;
                }
            }
            _ => {}
        }
        k += 1;
    }
    out.push(s[start..].trim().to_string());
    out
}

/// The `>` that closes the template argument list opening at `lt` in `b`, as in
/// `t.packed_accessor32<float, 2, RestrictPtrTraits>()`: a `<` right after a name whose
/// brackets balance and whose `>` is followed by `(`, `{` or `::`. A comparison (`i < n, m >
/// k`) has no such `>` and is `None`.
pub(crate) fn template_args_close(b: &[u8], lt: usize) -> Option<usize> {
    let after_name = lt
        .checked_sub(1)
        .is_some_and(|p| b[p].is_ascii_alphanumeric() || b[p] == b'_');
    if !after_name {
        return None;
    }
    let (mut angles, mut parens) = (0i32, 0i32);
    for k in lt..b.len() {
        match b[k] {
            b'<' => angles += 1,
            b'>' if parens == 0 => {
                angles -= 1;
                if angles == 0 {
                    let next = b[k + 1..].iter().position(|c| !c.is_ascii_whitespace());
                    let rest = &b[k + 1 + next.unwrap_or(b.len() - k - 1)..];
                    let call_or_scope = rest.first().is_some_and(|c| matches!(c, b'(' | b'{'))
                        || rest.starts_with(b"::");
                    return call_or_scope.then_some(k);
                }
            }
            b'(' | b'[' => parens += 1,
            b')' | b']' => {
                parens -= 1;
                if parens < 0 {
                    return None;
                }
            }
            b';' | b'{' | b'}' | b'&' | b'|' | b'?' => return None,
            _ => {}
        }
    }
    None
}

/// Whether `key` names a field of one of `params` by its offset: `d+4`.
fn is_field_offset_key(key: &str, params: &[String]) -> bool {
    key.rsplit_once('+').is_some_and(|(p, off)| {
        params.iter().any(|n| n == p.trim()) && off.trim().parse::<u64>().is_ok()
    })
}

/// 1 to 3 launch dimensions; missing ones are 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Dims(pub Vec<Expr>);

impl Dims {
    /// One to three expressions, separated by commas, in parentheses or not: `n/16, n/16`,
    /// `(n / TILE, n / TILE)`, `256`.
    pub fn parse(v: &str) -> Result<Dims, String> {
        let t = v.trim();
        let inner = if t.starts_with('(') && t.ends_with(')') && balanced(&t[1..t.len() - 1]) {
            &t[1..t.len() - 1]
        } else {
            t
        };
        let parts = split_top(inner);
        if parts.is_empty() || parts.iter().all(|p| p.trim().is_empty()) {
            return Err(format!("`{v}` has no dimension"));
        }
        if parts.len() > 3 {
            return Err(format!("`{v}` has more than three dimensions"));
        }
        Ok(Dims(
            parts
                .iter()
                .map(|p| Expr::parse(p.trim()))
                .collect::<Result<_, _>>()?,
        ))
    }

    fn eval(&self, env: &BTreeMap<String, i64>, div: Div) -> Result<[u64; 3], String> {
        let mut out = [1u64; 3];
        for (i, e) in self.0.iter().enumerate().take(3) {
            let v = e.eval(env, div)?;
            if v <= 0 {
                return Err(format!(
                    "launch dimension `{e}` evaluates to {v}, must be >= 1"
                ));
            }
            out[i] = v as u64;
        }
        Ok(out)
    }
}

/// Largest block per dimension and in all, and largest grid per dimension, that CUDA and PTX
/// allow (`.maxntid` 1024; grid x below 2^31, y and z below 2^16).
pub const MAX_BLOCK: [u64; 3] = [1024, 1024, 64];
pub const MAX_BLOCK_THREADS: u64 = 1024;
pub const MAX_GRID: [u64; 3] = [(1 << 31) - 1, 65535, 65535];

/// A launch shape no GPU runs is refused at the door, naming the dimension and the limit: a
/// grid of 0 or of 2^32 blocks, a block of 2048 threads.
pub fn check_launch(grid: [u64; 3], block: [u64; 3]) -> Result<(), String> {
    const AXES: [&str; 3] = ["x", "y", "z"];
    for (i, axis) in AXES.iter().enumerate() {
        if grid[i] == 0 || block[i] == 0 {
            return Err(format!(
                "launch grid {grid:?} block {block:?}: dimension {axis} is 0 (every dimension is at least 1)"
            ));
        }
        if grid[i] > MAX_GRID[i] {
            return Err(format!(
                "launch grid {grid:?}: grid {axis} = {} is more than the {} blocks a GPU launches",
                grid[i], MAX_GRID[i]
            ));
        }
        if block[i] > MAX_BLOCK[i] {
            return Err(format!(
                "launch block {block:?}: block {axis} = {} is more than the {} threads a block has",
                block[i], MAX_BLOCK[i]
            ));
        }
    }
    let threads = block.iter().product::<u64>();
    if threads > MAX_BLOCK_THREADS {
        return Err(format!(
            "launch block {block:?}: {threads} threads per block, more than the {MAX_BLOCK_THREADS} a block has"
        ));
    }
    Ok(())
}

fn balanced(s: &str) -> bool {
    let mut d = 0i32;
    for c in s.chars() {
        match c {
            '(' => d += 1,
            ')' => {
                d -= 1;
                if d < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    d == 0
}

/// A workload as written (in kerncast.toml or a `// kerncast:` annotation): expressions.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadSpec {
    pub name: Option<String>,
    /// In order: later values may refer to earlier ones.
    pub params: Vec<(String, Expr)>,
    pub grid: Dims,
    pub block: Dims,
    pub hints: BTreeMap<String, f64>,
    /// Integer macros of the source (`#define TILE 16`, or a `-D` of the build), visible to the
    /// expressions but not kernel parameters: a launch written `block=(TILE,TILE)` follows the
    /// tile size the kernel is compiled with. Overrides (rank's `--vary TILE=…`) win.
    pub macros: BTreeMap<String, i64>,
    /// How `/` rounds in the grid: up for workloads written for kerncast, down (as C does) for
    /// one read from a launch in host code.
    pub grid_div: Div,
    /// Where the workload was read from, when not from kerncast's own annotations or config
    /// (`the launch at line 12: saxpy<<<(n + 255) / 256, 256>>>`), for the report's notes.
    pub origin: Option<String>,
    /// Contents the emulator gives buffer parameters instead of zeros, by name:
    /// `TYPE:GEN(args)` ([`crate::buffers`]).
    pub buffers: BTreeMap<String, String>,
    /// Names the workload reads that the host code gives no value, and why (`n` is read from a
    /// file), for the errors that ask for them.
    pub unset: BTreeMap<String, String>,
    /// The launches in host code this workload stands for, with how often each runs
    /// ([`WorkloadSpec::runs_note`]); empty for kerncast's own workloads.
    pub launches: Vec<LaunchCount>,
    /// What else the host code tells about it (the occupancy API's answers), for the notes.
    pub notes: Vec<String>,
}

/// A workload with numbers.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Workload {
    pub name: String,
    pub grid: [u64; 3],
    pub block: [u64; 3],
    pub params: BTreeMap<String, i64>,
    pub hints: BTreeMap<String, f64>,
    /// Buffer contents for the emulator (see [`WorkloadSpec::buffers`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub buffers: BTreeMap<String, String>,
}

impl WorkloadSpec {
    /// No parameters, no launch yet, grid `/` rounding up (kerncast's own workloads).
    /// The workload `--workload` selects from `specs`: by index (`0`) or by name; the first
    /// without one.
    pub fn pick(specs: &[WorkloadSpec], which: Option<&str>) -> Option<WorkloadSpec> {
        match which {
            None => specs.first(),
            Some(w) => match w.parse::<usize>() {
                Ok(i) => specs.get(i),
                Err(_) => specs.iter().find(|s| s.name.as_deref() == Some(w)),
            },
        }
        .cloned()
    }

    pub fn empty() -> WorkloadSpec {
        WorkloadSpec {
            name: None,
            params: Vec::new(),
            grid: Dims(vec![]),
            block: Dims(vec![]),
            hints: BTreeMap::new(),
            macros: BTreeMap::new(),
            grid_div: Div::Ceil,
            origin: None,
            buffers: BTreeMap::new(),
            unset: BTreeMap::new(),
            launches: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// What the host code tells about this launch, for the report's notes: where the workload
    /// was read from, and what else it says ([`WorkloadSpec::notes`]).
    pub fn host_notes(&self) -> Vec<String> {
        self.origin
            .iter()
            .map(|o| format!("workload from {o}"))
            .chain(self.notes.iter().cloned())
            .collect()
    }

    /// What follows a resolve error that names an undefined name (`message`): why the host code
    /// gives it no value, where it says, and how to give it one.
    pub fn how_to_set(&self, message: &str) -> String {
        let Some((name, _)) = message
            .strip_prefix("undefined name `")
            .and_then(|r| r.split_once('`'))
        else {
            return String::new();
        };
        let why = self
            .unset
            .get(name)
            .map(|w| format!(" ({w})"))
            .unwrap_or_default();
        // a launch size as written (`(h.size() + 255) / 256`) is no name to give a value
        if !name
            .chars()
            .all(|c| c.is_alphanumeric() || "_.".contains(c))
        {
            return format!(
                "{why}; give the launch's sizes with a `// kerncast: workload …` annotation above \
                 the kernel or a [[kernel.workload]] in kerncast.toml"
            );
        }
        format!("{why}; give it a value with --param {name}=VALUE")
    }

    /// The counter's `message` with why the host code leaves the parameter it asks for unset,
    /// where the launch says (the parameter's argument changes between launches).
    pub fn why_unset(&self, message: String) -> String {
        // anywhere in it: the emulator's, after why the symbolic counter gave up
        let param = message
            .split_once("the counts depend on parameter `")
            .and_then(|(_, r)| r.split_once('`'))
            .map(|(name, _)| name);
        match param.and_then(|p| self.unset.get(p)) {
            Some(why) => message.replacen(
                "which the workload does not set",
                &format!("which the workload does not set ({why})"),
                1,
            ),
            None => message,
        }
    }

    pub fn resolve(&self) -> Result<Workload, String> {
        self.resolve_with(&BTreeMap::new())
    }

    /// The same parameters and launch (two launches in the host code that agree).
    pub fn same_launch(&self, other: &WorkloadSpec) -> bool {
        (&self.params, &self.grid, &self.block) == (&other.params, &other.grid, &other.block)
    }

    /// Resolves with some parameters replaced (rank sweeps and the time-vs-size chart).
    /// [`Self::resolve_with`] for a launch to analyse: a shape no GPU runs (a 0 dimension, a
    /// block over 1024 threads, a grid past the limits) is an error naming the dimension.
    /// Host reading resolves without it: a host may well write such a launch, and the read
    /// only records it.
    pub fn resolve_launch(&self, overrides: &BTreeMap<String, i64>) -> Result<Workload, String> {
        let w = self.resolve_with(overrides)?;
        check_launch(w.grid, w.block)?;
        Ok(w)
    }

    pub fn resolve_with(&self, overrides: &BTreeMap<String, i64>) -> Result<Workload, String> {
        // Overrides that are not parameters of the spec (rank's -D values such as TILE) are
        // visible to the expressions too.
        let mut env: BTreeMap<String, i64> = self
            .macros
            .iter()
            .chain(overrides)
            .filter(|(k, _)| self.params.iter().all(|(p, _)| p != *k))
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        let extra: Vec<String> = env.keys().cloned().collect();
        for (k, e) in &self.params {
            let v = match overrides.get(k) {
                Some(v) => *v,
                None => e.eval(&env, Div::Floor)?,
            };
            env.insert(k.clone(), v);
        }
        let grid = self.grid.eval(&env, self.grid_div)?;
        let block = self.block.eval(&env, Div::Floor)?;
        for k in &extra {
            env.remove(k);
        }
        // a struct field's offset key that repeats its source name (`d+4` for `d.m`) is left
        // out of the label
        let alias = |k: &str| {
            k.contains('+')
                && self
                    .params
                    .iter()
                    .any(|(p, e)| p == k && matches!(e, Expr::Var(v) if env.contains_key(v)))
        };
        let name = self.name.clone().unwrap_or_else(|| {
            if env.is_empty() {
                format!("grid{}x{}x{}", grid[0], grid[1], grid[2])
            } else {
                let shown: Vec<String> = env
                    .iter()
                    .filter(|(k, _)| !alias(k))
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
                if shown.is_empty() {
                    format!("grid{}x{}x{}", grid[0], grid[1], grid[2])
                } else {
                    shown.join(",")
                }
            }
        });
        Ok(Workload {
            name,
            grid,
            block,
            params: env,
            hints: self.hints.clone(),
            buffers: self.buffers.clone(),
        })
    }

    /// The command line's values (`--param n=4096`) set in the workload: a parameter the launch
    /// or annotation gives a value is replaced where it stands, so the expressions after it
    /// follow it; a name the expressions read without defining it (a size the host reads at
    /// run time) is given first, and so is a parameter of the kernel the launch leaves unset
    /// (its argument changes between launches), or a field of one passed by value (`d.m`,
    /// `d+4`). The names it used; a workload read from host code says in its origin which values
    /// the command line gave.
    pub fn set_values(
        &mut self,
        given: &[(String, Expr)],
        kernel_params: &[String],
    ) -> Vec<String> {
        let mut read = self.names_read();
        read.extend(kernel_params.iter().cloned());
        let mut used = Vec::new();
        let mut new = Vec::new();
        for (k, e) in given {
            if let Some(slot) = self.params.iter_mut().find(|(n, _)| n == k) {
                slot.1 = e.clone();
            } else if read.contains(k) || is_field_offset_key(k, kernel_params) {
                new.push((k.clone(), e.clone()));
            } else {
                continue;
            }
            used.push(k.clone());
            if let Some(o) = &mut self.origin {
                o.push_str(&format!(", with {k} = {e} from --param"));
            }
        }
        new.append(&mut self.params);
        self.params = new;
        used
    }

    /// `specs` with the workloads read from host code that are the same launch of the same
    /// instantiation (as command-line values can make a sweep's) merged into the first: its
    /// launches count theirs too. Workloads written for kerncast stay as written.
    pub fn merge_same_launches(specs: Vec<WorkloadSpec>) -> Vec<WorkloadSpec> {
        let mut out: Vec<WorkloadSpec> = Vec::new();
        for w in specs {
            match out
                .iter_mut()
                .find(|o| !o.launches.is_empty() && !w.launches.is_empty() && o.same_launch(&w))
            {
                Some(o) => {
                    // buffers sized by the host's allocations: the largest, as one workload's
                    // launches take it (`host_workloads::spec`)
                    for (key, bytes) in &w.hints {
                        if key.starts_with("buffer_bytes.") {
                            let kept = o.hints.entry(key.clone()).or_insert(*bytes);
                            *kept = kept.max(*bytes);
                        }
                    }
                    o.launches.extend(w.launches)
                }
                None => out.push(w),
            }
        }
        out
    }

    /// Every name the launch and parameter expressions read (a parameter, a macro, a helper).
    pub fn names_read(&self) -> Vec<String> {
        let mut read = Vec::new();
        for e in self.grid.0.iter().chain(&self.block.0) {
            e.vars(&mut read);
        }
        for (_, e) in &self.params {
            e.vars(&mut read);
        }
        read
    }

    /// The independent size parameters: those the grid depends on (directly or through other
    /// parameters) whose own value is a constant. Scaling them scales the problem.
    pub fn size_roots(&self) -> Vec<String> {
        let need = self.needed_by(&self.grid);
        // a block size is no problem size, even where the grid divides by it (OpenCL's
        // ⌈global / local⌉): scaling it would change the kernel's blocks
        let block = self.needed_by(&self.block);
        self.params
            .iter()
            .filter(|(k, e)| {
                let mut v = Vec::new();
                e.vars(&mut v);
                v.is_empty() && need.contains(k) && !block.contains(k)
            })
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// The names `dims` depends on, directly or through the parameters' definitions.
    fn needed_by(&self, dims: &Dims) -> Vec<String> {
        let mut need = Vec::new();
        for e in &dims.0 {
            e.vars(&mut need);
        }
        for (k, e) in self.params.iter().rev() {
            if need.contains(k) {
                e.vars(&mut need);
            }
        }
        need
    }

    /// The parameter that sizes the problem, for the time-vs-size chart: the first declared
    /// parameter the grid depends on, directly or through other parameters.
    pub fn size_param(&self) -> Option<String> {
        let need = self.needed_by(&self.grid);
        let block = self.needed_by(&self.block);
        let sizes = || {
            self.params
                .iter()
                .map(|(k, _)| k)
                .filter(|k| need.contains(k))
        };
        sizes()
            .find(|k| !block.contains(k))
            .or_else(|| sizes().next())
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn dims_are_one_to_three_expressions_with_or_without_parentheses() {
        let n = env(&[("n", 64)]);
        let eval = |s: &str| Dims::parse(s).and_then(|d| d.eval(&n, Div::Floor));
        assert_eq!(eval("(n/16, n/16)"), Ok([4, 4, 1]));
        assert_eq!(eval("n/16, (n + 1) / 2"), Ok([4, 32, 1]));
        assert_eq!(eval("256"), Ok([256, 1, 1]));
        // parentheses around only the first term are that term's
        assert_eq!(eval("(n) / 16, 2"), Ok([4, 2, 1]));
        assert!(Dims::parse("1,2,3,4")
            .unwrap_err()
            .contains("more than three"));
        assert!(Dims::parse(" ").unwrap_err().contains("no dimension"));
    }

    #[test]
    fn command_line_values_replace_a_parameter_or_give_a_name_read() {
        let mut w = WorkloadSpec {
            params: vec![
                ("n".into(), Expr::parse("1<<20").unwrap()),
                ("m".into(), Expr::parse("n/2").unwrap()),
            ],
            grid: Dims::parse("m / local_size").unwrap(),
            block: Dims::parse("local_size").unwrap(),
            ..WorkloadSpec::empty()
        };
        let given = [
            ("n".to_string(), Expr::Int(4096)),
            ("local_size".to_string(), Expr::Int(64)),
            ("unused".to_string(), Expr::Int(1)),
        ];
        assert_eq!(w.set_values(&given, &[]), ["n", "local_size"]);
        let r = w.resolve().unwrap();
        // `m` follows the new `n`
        assert_eq!(
            (r.params["m"], r.grid, r.block),
            (2048, [32, 1, 1], [64, 1, 1])
        );
        // a parameter of the kernel the launch leaves unset is given too
        let given = [
            ("len".to_string(), Expr::Int(7)),
            ("other".to_string(), Expr::Int(1)),
        ];
        assert_eq!(w.set_values(&given, &["len".into()]), ["len"]);
        assert_eq!(w.resolve().unwrap().params["len"], 7);
    }

    #[test]
    fn resolves_params_in_order_and_overrides() {
        let spec = WorkloadSpec {
            params: vec![
                ("n".into(), Expr::parse("1000").unwrap()),
                ("m".into(), Expr::parse("n*2").unwrap()),
            ],
            grid: Dims(vec![Expr::parse("m/256").unwrap()]),
            block: Dims(vec![Expr::parse("256").unwrap()]),
            ..WorkloadSpec::empty()
        };
        let w = spec.resolve().unwrap();
        assert_eq!(w.grid, [8, 1, 1]);
        assert_eq!(w.name, "m=2000,n=1000");
        let w = spec.resolve_with(&env(&[("n", 4096)])).unwrap();
        assert_eq!(w.params["m"], 8192);
        assert_eq!(w.grid, [32, 1, 1]);
        assert_eq!(spec.size_param().as_deref(), Some("n"));
    }
}
