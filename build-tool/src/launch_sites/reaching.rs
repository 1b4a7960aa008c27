//! The value a name assigned more than once has where a launch reads it:
//!
//! ```text
//! int blocks = 0;
//! cudaGetDeviceProperties(&prop, 0);
//! blocks = prop.multiProcessorCount * 4;
//! block_sum<<<blocks, 256>>>(in, out, n);        // blocks = prop.multiProcessorCount * 4
//! n = 1 << 24;
//! block_sum<<<blocks, 256>>>(in, out, n);        // n = 1 << 24 here, 1 << 22 above
//! ```
//!
//! [`super::host_defs`] keeps only what a file defines once, so a name given a value twice was
//! asked for with `--param`. Straight-line code decides it: the last assignment before the
//! launch reaches it when that assignment runs on every path to it. [`add_reaching_values`]
//! takes that value where all of these hold, and leaves the name unknown otherwise:
//!
//! - every write of the name in the file is a plain `=` in the body (no `+=`, `++` or `&n`);
//! - the last one before the launch is a statement of a block that holds the launch, under no
//!   `if`, loop head or `case` label of its own;
//! - no condition or loop head around that block reads the name (it would read an older value);
//! - where a loop around the launch repeats it, no assignment after the launch could reach it
//!   on the next trip.
//!
//! A value that reads another such name (`n = 2 * m;`) reads it where it is assigned, by the same
//! rules; `n = n * 2` reads the value before it. A `dim3` set again (`grid = dim3(…);`, or one
//! component, `grid.x = …;`) and a container made again with a size (a Python script's
//! `x = cp.ones(n)`, shaped as `std::vector<float> x(n);`, as `x.size`) follow the same rules.

use super::branches::{enclosing_brace, guards, statement_start};
use super::c_text::{bare_name, dim3_parts, matching_close};
use super::containers;
use super::host_defs::{assigned_values, assignments, declarators, HostDefs};
use super::host_loops::enclosing_loops_within;
use super::size_fns::substitute;
use super::struct_args;
use crate::c_lex::has_word;
use crate::workload::split_top;
use regex::Regex;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::LazyLock;

/// How deep a value's names are followed back through their own assignments.
const MAX_DEPTH: usize = 8;

/// The plain assignments of each name in a body: where the name is, and the value as written.
type Assignments = BTreeMap<String, Vec<(usize, String)>>;

/// What a body writes that [`add_reaching_values`] reads: the plain assignments of its names
/// and the writes of its `dim3`s (those whose every write in the file is one of them).
pub(super) struct BodyWrites {
    body: Range<usize>,
    found: Assignments,
    dims: BTreeMap<String, Vec<DimWrite>>,
}

impl BodyWrites {
    pub(super) fn of(code: &str, body: Range<usize>) -> BodyWrites {
        BodyWrites {
            found: plain_assignments(code, body.clone()),
            dims: dim_writes(code, body.clone()),
            body,
        }
    }

    /// The names the body assigns more than once: two calls of a helper written alike
    /// (`run(x, n)`) that read one of them may pass different values.
    pub(super) fn reassigned(&self) -> impl Iterator<Item = &String> {
        let scalars = self.found.iter().map(|(n, all)| (n, all.len()));
        let dims = self.dims.iter().map(|(n, all)| (n, all.len()));
        scalars
            .chain(dims)
            .filter(|(_, count)| *count > 1)
            .map(|(name, _)| name)
    }

    fn reader<'a>(&'a self, code: &'a str, defs: &'a HostDefs) -> Reader<'a> {
        Reader {
            code,
            body: self.body.clone(),
            found: &self.found,
            defs,
        }
    }
}

/// `defs` with the value each name assigned more than once in the body of `writes` has at
/// `at`, where one assignment reaches it on every path (module doc). Names in `defs` already
/// and the parameters `params` (bound by the calls) are left as they are.
pub(super) fn add_reaching_values(
    defs: &mut HostDefs,
    code: &str,
    writes: &BodyWrites,
    params: &[String],
    at: usize,
) {
    let reader = writes.reader(code, &*defs);
    let wanted =
        |name: &String, count: usize, known: bool| count > 1 && !known && !params.contains(name);
    // a `dim3`'s whole assignments (`grid = dim3(…)`) are its own, not a scalar's
    let values: Vec<(String, String)> = writes
        .found
        .iter()
        .filter(|(name, all)| {
            let known = defs.scalars.contains_key(*name);
            wanted(name, all.len(), known) && !writes.dims.contains_key(*name)
        })
        .filter_map(|(name, _)| Some((name.clone(), reader.value_at(name, at, 0).ok()?)))
        .collect();
    let dims: Vec<(String, Vec<String>)> = writes
        .dims
        .iter()
        .filter(|(name, all)| wanted(name, all.len(), defs.dims.contains_key(*name)))
        .filter_map(|(name, all)| Some((name.clone(), reader.dim_at(name, all, at).ok()?)))
        .collect();
    defs.scalars.extend(values);
    defs.dims.extend(dims);
}

/// Why no one assignment of `name` in the body of `writes` reaches `at` on every path, for the
/// error that asks for it (`line 14 assigns it after line 13, which the loop at line 12 may run
/// again`); `None` where one does, or where the body does not give `name` its values by plain
/// `=` only.
pub(super) fn why_unknown(
    defs: &HostDefs,
    code: &str,
    writes: &BodyWrites,
    at: usize,
    name: &str,
) -> Option<String> {
    let reader = writes.reader(code, defs);
    if let Some(all) = writes.dims.get(name) {
        return reader.dim_at(name, all, at).err();
    }
    writes.found.get(name)?;
    reader.value_at(name, at, 0).err()
}

/// One write of a `dim3` variable: where it is, and the axis it sets (`grid.x = …`) or `None`
/// for all of them.
#[derive(Debug)]
struct DimWrite {
    at: usize,
    axis: Option<usize>,
    parts: Vec<String>,
}

/// The writes in `body` of each `dim3` variable every write of which in `code` is one of them:
/// declarations (`dim3 grid(a, b);`, at the `dim3`), assignments of a whole value (`grid =
/// dim3(a, b);`) and of one component (`grid.x = a;`).
fn dim_writes(code: &str, body: Range<usize>) -> BTreeMap<String, Vec<DimWrite>> {
    static DECLARED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\bdim3\s+([A-Za-z_][^;]*);").unwrap());
    static ASSIGNED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b([A-Za-z_]\w*)\s*(?:\.\s*([xyz])\s*)?=([^=;][^;]*);").unwrap()
    });
    let scope = &code[body.clone()];
    let mut out: BTreeMap<String, Vec<DimWrite>> = BTreeMap::new();
    let mut broken = Vec::new();
    // `dim3 grid;` is (1, 1, 1), and no write that `assignments` counts
    let mut bare = Vec::new();
    for c in DECLARED.captures_iter(scope) {
        let at = body.start + c.get(0).unwrap().start();
        for name in split_top(&c[1]).iter().filter_map(|d| bare_name(d)) {
            bare.push(name.to_string());
            out.entry(name.to_string()).or_default().push(DimWrite {
                at,
                axis: None,
                parts: Vec::new(),
            });
        }
        for (name, init) in declarators(&c[1]) {
            // `grid(a, b)`, `grid{a, b}` and `grid = dim3(a, b)` are given as `(a, b)` or `{a, b}`
            match dim3_parts(&init) {
                Some(parts) => out.entry(name).or_default().push(DimWrite {
                    at,
                    axis: None,
                    parts,
                }),
                None => broken.push(name),
            }
        }
    }
    for c in ASSIGNED.captures_iter(scope) {
        let name = c[1].to_string();
        let at = body.start + c.get(1).unwrap().start();
        if !out.contains_key(&name) || struct_args::member_of_another(code, at) {
            continue;
        }
        let value = c[3].trim();
        let write = match c.get(2) {
            Some(axis) => Some(DimWrite {
                at,
                axis: "xyz".find(axis.as_str()),
                parts: vec![value.to_string()],
            }),
            None => dim3_parts(value).map(|parts| DimWrite {
                at,
                axis: None,
                parts,
            }),
        };
        match write {
            Some(w) => out.get_mut(&name).expect("declared").push(w),
            None => broken.push(name),
        }
    }
    out.retain(|name, all| {
        all.sort_by_key(|w| w.at);
        let declared_bare = bare.iter().filter(|b| *b == name).count();
        !broken.contains(name) && assignments(code, name) == Some(all.len() - declared_bare)
    });
    out
}

/// Every plain `=` in `body` of a name whose writes in `code` are all of them, and the sizes
/// of the containers made more than once and changed nowhere else (as `x.size`); a value with
/// a top-level comma (`int a = 1, b = 2;`) is not one value, so its name is left out.
fn plain_assignments(code: &str, body: Range<usize>) -> Assignments {
    let mut found = assigned_values(code, body.clone());
    found.retain(|name, all| {
        let one_value_each = all.iter().all(|(_, v)| split_top(v).len() == 1);
        one_value_each && assignments(code, name) == Some(all.len())
    });
    let mut made = Assignments::new();
    let mut without_size = Vec::new();
    for (name, at, size) in containers::declarations(&code[body.clone()]) {
        match size {
            Some(size) => made
                .entry(format!("{name}.size"))
                .or_default()
                .push((body.start + at, size)),
            None => without_size.push(format!("{name}.size")),
        }
    }
    made.retain(|size, all| {
        let name = size.trim_end_matches(".size");
        all.len() > 1
            && !without_size.contains(size)
            && containers::why_no_size(code, name).is_none()
    });
    found.extend(made);
    found
}

struct Reader<'a> {
    code: &'a str,
    body: Range<usize>,
    found: &'a Assignments,
    defs: &'a HostDefs,
}

impl Reader<'_> {
    fn line(&self, at: usize) -> usize {
        self.code[..at].matches('\n').count() + 1
    }

    /// The value of `name` at `at`, as text over names that never change; where no one
    /// assignment reaches `at` on every path, why not.
    fn value_at(&self, name: &str, at: usize, depth: usize) -> Result<String, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "its value reads more than {MAX_DEPTH} assignments back"
            ));
        }
        let Some(all) = self.found.get(name) else {
            return Err(format!(
                "`{name}` is not given its values by plain assignments only"
            ));
        };
        let Some((assigned, value)) = all.iter().rev().find(|(a, _)| *a < at) else {
            return Err(format!(
                "`{name}` has no value before line {}",
                self.line(at)
            ));
        };
        self.runs_on_every_path(name, *assigned, at)?;
        self.not_written_on_a_later_trip(all, at)?;
        self.read_at(value, *assigned, depth + 1)
    }

    /// `text`, written at `at`, with the names it reads that change replaced by their values
    /// there.
    fn read_at(&self, text: &str, at: usize, depth: usize) -> Result<String, String> {
        let mut names = Vec::new();
        let mut values = Vec::new();
        let changing = self.found.iter().filter(|(n, all)| {
            all.len() > 1 && !self.defs.scalars.contains_key(*n) && has_word(text, n)
        });
        for (other, _) in changing {
            names.push(other.clone());
            values.push(self.value_at(other, at, depth)?);
        }
        Ok(substitute(text, &names, &values))
    }

    /// The components of the `dim3` variable `name` at `at`, from its writes `all`: the last
    /// whole value before it, with the components set after it; each write must reach `at` on
    /// every path, as a scalar's assignment must.
    fn dim_at(&self, name: &str, all: &[DimWrite], at: usize) -> Result<Vec<String>, String> {
        let before: Vec<&DimWrite> = all.iter().filter(|w| w.at < at).collect();
        let Some(whole) = before.iter().rposition(|w| w.axis.is_none()) else {
            return Err(format!(
                "`{name}` has no value before line {}",
                self.line(at)
            ));
        };
        let offsets: Vec<(usize, String)> = all.iter().map(|w| (w.at, String::new())).collect();
        self.not_written_on_a_later_trip(&offsets, at)?;
        let mut parts = before[whole].parts.clone();
        parts.resize(parts.len().max(3), "1".to_string());
        for w in &before[whole..] {
            self.runs_on_every_path(name, w.at, at)?;
            let value = |text: &str| self.read_at(text, w.at, 1);
            match w.axis {
                Some(axis) => parts[axis] = value(&w.parts[0])?,
                None => {
                    let whole: Result<Vec<String>, String> =
                        w.parts.iter().map(|p| value(p)).collect();
                    parts = whole?;
                    parts.resize(parts.len().max(3), "1".to_string());
                }
            }
        }
        Ok(parts)
    }

    /// That the assignment of `name` at `assigned` runs before `at` whenever `at` runs, with
    /// the value that the conditions around `at` read; or why not.
    fn runs_on_every_path(&self, name: &str, assigned: usize, at: usize) -> Result<(), String> {
        static CONTROL: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"\b(?:if|else|for|while|do|switch|case|default|return)\b|[^:]:[^:]|[=(?]")
                .unwrap()
        });
        let code = self.code;
        let line = self.line(assigned);
        let start = statement_start(code, assigned);
        if CONTROL.is_match(&format!(" {} ", &code[start..assigned])) {
            return Err(format!(
                "the assignment at line {line}, the last before line {}, runs under a \
                 condition, loop or label of its own",
                self.line(at)
            ));
        }
        let holds_at = enclosing_brace(code, start).filter(|&open| {
            matching_close(code.as_bytes(), open).is_some_and(|close| open < at && at < close)
        });
        let Some(open) = holds_at else {
            return Err(format!(
                "the assignment at line {line}, the last before line {}, is in a block that \
                 ends before it",
                self.line(at)
            ));
        };
        // the heads of the blocks around it ran before it, with an older value
        let older = |head: usize| {
            let text = &code[head..];
            let head = head + text.len() - text.trim_start().len();
            format!(
                "line {} reads it before the assignment at line {line} gives the value",
                self.line(head)
            )
        };
        let mut brace = Some(open);
        while let Some(o) = brace.filter(|&o| o + 1 >= self.body.start) {
            let head = statement_start(code, o);
            if has_word(&code[head..o], name) {
                return Err(older(head));
            }
            brace = enclosing_brace(code, head);
        }
        match guards(code, open).iter().any(|g| has_word(&g.cond, name)) {
            true => Err(older(statement_start(code, open))),
            false => Ok(()),
        }
    }

    /// That no loop around `at` may repeat it after one of the assignments `all` that follow
    /// it, inside that loop; or which does. An assignment after the loops around `at` is never
    /// seen there.
    fn not_written_on_a_later_trip(
        &self,
        all: &[(usize, String)],
        at: usize,
    ) -> Result<(), String> {
        let around = enclosing_loops_within(self.code, at, self.defs, self.body.start);
        if around.is_empty() {
            return Ok(());
        }
        for (later, _) in all.iter().filter(|(a, _)| *a > at) {
            let around_later =
                enclosing_loops_within(self.code, *later, self.defs, self.body.start);
            // the outermost loop around both
            let shared = around.iter().rev().find(|l| {
                around_later
                    .iter()
                    .any(|m| m.line == l.line && m.head == l.head)
            });
            if let Some(outer) = shared {
                return Err(format!(
                    "line {} assigns it after line {}, which the loop at line {} may run again",
                    self.line(*later),
                    self.line(at),
                    outer.line
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch_sites::c_text::code_only;

    /// `main`'s code, the range of its body, the offset of its `LAUNCH` marker, and what the
    /// body defines once.
    fn main_of(src: &str) -> (String, Range<usize>, usize, HostDefs) {
        let code = code_only(src);
        let open = code.find('{').unwrap();
        let close = matching_close(code.as_bytes(), open).unwrap();
        let at = code.find("LAUNCH").unwrap();
        let defs = super::super::host_defs::defs_in(&code[open + 1..close], &code);
        (code, open + 1..close, at, defs)
    }

    /// The value of each name at the `LAUNCH` marker of `main`'s body.
    fn at_launch(src: &str, names: &[&str]) -> Vec<Option<String>> {
        let (code, body, at, mut defs) = main_of(src);
        add_reaching_values(&mut defs, &code, &BodyWrites::of(&code, body), &[], at);
        names
            .iter()
            .map(|n| defs.scalars.get(*n).cloned())
            .collect()
    }

    #[test]
    fn the_last_assignment_on_every_path_reaches_the_launch() {
        let straight = "int main() {\n  int blocks = 0;\n  int n = 1 << 22;\n  \
                        blocks = sms * 4;\n  n = 2 * n;\n  LAUNCH;\n  n = 7;\n}\n";
        assert_eq!(
            at_launch(straight, &["blocks", "n"]),
            [Some("sms * 4".into()), Some("2 * (1 << 22)".into())]
        );
        // in a loop body before the launch, and read nowhere around it
        let in_loop = "int main() {\n  int b = 1;\n  for (int i = 0; i < 4; ++i) {\n    \
                       b = i * 2;\n    LAUNCH;\n  }\n}\n";
        assert_eq!(at_launch(in_loop, &["b"]), [Some("i * 2".into())]);
        // assigned again after the loop around the launch: no trip of it sees that
        let after_loop = "int main() {\n  int n = 1 << 20;\n  for (int i = 0; i < 4; ++i) {\n    \
                          LAUNCH;\n  }\n  n = 1 << 24;\n  for (int i = 0; i < 4; ++i) {\n    \
                          other(n);\n  }\n}\n";
        assert_eq!(at_launch(after_loop, &["n"]), [Some("1 << 20".into())]);
        // a container made again, in its own block and then for the launch
        let remade = "int main() {\n  { std::vector<float> h(16); warm(h.data()); }\n  \
                      std::vector<float> h(4096);\n  LAUNCH;\n}\n";
        assert_eq!(at_launch(remade, &["h.size"]), [Some("4096".into())]);
        let in_branch = remade.replace(
            "{ std::vector<float> h(16)",
            "if (x) { std::vector<float> h(16)",
        );
        assert_eq!(at_launch(&in_branch, &["h.size"]), [Some("4096".into())]);
        let after = "int main() {\n  std::vector<float> h(16);\n  if (x) { std::vector<float> h(4096); }\n  \
                     LAUNCH;\n}\n";
        assert_eq!(at_launch(after, &["h.size"]), [None]);
    }

    #[test]
    fn an_assignment_that_may_not_reach_the_launch_leaves_the_name_unknown() {
        let cases = [
            // under a condition of its own
            "int main() {\n  int n = 1;\n  if (argc > 2) n = 5;\n  LAUNCH;\n}\n",
            // in a block that does not hold the launch
            "int main() {\n  int n = 1;\n  if (x) { n = 5; }\n  LAUNCH;\n}\n",
            // a later trip sees the assignment after the launch
            "int main() {\n  int n = 1;\n  for (int i = 0; i < 3; ++i) {\n    LAUNCH;\n    \
             n = 5;\n  }\n}\n",
            // the loop head reads the value before the assignment in its body
            "int main() {\n  int n = 4;\n  for (int i = 0; i < n; ++i) {\n    n = 2;\n    \
             LAUNCH;\n  }\n}\n",
            // a step is not a plain assignment
            "int main() {\n  int n = 1;\n  n = 3;\n  n++;\n  LAUNCH;\n}\n",
            // a `case` label is a condition
            "int main() {\n  int n = 1;\n  switch (m) {\n  case 1: n = 2;\n    LAUNCH;\n  }\n}\n",
            // two values in one declaration
            "int main() {\n  int n = 1, m = 2;\n  n = 3;\n  LAUNCH;\n}\n",
        ];
        for src in cases {
            assert_eq!(at_launch(src, &["n"]), [None], "{src}");
        }
        let why = |src: &str| {
            let (code, body, at, defs) = main_of(src);
            why_unknown(&defs, &code, &BodyWrites::of(&code, body), at, "n")
        };
        let reasons = [
            "the assignment at line 3, the last before line 4, runs under a condition, loop or \
             label of its own",
            "the assignment at line 3, the last before line 4, is in a block that ends before it",
            "line 5 assigns it after line 4, which the loop at line 3 may run again",
            "line 3 reads it before the assignment at line 4 gives the value",
        ];
        for (src, reason) in cases.iter().zip(reasons) {
            assert_eq!(why(src).as_deref(), Some(reason), "{src}");
        }
        // a step is not a plain assignment: the caller says so (`n` is stepped)
        assert_eq!(why(cases[4]), None);
    }
}
