//! Kernel launches in a CUDA file's host code (and an OpenCL program's, [`opencl`]), read as
//! workloads for the kernels that carry no `kerncast: workload` annotation, so that a whole
//! program (its kernels and the `main` that launches them) is predicted as it stands:
//!
//! ```text
//! const int n = 1 << 20;
//! saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);   // n=1048576, grid 4096, block 256
//! ```
//!
//! A launch gives the grid and the block (an expression, `dim3(…)` or a `dim3` variable), the
//! dynamic shared memory (the third term) and every integer argument whose value the file fixes.
//! Values come from names defined once and changed nowhere, in the launch's function or at file
//! scope: `#define N …`, `const`/`constexpr` declarations, and plain scalar or `dim3`
//! declarations never assigned again, one declarator of a list (`int w = 64, h = 32;`) like a
//! declaration of its own. A struct argument gives the members the host sets (`struct_args`),
//! a launch inside a host helper takes each call of the helper (`callers`), and size helpers
//! such as `div_up(n, 256)` expand (`size_fns`). An argument passed as a bare name is renamed
//! to the kernel's parameter, so that `--param n=…` moves the grid with it. The expressions
//! are C's: `/` rounds down, `sizeof` of a built-in type is its size, integer suffixes
//! (`256u`) are dropped, and casts and `ceil(n / 256.0)` are computed in C's floating types
//! (`crate::workload::expr`). Anything else (a size read from `argv`, a call of an unknown
//! function) stays unresolved: the argument is left unset, and a grid that needs it reports
//! the name it lacks.

mod branches;
pub(crate) mod c_text;
mod callers;
pub mod cl_build;
mod classes;
mod containers;
mod deduce;
mod definer;
mod driver_api;
mod dtypes;
mod graphs;
mod host_defs;
mod host_loops;
mod instantiations;
mod kernel_vars;
mod launch_macros;
mod loop_body;
pub mod nvrtc;
mod occupancy_calls;
mod opencl;
mod passed;
mod range_for;
mod reaching;
mod runtime_api;
mod size_fns;
mod struct_args;
mod sweeps;
pub(crate) mod tensors;

pub use host_defs::{host_defs, HostDefs};
pub use instantiations::for_instantiation;
pub use opencl::with_required_local_size;

use crate::param_fields::SourceField;
use crate::workload::{split_top, Dims, Dispatch, Div, Expr, HostLoop, LaunchCount, WorkloadSpec};
use c_text::{bare_name, c_expr, code_only, dim3_parts, matching_close, matching_open};
use definer::{rename, Definer};
use host_defs::defs_in;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// The definitions a launch sees in one way the host code reaches it, that way to show, and
/// every chain of helper calls (innermost first) that reaches it so ([`HostFile::contexts`]).
type Context = (HostDefs, Option<String>, Vec<Chain>);

/// Helper calls that reach a launch, innermost first, each with what the code at the call sees
/// (for the trips of the loops around it).
type Chain = Vec<(callers::Call, HostDefs)>;

/// How many helpers a launch's sizes are followed out through (`main` → `run` → `step` →
/// `kernel<<<…>>>` is three): deep enough for layered host code, and a bound for recursion.
const MAX_CALL_DEPTH: usize = 4;

/// How many levels a helper that calls itself once (a multigrid V-cycle's `vcycle(x, n / 2,
/// level - 1)`) is followed down, beside [`MAX_CALL_DEPTH`]: its contexts grow one a level, and
/// a size halved at each level is 1 after 32.
const MAX_RECURSION_DEPTH: usize = 32;

/// One `kernel<<<config>>>(args)` of the host code.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchSite {
    /// The kernel as written before `<<<`, namespace and template arguments included.
    pub kernel: String,
    /// 1-based line of the `<<<`.
    pub line: usize,
    /// Byte offset of the `<<<`.
    pub at: usize,
    /// The terms between `<<<` and `>>>`: grid, block, dynamic shared bytes, stream.
    pub config: Vec<String>,
    pub args: Vec<String>,
    /// The launch as written where it is not `<<<…>>>` (an OpenCL enqueue, with the arguments
    /// set before it), for the report to show.
    pub call: Option<String>,
    /// The call of the host helper the launch is in that this launch belongs to (byte offset),
    /// where the kernel it launches is that call's argument.
    pub in_call: Option<usize>,
    /// The conditions that pick this kernel where the launch is through a variable that may
    /// hold others (`auto k = fast ? k_fast : k_slow;`, [`kernel_vars`]).
    pub picked_by: Vec<branches::Guard>,
}

impl LaunchSite {
    /// The kernel's name without namespace or template arguments, as its definition has it.
    pub fn base_name(&self) -> &str {
        let k = self.kernel.split('<').next().unwrap_or(&self.kernel);
        k.rsplit("::").next().unwrap_or(k).trim()
    }

    fn shown(&self) -> String {
        if let Some(call) = &self.call {
            return call.clone();
        }
        format!(
            "{}<<<{}>>>({})",
            self.kernel,
            self.config.join(", "),
            self.args.join(", ")
        )
    }
}

/// Every launch in `text`, in order: its `<<<…>>>`s, and those written through a launch
/// macro ([`launch_macros`]) that `text` or one of `headers` (the project headers it includes)
/// defines.
pub fn launch_sites(text: &str, headers: &[&str]) -> Vec<LaunchSite> {
    let code = code_only(text);
    let mut sites = launch_sites_in(&code);
    let header_code: Vec<String> = headers
        .iter()
        .filter(|h| h.contains("define"))
        .map(|h| code_only(h))
        .collect();
    if code.contains("define") || !header_code.is_empty() {
        sites.extend(launch_macros::launches(&code, &header_code));
        sites.sort_by_key(|s| s.at);
    }
    kernel_vars::resolve(&code, sites)
}

/// Every launch of `text`: `<<<…>>>` (also through the launch macros of `headers`), the CUDA
/// runtime's and driver's launch calls, and OpenCL's enqueues.
fn every_launch(text: &str, headers: &[&str]) -> Vec<LaunchSite> {
    let mut sites = launch_sites(text, headers);
    if opencl::mentions(text) || runtime_api::mentions(text) || driver_api::mentions(text) {
        let code = code_only(text);
        sites.extend(opencl::launches(text, &code));
        sites.extend(runtime_api::launches(text, &code));
        sites.extend(driver_api::launches(text, &code));
        sites.sort_by_key(|s| s.at);
        sites = kernel_vars::resolve(&code, sites);
    }
    sites
}

/// The functions of the C or C++ `text` that call one of the functions `names` it does not
/// define itself (a file with its own `run` calls that one), each once (`""` for a call
/// outside any function); empty where it calls none.
pub fn callers_of(text: &str, names: &[String]) -> Vec<String> {
    let code = code_only(text);
    let mut out: Vec<String> = Vec::new();
    for name in names {
        let Ok(named) = c_text::cached_regex(&format!(r"\b{}\s*\(", regex::escape(name))) else {
            continue;
        };
        let mut calls = Vec::new();
        let mut defined = false;
        for m in named.find_iter(&code) {
            let open = m.end() - 1;
            let after = matching_close(code.as_bytes(), open).map(|c| code[c + 1..].trim_start());
            defined |= after.is_some_and(|a| {
                let a = a.strip_prefix("const").map_or(a, str::trim_start);
                a.starts_with('{')
            });
            if callers::is_call_position(&code[..m.start()]) {
                calls.push(m.start());
            }
        }
        for at in calls.into_iter().filter(|_| !defined) {
            let f = callers::enclosing_function(&code, at).map_or(String::new(), |f| f.name);
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    out
}

/// The first line of `text` (1-based, with its code on one line) that uses the kernel `name`
/// outside a declaration of it: where a launch kerncast does not read may be (a macro from a
/// header, a function pointer), for a kernel none of whose launches was read.
pub fn unread_use(text: &str, name: &str) -> Option<(usize, String)> {
    static DECLARES: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\b__global__\b|\b(?:__)?kernel\s+void\b").unwrap()
    });
    let code = code_only(text);
    code.lines().enumerate().find_map(|(i, line)| {
        let used = crate::c_lex::has_word(line, name) && !DECLARES.is_match(line);
        used.then(|| (i + 1, c_text::one_line(line)))
    })
}

/// The `<<<…>>>` launches of `code` (comments and strings blanked), in order, leaving out those
/// in a `#define`: a launch macro's body is read at its uses.
fn launch_sites_in(code: &str) -> Vec<LaunchSite> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = code[from..].find("<<<") {
        let at = from + k;
        from = at + 3;
        let Some(close) = code[from..].find(">>>").map(|c| from + c) else {
            break;
        };
        let mut end = at;
        while end > 0 && b[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        let mut start = end;
        if start > 0 && b[start - 1] == b'>' {
            start = matching_open(b, start - 1).unwrap_or(start);
        }
        while start > 0 && (b[start - 1].is_ascii_alphanumeric() || b"_:".contains(&b[start - 1])) {
            start -= 1;
        }
        let kernel = code[start..end].trim().to_string();
        let mut open = close + 3;
        while open < b.len() && b[open].is_ascii_whitespace() {
            open += 1;
        }
        if kernel.is_empty() || b.get(open) != Some(&b'(') || launch_macros::in_directive(code, at)
        {
            continue;
        }
        let Some(args_end) = matching_close(b, open) else {
            continue;
        };
        out.push(LaunchSite {
            kernel,
            line: code[..at].matches('\n').count() + 1,
            at,
            config: split_top(&code[from..close]),
            args: split_top(&code[open + 1..args_end]),
            call: None,
            in_call: None,
            picked_by: Vec::new(),
        });
        from = args_end;
    }
    out
}

/// A source file's launches, with the names it defines worked out only when a launch is used.
pub struct HostFile<'a> {
    /// The C or C++ text the launches are read from (a Python host's C-shaped copy).
    text: std::borrow::Cow<'a, str>,
    /// Shown in the workloads' origin when the kernel is defined in another file.
    name: Option<&'a str>,
    sites: Vec<LaunchSite>,
    /// A Python host's loop headers as written; empty for C and C++.
    python_loops: Vec<crate::python_host::PythonLoop>,
    /// Other files appended to the text for the calls they make of its helpers
    /// ([`HostFile::with_callers`]): the first line of each in the text, and its name.
    appended: Vec<(usize, String)>,
    defs: OnceLock<HostDefs>,
    code: OnceLock<String>,
    /// What each function body writes, by body, read once for every launch and call in it.
    writes: std::sync::Mutex<BTreeMap<(usize, usize), std::sync::Arc<reaching::BodyWrites>>>,
}

impl<'a> HostFile<'a> {
    /// The launches of `text`; `name` is the file as the report shows it, given when its
    /// kernels' definitions are elsewhere.
    pub fn new(text: &'a str, name: Option<&'a str>) -> Self {
        Self::with_headers(text, name, &[])
    }

    /// The launches of `text`, those through the launch macros of the project headers it
    /// includes (`headers`, their texts) among them.
    pub fn with_headers(text: &'a str, name: Option<&'a str>, headers: &[&str]) -> Self {
        Self::of_sites(text.into(), name, every_launch(text, headers))
    }

    /// The launches of a Python host (`crate::python_host`), read from its C-shaped copy and
    /// shown as the Python calls they are.
    pub fn python(py: &str, name: Option<&'a str>) -> Self {
        let shaped = crate::python_host::shape(py);
        let mut sites = every_launch(&shaped.text, &[]);
        for site in &mut sites {
            if let Some((_, call)) = shaped.calls.iter().find(|(line, _)| *line == site.line) {
                site.call = Some(call.clone());
            }
        }
        let mut file = Self::of_sites(shaped.text.into(), name, sites);
        file.python_loops = shaped.loops;
        file
    }

    /// The launches of `text` (with the launch macros of `headers`) in the contexts of the
    /// calls that other files, `callers` (shown name, text), make of its helpers:
    /// `launch_add(d, n)` in `main.cpp` of `void launch_add(float *x, int n)` in `kernels.cu`,
    /// whose launch then sees `n` as `main` sets it. The callers are appended to the text,
    /// their lines shown as theirs (`main.cpp:9`); only the launches of `text` itself are read.
    pub fn with_callers(text: &'a str, headers: &[&str], callers: &[(&str, &str)]) -> HostFile<'a> {
        let mut combined = text.to_string();
        let mut appended = Vec::new();
        for (name, caller) in callers {
            if !combined.ends_with('\n') {
                combined.push('\n');
            }
            appended.push((combined.matches('\n').count() + 1, name.to_string()));
            combined.push_str(caller);
        }
        let sites = every_launch(text, headers);
        let mut file = Self::of_sites(combined.into(), None, sites);
        file.appended = appended;
        file
    }

    /// The names of the functions the launches of `kernel` are written in, each once: the
    /// helpers another file may call ([`HostFile::with_callers`]).
    pub fn launching_functions(&self, kernel: &str) -> Vec<String> {
        let base = crate::annotations::template_base(kernel);
        let mut out: Vec<String> = Vec::new();
        for site in self
            .sites
            .iter()
            .filter(|s| crate::annotations::template_base(&s.kernel) == base)
        {
            if let Some(f) = callers::enclosing_function(self.code(), site.at) {
                if !out.contains(&f.name) {
                    out.push(f.name);
                }
            }
        }
        out
    }

    /// A line of the text as the notes show it: `line 9`, or in an appended caller's text
    /// `main.cpp:9`.
    fn place(&self, line: usize) -> String {
        match self.appended.iter().rev().find(|(first, _)| line >= *first) {
            Some((first, name)) => format!("{name}:{}", line - first + 1),
            None => format!("line {line}"),
        }
    }

    fn of_sites(
        text: std::borrow::Cow<'a, str>,
        name: Option<&'a str>,
        sites: Vec<LaunchSite>,
    ) -> Self {
        HostFile {
            text,
            name,
            sites,
            python_loops: Vec::new(),
            appended: Vec::new(),
            defs: OnceLock::new(),
            code: OnceLock::new(),
            writes: Default::default(),
        }
    }

    /// What the body `body` of a function writes ([`reaching::BodyWrites`]).
    fn writes(&self, body: std::ops::Range<usize>) -> std::sync::Arc<reaching::BodyWrites> {
        let mut cache = self.writes.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry((body.start, body.end))
            .or_insert_with(|| std::sync::Arc::new(reaching::BodyWrites::of(self.code(), body)))
            .clone()
    }

    /// The launches of a source file, read as its language is (by its name, `display`):
    /// Python, or C and C++ with the launch macros of the project headers it includes
    /// (`headers`).
    pub fn of_host(text: &'a str, display: &str, name: Option<&'a str>, headers: &[&str]) -> Self {
        if crate::python_host::is_python(std::path::Path::new(display)) {
            Self::python(text, name)
        } else {
            Self::with_headers(text, name, headers)
        }
    }

    pub fn has_launches(&self) -> bool {
        !self.sites.is_empty()
    }

    pub fn name(&self) -> Option<&str> {
        self.name
    }

    /// The distinct workloads of the launches of `kernel` (its source name; a template's
    /// instantiations are launches of it), whose parameters are named `params` and whose
    /// by-value struct parameters have the fields `fields`.
    pub fn workloads(
        &self,
        kernel: &str,
        params: &[String],
        fields: &[SourceField],
    ) -> Vec<WorkloadSpec> {
        let mut out = self.launches(kernel, params, fields).0;
        // a field set by its source name (`p.n`) is read by its offset key (`p+8`)
        for w in &mut out {
            crate::param_fields::alias_fields(w, fields, params);
        }
        out
    }

    /// Why each launch of `kernel` in the file is not predicted: it is in a branch the host
    /// code does not take (`the launch at line 38: … is in a branch not taken: `block_size ==
    /// 16` is false where block_size = 32`).
    pub fn untaken(&self, kernel: &str, params: &[String], fields: &[SourceField]) -> Vec<String> {
        self.launches(kernel, params, fields)
            .1
            .into_iter()
            .filter_map(|w| w.origin)
            .collect()
    }

    /// How often the host code runs `site` in one context: the loops around it, and, in a host
    /// helper, around each call of each of the `chains` of helper calls that context stands for.
    fn launch_counts(
        &self,
        site: &LaunchSite,
        chains: &[Chain],
        defs: &HostDefs,
    ) -> Vec<LaunchCount> {
        let loops_at = |at: usize, defs: &HostDefs| self.as_written(self.loops_around(at, defs));
        let launch_text = format!("{} {}", site.config.join(","), site.args.join(","));
        let line = self.name.map_or(format!("line {}", site.line), |f| {
            format!("{f}:{}", site.line)
        });
        let dispatched = dispatch_around(self.code(), site, defs);
        let count = |at: String, loops: Vec<HostLoop>| LaunchCount {
            at,
            file: self.name.map(String::from),
            line: site.line,
            dispatched: dispatched.clone(),
            reads_counters: loops
                .iter()
                .filter_map(|l| l.counter.clone())
                .filter(|c| crate::c_lex::has_word(&launch_text, c))
                .collect(),
            loops,
        };
        let inside = loops_at(site.at, defs);
        chains
            .iter()
            .map(|chain| {
                let mut loops = inside.clone();
                let mut at = line.clone();
                for (call, at_call) in chain {
                    loops.extend(loops_at(call.at, at_call));
                    at = format!("{at}, {}", call.called_at(&self.place(call.line)));
                }
                count(at, loops)
            })
            .collect()
    }

    /// Why `name` has no value at `site` with `defs`: how the file changes it, and where it
    /// is given values by plain assignments, why none of them reaches the launch on every path.
    fn why_no_value(&self, site: &LaunchSite, defs: &HostDefs, name: &str) -> Option<String> {
        let code = self.code();
        let how = host_defs::why_no_value(code, name)?;
        let why = callers::enclosing_callable(code, site.at)
            .and_then(|f| reaching::why_unknown(defs, code, &self.writes(f.body), site.at, name));
        Some(match why {
            Some(why) => format!("{how}: {why}"),
            None => how,
        })
    }

    /// The loops around `at` in what runs it: its function's, or a passed lambda's, body.
    fn loops_around(&self, at: usize, defs: &HostDefs) -> Vec<HostLoop> {
        let code = self.code();
        let from = callers::enclosing_callable(code, at).map_or(0, |f| f.body.start);
        host_loops::enclosing_loops_within(code, at, defs, from)
    }

    /// A Python host's loops as written in Python, with Python's reason where one cannot be
    /// counted; C and C++ loops as they are.
    fn as_written(&self, mut loops: Vec<HostLoop>) -> Vec<HostLoop> {
        for l in &mut loops {
            if let Some(p) = self.python_loops.iter().find(|p| p.line == l.line) {
                l.head = p.head.clone();
                if let Some(why) = &p.why_not {
                    l.trips = Err(why.clone());
                }
            }
        }
        loops
    }

    /// The launches of `kernel` the host code reaches, and those in branches it does not take
    /// (their origin saying why).
    fn launches(
        &self,
        kernel: &str,
        params: &[String],
        fields: &[SourceField],
    ) -> (Vec<WorkloadSpec>, Vec<WorkloadSpec>) {
        let base = crate::annotations::template_base(kernel);
        let mut live: Vec<WorkloadSpec> = Vec::new();
        let mut dead: Vec<WorkloadSpec> = Vec::new();
        for site in self.sites.iter().filter(|s| s.base_name() == base) {
            let mut guards = branches::guards(self.code(), site.at);
            guards.extend(site.picked_by.iter().cloned());
            for (mut defs, via, chains) in self.contexts(site) {
                self.add_members(&mut defs);
                // the workload with `defs`; a name without a value says why, a loop counter
                // that is not swept why not (`unswept`)
                let at_values = |defs: &HostDefs, unswept: &BTreeMap<String, String>| {
                    let why_no_value = |name: &str| {
                        unswept
                            .get(name)
                            .cloned()
                            .or_else(|| self.why_no_value(site, defs, name))
                    };
                    workload_via(
                        site,
                        params,
                        fields,
                        defs,
                        self.name,
                        via.as_deref(),
                        &why_no_value,
                    )
                };
                let unswept_yet = at_values(&defs, &BTreeMap::new());
                let plan = sweeps::plan(&self.counters_read(site, &chains, &defs, &unswept_yet));
                let mut variants: Vec<(Vec<sweeps::Swept>, HostDefs, WorkloadSpec)> = plan
                    .variants
                    .into_iter()
                    .map(|swept| {
                        let defs = sweeps::defs_at(&defs, &swept);
                        let w = at_values(&defs, &plan.unswept);
                        (swept, defs, w)
                    })
                    .collect();
                // counters whose values change nothing the prediction reads (`s` of a pointer
                // offset `d + s * chunk`): one workload, which the loop repeats
                let mut unread_counters = Vec::new();
                let all_taken = variants
                    .iter()
                    .all(|(_, defs, _)| not_taken(&guards, defs).is_none());
                if variants.len() > 1
                    && all_taken
                    && variants
                        .windows(2)
                        .all(|p| p[0].2.same_kernel_launch(&p[1].2))
                {
                    unread_counters = variants[0].0.iter().map(|s| s.counter.clone()).collect();
                    let w = at_values(&defs, &plan.unswept);
                    variants = vec![(Vec::new(), defs.clone(), w)];
                }
                for (swept, defs, mut w) in variants {
                    w.origin = w.origin.map(|o| sweeps::annotate(&o, &swept));
                    if let Some(why) = not_taken(&guards, &defs) {
                        let launch = format!(
                            "the launch at {}{}: {}{}",
                            self.name.map_or("line ".to_string(), |f| format!("{f}:")),
                            site.line,
                            site.shown(),
                            via.as_ref().map(|v| format!(" in {v}")).unwrap_or_default(),
                        );
                        w.origin = Some(format!(
                            "{} is in a branch the host code does not take: {why}",
                            sweeps::annotate(&launch, &swept)
                        ));
                        dead.push(w);
                        continue;
                    }
                    // a launch the host code repeats, or one of several with this workload, adds
                    // to what the workload's prediction costs per run of the host code
                    let mut counts = self.launch_counts(site, &chains, &defs);
                    sweeps::drop_swept(&mut counts, &swept);
                    for c in &mut counts {
                        c.reads_counters.retain(|r| !unread_counters.contains(r));
                    }
                    w.launches.extend(counts);
                    live.push(w);
                }
            }
        }
        let live = WorkloadSpec::merge_same_launches(live);
        (
            for_instantiation(live, kernel),
            for_instantiation(dead, kernel),
        )
    }

    /// The loops around `site`, and around the calls that reach it where one chain of calls
    /// does, whose counters the launch reads (through the launch, the calls' arguments, or the
    /// workload `w` read with `defs`) and `defs` gives no value: the loops a size sweep runs.
    fn counters_read(
        &self,
        site: &LaunchSite,
        chains: &[Chain],
        defs: &HostDefs,
        w: &WorkloadSpec,
    ) -> Vec<HostLoop> {
        let names = w.names_read();
        // a name without a value whose host definition reads the counter (`n = sizes[i]`)
        let through_unset = |c: &str| {
            w.unset
                .keys()
                .filter_map(|n| defs.scalars.get(n))
                .any(|text| crate::c_lex::has_word(text, c))
        };
        let reads = |text: &str, l: &HostLoop| {
            l.counter.as_ref().is_some_and(|c| {
                (crate::c_lex::has_word(text, c)
                    || names.contains(c)
                    || w.unset.contains_key(c)
                    || through_unset(c))
                    && branches::value(c, defs, &mut BTreeMap::new()).is_none()
            })
        };
        let launch_text = format!("{} {}", site.config.join(","), site.args.join(","));
        let mut out: Vec<HostLoop> = self
            .loops_around(site.at, defs)
            .into_iter()
            .filter(|l| reads(&launch_text, l))
            .collect();
        // the loops around the calls, where every chain of calls has the same ones (a
        // helper that calls what it is passed twice, warm-up and timed, from one sweep)
        let around_calls = |chain: &Chain| -> Vec<HostLoop> {
            chain
                .iter()
                .flat_map(|(call, at_call)| {
                    let args = call.args.join(",");
                    self.loops_around(call.at, at_call)
                        .into_iter()
                        .filter(move |l| reads(&args, l))
                })
                .collect()
        };
        let per_chain: Vec<Vec<HostLoop>> = chains.iter().map(around_calls).collect();
        if let Some(first) = per_chain.first() {
            let lines = |ls: &[HostLoop]| ls.iter().map(|l| l.line).collect::<Vec<_>>();
            if per_chain.iter().all(|c| lines(c) == lines(first)) {
                out.extend(first.iter().cloned());
            }
        }
        self.as_written(out)
    }

    /// The definitions `site` sees, once per distinct call of the host helper it is in (with
    /// that call, `run(a, N) at line 9`, to show, and every call with the same arguments): the
    /// file's, under those of the function the launch is in (two functions may each have their
    /// own `const int n`). The helper's parameters hold the call's arguments, read in the
    /// caller's scope; with no call in the file they hold nothing.
    fn contexts(&self, site: &LaunchSite) -> Vec<Context> {
        let code = self.code();
        let Some(f) = callers::enclosing_callable(code, site.at) else {
            let mut defs = host_defs(&self.text);
            host_defs::add_branch_values(&mut defs, code, 0..code.len());
            return vec![(defs, None, vec![Vec::new()])];
        };
        let mut scoped = self.file_scope_defs().clone();
        overlay(&mut scoped, self.local_defs(&f));
        // a lambda's branches under those of the function it is written in
        let mut bodies = vec![f.body.clone()];
        while let Some(outer) = callers::enclosing_callable(code, bodies[0].start - 1) {
            bodies.insert(0, outer.body);
        }
        for body in bodies {
            host_defs::add_branch_values(&mut scoped, code, body);
        }
        let writes = self.writes(f.body.clone());
        reaching::add_reaching_values(&mut scoped, code, &writes, &f.params, site.at);
        self.add_class_members(&mut scoped, f.at);
        let mut calls = callers::calls(code, &f);
        calls.retain(|c| site.in_call.is_none_or(|at| c.at == at));
        unbind(&mut scoped, &f.params);
        self.called_contexts(&f, calls, scoped, 1, 0)
    }

    /// `defs`, what the body of `f` sees with its parameters unbound, once per distinct way
    /// the file calls `f`: the parameters hold each call's arguments, read in the caller's own
    /// contexts, which are followed out through the helpers that call it up to
    /// [`MAX_CALL_DEPTH`]. A function nothing calls (`main`) keeps `defs`; one without
    /// parameters too, with the chains of calls that reach it for its launch counts.
    fn called_contexts(
        &self,
        f: &callers::Enclosing,
        calls: Vec<callers::Call>,
        defs: HostDefs,
        depth: usize,
        recursion: usize,
    ) -> Vec<Context> {
        if calls.is_empty() {
            return vec![(defs, None, vec![Vec::new()])];
        }
        let chains_from = |call: &callers::Call, at_call: &HostDefs, outer: &[Chain]| {
            outer
                .iter()
                .map(|o| {
                    std::iter::once((call.clone(), at_call.clone()))
                        .chain(o.iter().cloned())
                        .collect()
                })
                .collect::<Vec<Chain>>()
        };
        if f.params.is_empty() && f.template_params.is_empty() {
            let chains = calls
                .iter()
                .flat_map(|call| {
                    self.caller_contexts(call, depth, recursion)
                        .into_iter()
                        .flat_map(|(caller, _, outer)| chains_from(call, &caller, &outer))
                        .collect::<Vec<_>>()
                })
                .collect();
            return vec![(defs, None, chains)];
        }
        let mut out: Vec<Context> = Vec::new();
        // a template's parameters take the arguments the call names
        let params: Vec<String> = f.params.iter().chain(&f.template_params).cloned().collect();
        // calls written alike are one context, unless their arguments read a name their
        // function assigns again (`run(x, n); n = 1 << 24; run(x, n);`) or deduce other types
        let key = |c: &'_ callers::Call| {
            let reads_reassigned =
                callers::enclosing_callable(self.code(), c.at).is_some_and(|g| {
                    self.writes(g.body)
                        .reassigned()
                        .any(|n| c.args.iter().any(|a| crate::c_lex::has_word(a, n)))
                });
            (
                c.args.clone(),
                deduce::template_args(self.code(), f, c),
                reads_reassigned.then_some(c.at),
            )
        };
        let keys: Vec<_> = calls.iter().map(key).collect();
        for (k, call) in calls.iter().enumerate() {
            if keys[..k].contains(&keys[k]) {
                continue;
            }
            // every call with these arguments runs the launch with this workload
            let same: Vec<&callers::Call> = calls
                .iter()
                .zip(&keys)
                .filter(|(_, other)| **other == keys[k])
                .map(|(c, _)| c)
                .collect();
            for (caller, outer_via, outer) in self.caller_contexts(call, depth, recursion) {
                // an argument the call leaves out is the parameter's default
                let mut args = call.args.clone();
                args.extend(f.defaults.iter().skip(args.len()).cloned());
                args.resize(f.params.len(), String::new());
                args.extend(keys[k].1.iter().cloned());
                let chains = same
                    .iter()
                    .flat_map(|c| chains_from(c, &caller, &outer))
                    .collect();
                let d = bound(&params, &args, &defs, caller);
                let via = format!("{} at {}", call.shown(&f.name), self.place(call.line));
                let via = match outer_via {
                    Some(o) => format!("{via}, in {o}"),
                    None => via,
                };
                out.push((d, Some(via), chains));
            }
        }
        out
    }

    /// In a method of a class the file constructs one way: the members its constructor
    /// initialises, as numbers read with the construction's arguments where it is
    /// (`classes`), unless `defs` has them.
    fn add_class_members(&self, defs: &mut HostDefs, at: usize) {
        let code = self.code();
        let Some(m) = classes::members(code, at) else {
            return;
        };
        let mut there = self.file_scope_defs().clone();
        if let Some(g) = callers::enclosing_function(code, m.constructed_at) {
            overlay(&mut there, self.local_defs(&g));
        }
        let mut ctor = HostDefs::default();
        for (param, arg) in &m.params {
            if let Some(v) = branches::value(arg, &there, &mut BTreeMap::new()) {
                ctor.scalars.insert(param.clone(), v.to_string());
            }
        }
        ctor.macros = there.macros.clone();
        ctor.fns = there.fns.clone();
        for (member, init) in &m.values {
            if let Some(v) = branches::value(init, &ctor, &mut BTreeMap::new()) {
                defs.scalars.entry(member.clone()).or_insert(v.to_string());
            }
        }
    }

    /// What the code at `call` sees, once per context of the function it is in: that
    /// function's definitions over the file's, its parameters bound by its own calls. `depth`
    /// counts the helpers followed so far, `recursion` the levels of one calling itself once.
    fn caller_contexts(
        &self,
        call: &callers::Call,
        depth: usize,
        recursion: usize,
    ) -> Vec<Context> {
        let code = self.code();
        let mut caller = self.file_scope_defs().clone();
        let Some(g) = callers::enclosing_callable(code, call.at) else {
            self.add_members(&mut caller);
            return vec![(caller, None, vec![Vec::new()])];
        };
        overlay(&mut caller, self.local_defs(&g));
        let writes = self.writes(g.body.clone());
        reaching::add_reaching_values(&mut caller, code, &writes, &g.params, call.at);
        self.add_members(&mut caller);
        unbind(&mut caller, &g.params);
        let calls_of_g = callers::calls(code, &g);
        // `call` calls the function it is in (it is one of that function's calls), and is its
        // only call there: one level further down a linear recursion
        let linear_recursion = calls_of_g.iter().any(|c| c.at == call.at)
            && calls_of_g.iter().filter(|c| g.body.contains(&c.at)).count() == 1;
        let (depth, recursion, within) = if linear_recursion {
            (depth, recursion + 1, recursion < MAX_RECURSION_DEPTH)
        } else {
            (depth + 1, recursion, depth < MAX_CALL_DEPTH)
        };
        // At the recursion's limit only the calls from outside are followed, so every chain
        // starts where the program does: levels past the limit are not followed.
        let mut outer = match (within, linear_recursion) {
            (true, _) => calls_of_g,
            (false, true) => calls_of_g
                .into_iter()
                .filter(|c| !g.body.contains(&c.at))
                .collect(),
            (false, false) => Vec::new(),
        };
        // a helper calling what it was passed is reached by the calls that pass it
        if let callers::How::Through(t) = &call.how {
            outer.retain(|c| t.passing.contains(&c.at));
        }
        let unbound = linear_recursion.then(|| caller.clone());
        let contexts = self.called_contexts(&g, outer, caller, depth, recursion);
        let Some(unbound) = unbound else {
            return contexts;
        };
        // The level whose values take the call's branch away (`if (level > 0)` at level 0)
        // calls no deeper. Where they do not decide it (`if (n > coarsest)` with `coarsest`
        // read at run time), the recursion is followed no deeper than other helpers are, and
        // past that its parameters are left unbound, so the launch asks for the values.
        let guards = branches::guards(code, call.at);
        let mut kept = Vec::new();
        let mut undecided = false;
        for c in contexts {
            let decided: Vec<Option<bool>> = guards
                .iter()
                .map(|g| branches::decide(g, &c.0).map(|(holds, _)| holds))
                .collect();
            if decided.contains(&Some(false)) {
                continue;
            }
            if !decided.contains(&None) || recursion < MAX_CALL_DEPTH {
                kept.push(c);
            } else {
                undecided = true;
            }
        }
        if undecided {
            kept.extend(self.called_contexts(&g, Vec::new(), unbound, depth, recursion));
        }
        kept
    }

    fn code(&self) -> &str {
        self.code.get_or_init(|| {
            let mut code = code_only(&self.text);
            if opencl::mentions(&self.text) {
                code = opencl::blank_read_only_addresses(&code);
            }
            if runtime_api::mentions(&self.text) {
                code = runtime_api::blank_read_only_addresses(&code);
            }
            if driver_api::mentions(&self.text) {
                code = driver_api::blank_read_only_addresses(&code);
            }
            code
        })
    }

    /// What the file defines outside its functions, with its macros and size helpers. A struct
    /// variable there is left out: any function may change it.
    fn file_scope_defs(&self) -> &HostDefs {
        self.defs.get_or_init(|| {
            let code = self.code();
            let mut d = defs_in(&callers::file_scope(code), code);
            d.structs.clear();
            d.macros = crate::annotations::int_macros(&self.text);
            d.fns = size_fns::size_fns(code);
            d
        })
    }

    /// The members of `defs`' struct and `dim3` variables as scalars (`cfg.n`, `grid.x`), for
    /// expressions that read them.
    fn add_members(&self, defs: &mut HostDefs) {
        for (name, var) in &defs.structs {
            for (member, value) in struct_args::member_values(name, var, &self.text) {
                defs.scalars.entry(member).or_insert(value);
            }
        }
        for (name, parts) in &defs.dims {
            for (k, axis) in ["x", "y", "z"].iter().enumerate() {
                let value = parts.get(k).cloned().unwrap_or_else(|| "1".into());
                defs.scalars
                    .entry(format!("{name}.{axis}"))
                    .or_insert(value);
            }
        }
    }

    /// What the body of `f` defines and never changes; for a lambda, under what the function it
    /// is written in defines, which it captures.
    fn local_defs(&self, f: &callers::Enclosing) -> HostDefs {
        let code = self.code();
        let body = &code[f.body.clone()];
        let mut defs = HostDefs::default();
        if let Some(outer) = callers::enclosing_callable(code, f.at) {
            defs = self.local_defs(&outer);
        }
        // its own statements, not those of the functions and lambdas defined in it (a Python
        // host's `def`s are nested in one C function)
        overlay(&mut defs, defs_in(&callers::file_scope(body), body));
        defs
    }
}

/// `defs` without the values of the names `params` hide: each name, and its members and size
/// (`x.size`, `cfg.n`).
fn unbind(defs: &mut HostDefs, params: &[String]) {
    for p in params.iter().filter(|p| !p.is_empty()) {
        let member = format!("{p}.");
        defs.scalars
            .retain(|name, _| name != p && !name.starts_with(&member));
        defs.dims.remove(p);
    }
}

/// Why a statement under `guards` does not run with the host's values `defs`: the first guard
/// they decide against it, with the values it read. `None` when every guard holds or is
/// undecided.
fn not_taken(guards: &[branches::Guard], defs: &HostDefs) -> Option<String> {
    guards.iter().find_map(|g| {
        let (holds, read) = branches::decide(g, defs)?;
        if holds {
            return None;
        }
        let values: Vec<String> = read.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        let where_ = if values.is_empty() {
            String::new()
        } else {
            format!(" where {}", values.join(", "))
        };
        Some(format!("`{}` is {}{where_}", g.cond, !g.holds))
    })
}

/// `defs` with the parameters `params` holding the call's `args`, read with the `caller`'s
/// definitions, and the caller's names where `defs` has none of its own.
fn bound(params: &[String], args: &[String], defs: &HostDefs, caller: HostDefs) -> HostDefs {
    let mut d = defs.clone();
    // an argument that names what the callee's scope names otherwise
    let shadowed = |a: &str| {
        params
            .iter()
            .chain(defs.scalars.keys())
            .any(|n| crate::c_lex::has_word(a, n))
    };
    for (p, a) in params.iter().zip(args) {
        // an unnamed parameter, or one the call leaves to its default
        if p.is_empty() || a.is_empty() {
            continue;
        }
        // a container's or a tensor's names (`v.size`, `t.sizes[0]`) follow it into the
        // callee, read in the caller, whose names they use and the callee may shadow
        if let Some(arg) = bare_name(a) {
            let prefix = format!("{arg}.");
            let members = caller.scalars.iter().filter_map(|(name, v)| {
                let member = name.strip_prefix(&prefix)?;
                let value = branches::value(v, &caller, &mut BTreeMap::new());
                Some((
                    format!("{p}.{member}"),
                    value.map_or_else(|| v.clone(), |n| n.to_string()),
                ))
            });
            d.scalars.extend(members);
        }
        if let Some(dim) = caller.dims.get(a.as_str()) {
            d.dims.insert(p.clone(), dim.clone());
        } else if a == p {
            // the caller's own `n`, passed on as `n`
            d.scalars
                .extend(caller.scalars.get(p).map(|v| (p.clone(), v.clone())));
        } else if shadowed(a) {
            // `step(x, n / 4)` into `void step(float *x, int n)`: the argument's `n` is the
            // caller's, so it is read there, as a number
            let mut read = BTreeMap::new();
            let v = branches::value(a, &caller, &mut read);
            d.scalars
                .insert(p.clone(), v.map_or_else(|| a.clone(), |v| v.to_string()));
        } else {
            d.scalars.insert(p.clone(), a.clone());
        }
    }
    for (name, v) in caller.scalars {
        d.scalars.entry(name).or_insert(v);
    }
    d
}

/// `inner`'s scalars, `dim3`s and structs hide those of the same names in `outer`.
fn overlay(outer: &mut HostDefs, inner: HostDefs) {
    outer.scalars.extend(inner.scalars);
    outer.dims.extend(inner.dims);
    outer.structs.extend(inner.structs);
    outer.queries.extend(inner.queries);
    outer.lists.extend(inner.lists);
}

/// The workload of `site` for a kernel whose parameters are named `params` (and whose struct
/// parameters have the fields `fields`), with the names the file defines (`defs`, from
/// [`host_defs`]); `file` names the launching file in the origin.
pub fn workload(
    site: &LaunchSite,
    params: &[String],
    fields: &[SourceField],
    defs: &HostDefs,
    file: Option<&str>,
) -> WorkloadSpec {
    workload_via(site, params, fields, defs, file, None, &|_| None)
}

/// [`workload`] for a launch in a host helper, reached through the call `via`.
fn workload_via(
    site: &LaunchSite,
    params: &[String],
    fields: &[SourceField],
    defs: &HostDefs,
    file: Option<&str>,
    via: Option<&str>,
    why_no_value: &dyn Fn(&str) -> Option<String>,
) -> WorkloadSpec {
    // bare names passed to a parameter of another name take the parameter's name
    let mut renames: BTreeMap<String, String> = BTreeMap::new();
    let bare: Vec<Option<&str>> = site.args.iter().map(|a| bare_name(a)).collect();
    for (i, name) in bare.iter().enumerate() {
        let (Some(x), Some(p)) = (name, params.get(i)) else {
            continue;
        };
        let once = bare.iter().filter(|b| b == &&Some(*x)).count() == 1;
        if *x != p && once && defs.scalars.contains_key(*x) && !defs.scalars.contains_key(p) {
            renames.insert(x.to_string(), p.clone());
        }
    }
    // A host name that is also a parameter given another value (`k<<<…>>>(n / 2)` with the
    // host's `n`) goes by another name, so that the parameter and the host value both stay.
    for (i, p) in params.iter().enumerate().take(site.args.len()) {
        let passes_itself = bare[i].is_some_and(|x| x == p || renames.get(x) == Some(p));
        if !passes_itself && defs.scalars.contains_key(p) && !renames.contains_key(p) {
            renames.insert(p.clone(), format!("{p}_host"));
        }
    }
    let back: BTreeMap<&str, &str> = renames
        .iter()
        .map(|(h, p)| (p.as_str(), h.as_str()))
        .collect();
    let parsed = |text: &str| {
        Expr::parse(&c_expr(&branches::settled(text, defs), &defs.fns)).map(|e| rename(e, &renames))
    };
    let parse = |text: &str| parsed(text).ok();
    // a launch size kerncast cannot read, as the name the error asks for, and why
    let unreadable = std::cell::RefCell::new(BTreeMap::new());
    let dims = |term: Option<&String>| -> Dims {
        let term = term.map(|t| t.trim()).unwrap_or("1");
        let parts = match defs.dims.get(term) {
            Some(d) => d.clone(),
            None => dim3_parts(term).unwrap_or_else(|| vec![term.to_string()]),
        };
        Dims(
            parts
                .iter()
                .map(|p| {
                    parsed(p).unwrap_or_else(|why| {
                        let name = unresolved(p);
                        unreadable.borrow_mut().insert(name.clone(), why);
                        Expr::Var(name)
                    })
                })
                .collect(),
        )
    };
    let grid = dims(site.config.first());
    let block = dims(site.config.get(1));
    // the parameters' values, where every name they read has a definition
    let mut args: Vec<(String, Expr)> = Vec::new();
    // where each struct field's value comes from (`p.n = n`), for the report to show
    let mut members: BTreeMap<String, String> = BTreeMap::new();
    // the values kerncast derives rather than reads (a tensor's strides), left out of the label
    let mut derived: Vec<String> = Vec::new();
    for (i, a) in site.args.iter().enumerate() {
        let Some(p) = params.get(i) else { break };
        if let Some(fields) = tensor_accessor_fields(a, p, i, fields) {
            // a field named as the size it reads is given directly
            for (field, e, source) in fields {
                if e != Expr::Var(field.clone()) {
                    if !source.is_empty() {
                        members.insert(field.clone(), source);
                    }
                    if field.contains(".strides[") {
                        derived.push(field.clone());
                    }
                    args.push((field, e));
                }
            }
            continue;
        }
        if let Some(var) = bare[i].and_then(|x| defs.structs.get(x)) {
            for (field, value) in struct_args::field_values(var, i, fields) {
                if let Some(e) = parse(&value) {
                    let member = field.split_once('.').map_or("", |(_, m)| m);
                    members.insert(
                        field.clone(),
                        format!("{}.{member} = {}", a.trim(), value.trim()),
                    );
                    args.push((field, e));
                }
            }
            continue;
        }
        if bare[i].is_some_and(|x| renames.get(x) == Some(p) || x == p) {
            continue; // defined below under the parameter's name
        }
        if let Some(e) = parse(a) {
            args.push((p.clone(), e));
        }
    }
    let mut need: Vec<String> = Vec::new();
    for e in grid
        .0
        .iter()
        .chain(&block.0)
        .chain(args.iter().map(|(_, e)| e))
    {
        e.vars(&mut need);
    }
    for (i, x) in bare.iter().enumerate() {
        if let (Some(x), Some(p)) = (x, params.get(i)) {
            if renames.get(*x) == Some(p) || x == p {
                need.push(p.clone());
            }
        }
    }
    let mut definer = Definer {
        defs,
        kernel: &site.kernel,
        renames: &renames,
        back: &back,
        why_no_value,
        seen: BTreeSet::new(),
        order: Vec::new(),
        sources: Vec::new(),
        unset: BTreeMap::new(),
        queries: Vec::new(),
        pending: Vec::new(),
    };
    for n in need {
        definer.define(&n);
    }
    let Definer {
        mut order,
        mut sources,
        mut unset,
        queries,
        pending,
        ..
    } = definer;
    let is_kernel_value =
        |n: &str| params.iter().any(|p| p == n) || fields.iter().any(|f| f.name == n);
    // a kernel parameter (or a struct's field: an accessor `x` given the tensor `x`, whose
    // `x.sizes[1]` the host makes) that the host computes from a name without a value
    // (`n = t.numel()`) takes its value where the command line gives that name
    let mut deferred: Vec<(String, Expr)> = pending
        .iter()
        .filter(|(name, _, _)| is_kernel_value(name))
        .map(|(name, e, _)| (name.clone(), e.clone()))
        .collect();
    for (name, e, source) in sizing_the_launch(pending, &grid, &block, params) {
        order.push((name, e));
        sources.push(source);
    }
    for (name, why) in unreadable.into_inner() {
        unset.insert(name, format!("kerncast cannot read it: {why}"));
    }
    // the host values C computes as floating-point (`auto a = 2.5f`, `ceil(n / 256.0)`): a
    // launch size may be one where it is whole, a kernel's parameter takes none (counts read a
    // float parameter only through the branches that test it)
    let mut floating: BTreeSet<String> = BTreeSet::new();
    for (name, e) in &order {
        if e.is_floating(&|v| floating.contains(v)) {
            floating.insert(name.clone());
        }
    }
    order.retain(|(name, e)| {
        let float_param = is_kernel_value(name) && floating.contains(name);
        if float_param {
            unset.insert(
                name.clone(),
                format!("its value `{e}` is a floating-point number"),
            );
        }
        !float_param
    });
    let defined: BTreeSet<String> = order
        .iter()
        .map(|(n, _)| n.clone())
        .chain(queries.iter().map(|q| q.name.clone()))
        .chain(defs.macros.keys().cloned())
        .chain([crate::workload::DEVICE_SM_COUNT.to_string()])
        .collect();
    for (p, e) in args {
        let mut vars = Vec::new();
        e.vars(&mut vars);
        // the field `x.sizes[1]` read as the host's `x.sizes[1]`, which is deferred above
        let itself = e == Expr::Var(p.clone()) && deferred.iter().any(|(d, _)| *d == p);
        if defined.contains(&p) || itself || e.is_floating(&|v| floating.contains(v)) {
            if itself {
                sources.extend(members.remove(&p));
            }
            continue;
        }
        match vars.iter().find(|v| !defined.contains(*v)) {
            None => {
                sources.extend(members.remove(&p));
                order.push((p, e));
            }
            Some(v) => {
                let why = unset
                    .get(v)
                    .cloned()
                    .or_else(|| why_no_value(v))
                    .map(|w| format!("; {w}"))
                    .unwrap_or_default();
                unset.insert(p.clone(), format!("its argument reads `{v}`{why}"));
                sources.extend(members.remove(&p));
                deferred.push((p, e));
            }
        }
    }
    let mut hints = BTreeMap::new();
    let shared = site.config.get(2).and_then(|t| parse(t));
    let values = WorkloadSpec {
        params: order.clone(),
        macros: defs.macros.clone(),
        ..empty_spec()
    }
    .resolve();
    if let (Some(shared), Ok(w)) = (shared, values) {
        let mut env = defs.macros.clone();
        env.extend(w.params);
        if let Ok(v) = shared.eval(&env, Div::Floor) {
            hints.insert(
                kerncast_passes::count::DYNAMIC_SHARED_BYTES.to_string(),
                v as f64,
            );
        }
    }
    let order = read_by_the_launch(order, &grid, &block, &is_kernel_value);
    // the host's values the kernel is not given, which the origin lists
    let helpers = order
        .iter()
        .map(|(n, _)| n.clone())
        .chain(queries.iter().map(|q| q.name.clone()))
        .filter(|n| !params.contains(n) && !fields.iter().any(|f| &f.name == n))
        .chain(derived)
        .collect();
    WorkloadSpec {
        params: order,
        grid,
        block,
        hints,
        helpers,
        origin: Some(format!(
            "the launch at {}{}: {}{}{}",
            file.map_or("line ".to_string(), |f| format!("{f}:")),
            site.line,
            site.shown(),
            via.map(|v| format!(" in {v}")).unwrap_or_default(),
            if sources.is_empty() {
                String::new()
            } else {
                format!(", where {}", sources.join(", "))
            }
        )),
        macros: defs.macros.clone(),
        launched_as: Some(instantiations::with_values(&site.kernel, &|arg| {
            let number = branches::value(arg, defs, &mut BTreeMap::new());
            // a type parameter bound by the call (`reduce<float>(…)`, or deduced)
            let builtin = || {
                defs.scalars
                    .get(arg)
                    .filter(|t| crate::param_fields::is_builtin_type(t))
                    .cloned()
            };
            number.map(|v| v.to_string()).or_else(builtin)
        })),
        unset,
        deferred,
        device_queries: queries,
        ..empty_spec()
    }
}

/// Of the host's definitions that read a name without a value, those the grid and block read
/// (directly or through each other) and that are not the kernel's parameters, in their order.
/// The launch cannot be sized without them, so they stay: its error then asks for the name
/// at their root. A kernel parameter's stays out, since the counts may not need it.
fn sizing_the_launch(
    pending: Vec<(String, Expr, String)>,
    grid: &Dims,
    block: &Dims,
    params: &[String],
) -> Vec<(String, Expr, String)> {
    let keep = |name: &str, wanted: &[String]| {
        wanted.iter().any(|w| w == name) && !params.iter().any(|p| p == name)
    };
    let values = pending.iter().map(|(name, e, _)| (name.as_str(), e));
    let wanted = launch_reads(grid, block, values, &keep);
    pending
        .into_iter()
        .filter(|(name, _, _)| keep(name, &wanted))
        .collect()
}

/// `order` without the host values that neither the grid, the block nor a value the kernel is
/// given reads, directly or through each other (`s` of `d + s * chunk` passed to a pointer):
/// launches that differ only in those are the same launch.
fn read_by_the_launch(
    order: Vec<(String, Expr)>,
    grid: &Dims,
    block: &Dims,
    is_kernel_value: &dyn Fn(&str) -> bool,
) -> Vec<(String, Expr)> {
    let keep =
        |name: &str, wanted: &[String]| is_kernel_value(name) || wanted.iter().any(|w| w == name);
    let values = order.iter().map(|(name, e)| (name.as_str(), e));
    let wanted = launch_reads(grid, block, values, &keep);
    order
        .into_iter()
        .filter(|(name, _)| keep(name, &wanted))
        .collect()
}

/// The names the grid and block read, and those the `values` that `keep` keeps read in turn
/// (`keep` sees the names wanted so far). `values` are in the order they read each other: a
/// value reads only values before it, so one walk from the last is enough.
fn launch_reads<'a>(
    grid: &Dims,
    block: &Dims,
    values: impl DoubleEndedIterator<Item = (&'a str, &'a Expr)>,
    keep: &dyn Fn(&str, &[String]) -> bool,
) -> Vec<String> {
    let mut wanted = Vec::new();
    for e in grid.0.iter().chain(&block.0) {
        e.vars(&mut wanted);
    }
    for (name, e) in values.rev() {
        if keep(name, &wanted) {
            e.vars(&mut wanted);
        }
    }
    wanted
}

/// A workload written in C: `/` rounds down in the grid too.
fn empty_spec() -> WorkloadSpec {
    WorkloadSpec {
        grid_div: Div::Floor,
        ..WorkloadSpec::empty()
    }
}

/// A launch term the expressions cannot read stands in the grid as a name, so that the
/// workload's error quotes it ("undefined name `blocks(n)`").
fn unresolved(text: &str) -> String {
    c_text::one_line(text)
}

/// The sizes and strides a PyTorch packed accessor argument (`t.packed_accessor32<float, 2,
/// torch::RestrictPtrTraits>()`) gives the accessor parameter `p` (position `i`, whose layout
/// `fields` has: `p.sizes[k]`), as (field, value, where it comes from): its tensor's sizes
/// (`t.sizes[k]`, which `t.size(k)` reads in host code) and, as for a contiguous tensor, the
/// products of the sizes after each dimension as its strides.
fn tensor_accessor_fields(
    arg: &str,
    p: &str,
    i: usize,
    fields: &[SourceField],
) -> Option<Vec<(String, Expr, String)>> {
    static ACCESSOR: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"^([A-Za-z_]\w*)\s*\.\s*(?:packed_accessor(?:32|64)?|generic_packed_accessor)\s*<",
        )
        .unwrap()
    });
    let tensor = ACCESSOR.captures(arg.trim())?.get(1)?.as_str();
    let size_field = |k: usize| format!("{p}.sizes[{k}]");
    let dims = (0..)
        .take_while(|&k| {
            fields
                .iter()
                .any(|f| f.param == i && f.name == size_field(k))
        })
        .count();
    if dims == 0 {
        return None;
    }
    let size = |k: usize| Expr::Var(format!("{tensor}.sizes[{k}]"));
    let mut out: Vec<(String, Expr, String)> = (0..dims)
        .map(|k| {
            let from = format!("{} = {tensor}.size({k})", size_field(k));
            (size_field(k), size(k), from)
        })
        .collect();
    for k in 0..dims {
        let stride = (k + 1..dims)
            .map(size)
            .reduce(|a, b| Expr::Bin(Box::new(a), '*', Box::new(b)))
            .unwrap_or(Expr::Int(1));
        // one note for all of them
        let from = match k {
            0 => format!(
                "{p}.strides from {tensor}'s sizes, as for a contiguous tensor (kerncast does \
                 not read strides)"
            ),
            _ => String::new(),
        };
        out.push((format!("{p}.strides[{k}]"), stride, from));
    }
    Some(out)
}

/// The PyTorch `AT_DISPATCH_*` macro call whose arguments hold `site`, and the instance it
/// runs where `defs` give the dispatched tensor's dtype (`dtypes`).
fn dispatch_around(code: &str, site: &LaunchSite, defs: &HostDefs) -> Option<Dispatch> {
    static DISPATCH: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\bAT_DISPATCH_\w+\s*\(").unwrap());
    let at = site.at;
    let (m, close) = DISPATCH
        .find_iter(&code[..at.min(code.len())])
        .filter_map(|m| {
            let close = matching_close(code.as_bytes(), m.end() - 1)?;
            (close > at).then_some((m, close))
        })
        .last()?;
    let tensor = dtypes::dispatched_tensor(&code[m.end()..close]);
    let scalar_t = tensor.as_ref().and_then(|t| {
        let code = branches::value(&format!("{t}.dtype"), defs, &mut BTreeMap::new())?;
        dtypes::cpp_type(code)
    });
    Some(Dispatch {
        macro_name: m.as_str().trim_end_matches('(').trim_end().to_string(),
        tensor,
        scalar_t: scalar_t.map(String::from),
        runs: dispatched_instance(&site.kernel, scalar_t),
    })
}

/// The kernel instance a launch in a dispatch runs: the kernel as launched (`k<scalar_t, 4>`)
/// with `scalar_t` the case's type, where every template argument is then a type or number
/// (not `acc_t`, which kerncast does not follow); a kernel launched with no template arguments
/// is the one every case runs.
fn dispatched_instance(kernel: &str, scalar_t: Option<&str>) -> Option<String> {
    let Some((base, args)) = kernel.split_once('<') else {
        return Some(kernel.trim().to_string());
    };
    let args = args.trim_end().strip_suffix('>')?;
    let scalar_t = scalar_t?;
    static SCALAR_T: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\bscalar_t\b").unwrap());
    let args: Vec<String> = split_top(args)
        .iter()
        .map(|a| {
            let a = SCALAR_T.replace_all(a.trim(), scalar_t).into_owned();
            (a == scalar_t || instantiations::literal_template_arg(&a)).then_some(a)
        })
        .collect::<Option<_>>()?;
    Some(format!("{}<{}>", base.trim(), args.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &str, params: &[&str]) -> WorkloadSpec {
        let sites = launch_sites(src, &[]);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let params: Vec<String> = params.iter().map(|s| s.to_string()).collect();
        workload(&sites[0], &params, &[], &host_defs(src), None)
    }

    #[test]
    fn a_use_of_a_kernel_that_is_no_launch_kerncast_reads_is_found() {
        let src = "__global__ void vec_kernel(int *x) {}\n// vec_kernel below\nint main() {\n  LAUNCH(vec_kernel, 4, 64, x);\n}\n";
        assert_eq!(
            unread_use(src, "vec_kernel"),
            Some((4, "LAUNCH(vec_kernel, 4, 64, x);".to_string()))
        );
        assert_eq!(unread_use(src, "vec"), None);
    }

    #[test]
    fn a_launch_with_constant_sizes_resolves() {
        let src = r#"
int main() {
    const int n = 1 << 20;   // elements
    float *x, *y;
    cudaMalloc(&x, n * sizeof(float));
    saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
}
"#;
        let spec = one(src, &["n", "a", "x", "y"]);
        let w = spec.resolve().unwrap();
        // C's division: (n + 255) / 256 is exactly n / 256 blocks
        assert_eq!((w.grid, w.block), ([4096, 1, 1], [256, 1, 1]));
        assert_eq!(w.params["n"], 1 << 20);
        assert_eq!(
            spec.origin.as_deref(),
            Some(
                "the launch at line 6: saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y), \
                 where n = 1 << 20"
            )
        );
        // --param n=1000 moves the grid with it
        let w = spec.resolve_with(&[("n".into(), 1000)].into()).unwrap();
        assert_eq!(w.grid, [4, 1, 1]);
    }

    #[test]
    fn dim3_variables_defines_and_renamed_arguments() {
        let src = r#"
#define N 2048
#define TILE 16
void run(float *a, float *b, float *c) {
    int rows = N / 2;
    dim3 block(TILE, TILE);
    dim3 grid(N / TILE, rows / TILE);
    matmul<<<grid, block, 2 * TILE * TILE * sizeof(float)>>>(a, b, c, N, rows);
}
"#;
        let spec = one(src, &["a", "b", "c", "n", "m"]);
        let w = spec.resolve().unwrap();
        assert_eq!((w.grid, w.block), ([128, 64, 1], [16, 16, 1]));
        assert_eq!((w.params["n"], w.params["m"]), (2048, 1024));
        assert_eq!(
            w.hints[kerncast_passes::count::DYNAMIC_SHARED_BYTES],
            2048.0
        );
        // TILE stays a macro, so `rank --vary TILE=…` recompiles the kernel with it
        assert!(spec.params.iter().all(|(p, _)| p != "TILE"));
        assert_eq!(spec.macros["TILE"], 16);
        // the renamed size drives the grid: m (host `rows`) halves the grid's y
        let w = spec.resolve_with(&[("m".into(), 512)].into()).unwrap();
        assert_eq!(w.grid, [128, 32, 1]);
    }

    #[test]
    fn a_launch_with_template_arguments_is_its_instantiation() {
        let src = r#"
#define B 128
int main() {
    const size_t m = 1 << 26;
    fill<float><<<2048, 256>>>(a, 1.0f, m);
    fill< double ><<<2048, 256>>>(b, 1.0, m / 2);
    tsum<B><<<64, B>>>(x, out);
}
"#;
        let host = HostFile::new(src, None);
        let params = ["x".to_string(), "v".into(), "n".into()];
        let n_of = |kernel: &str| -> Vec<i64> {
            host.workloads(kernel, &params, &[])
                .iter()
                .map(|w| w.resolve().unwrap().params["n"])
                .collect()
        };
        assert_eq!(n_of("fill<float>"), [1 << 26]);
        assert_eq!(n_of("fill<double>"), [1 << 25]);
        // an instantiation every launch names another is not launched
        assert!(n_of("fill<int>").is_empty());
        // a macro argument is its value
        assert_eq!(host.workloads("tsum<128>", &params, &[]).len(), 1);
    }

    #[test]
    fn instantiations_launched_alike_each_keep_their_launch() {
        let src = "int main() {\n  if (b == 16) k<16><<<64, 256>>>(x);\n  else k<32><<<64, 256>>>(x);\n}\n";
        let host = HostFile::new(src, None);
        let all = host.workloads("k", &["x".to_string()], &[]);
        assert_eq!(all.len(), 2);
        let of = |entry: &str| -> Vec<Option<String>> {
            for_instantiation(all.clone(), entry)
                .into_iter()
                .map(|w| w.launched_as)
                .collect()
        };
        assert_eq!(of("k<32>"), [Some("k<32>".to_string())]);
        // as the demangler names an unsigned argument
        assert_eq!(of("k<(unsigned int)32>"), [Some("k<32>".to_string())]);
        assert_eq!(of("k<16>"), [Some("k<16>".to_string())]);
    }

    #[test]
    fn a_launch_in_a_helper_takes_each_call_of_it() {
        let src = r#"
const int n = 64;   // not the helper's n
void run_vadd(const float *a, float *c, int n) {
    const int threads = 256;
    vadd<<<(n + threads - 1) / threads, threads>>>(a, c, n);
}
void untouched(int m) { vadd<<<m, 32>>>(x, y, m); }
int main() {
    const int N = 1 << 24;
    run_vadd(a, c, N);
    run_vadd(a, c, N / 2);
    run_vadd(a, c, N);
}
"#;
        let host = HostFile::new(src, None);
        let ws = host.workloads("vadd", &["a".into(), "c".into(), "n".into()], &[]);
        let ns: Vec<i64> = ws
            .iter()
            .filter_map(|w| w.resolve().ok())
            .map(|w| w.params["n"])
            .collect();
        // two distinct calls, each its own workload; `m` of the helper nobody calls is asked for
        assert_eq!(ns, [1 << 24, 1 << 23]);
        assert_eq!(ws.len(), 3);
        assert!(
            ws[0].origin.as_deref().is_some_and(|o| o.contains(
                "vadd<<<(n + threads - 1) / threads, threads>>>(a, c, n) in run_vadd(a, c, N) at line 10, where N = 1 << 24, n = N"
            )),
            "{:?}",
            ws[0].origin
        );
        let err = ws[2].resolve().unwrap_err();
        assert!(err.contains("undefined name `m`"), "{err}");
    }

    /// The loops around a helper's calls repeat its launch, as the loops inside it do; calls
    /// with the same arguments add up.
    #[test]
    fn the_loops_around_a_helpers_calls_repeat_its_launch() {
        let src = r#"void step(float *x, int n) { k<<<n / 256, 256>>>(x, n); }
void reset() { for (int i = 0; i < 2; ++i) k<<<1, 32>>>(0, 32); }
int main() {
  const int n = 1 << 20;
  float *x;
  for (int t = 0; t < 10; ++t) {
    step(x, n);
  }
  step(x, n);
  reset(); reset(); reset();
}
"#;
        let host = HostFile::new(src, None);
        let ws = host.workloads("k", &["x".into(), "n".into()], &[]);
        let notes: Vec<String> = ws.iter().filter_map(|w| w.runs_note(1e-3, None)).collect();
        assert_eq!(
            notes,
            [
                "the host code runs this launch 11 times (line 1, called at line 7: 10 times, in \
                 `for (int t = 0; t < 10; ++t)`; line 1, called at line 9: once): 11.000 ms in all",
                "the host code runs this launch 6 times (3 × line 2, called at line 10: 2 times, \
                 in `for (int i = 0; i < 2; ++i)`): 6.000 ms in all"
            ]
        );
    }

    /// Sizes and loops reach a launch through helpers that call helpers: each level's
    /// parameters take its calls' arguments, read in its caller's contexts; a call right after
    /// a `for (…)` head is a call.
    #[test]
    fn a_launch_two_helpers_deep_takes_main_s_sizes_and_loops() {
        let src = r#"void launch_scale(float *x, float a, int m) { k<<<(m + 255) / 256, 256>>>(x, m); }
void step(float *x, int n) {
  for (int r = 0; r < 3; ++r) launch_scale(x, 0.5f, n);
  launch_scale(x, 2.0f, 2 * n);
}
int main() {
  const int n = 1 << 20;
  float *x;
  for (int it = 0; it < 10; ++it) step(x, n);
  step(x, n / 4);
}
"#;
        let host = HostFile::new(src, None);
        let ws = host.workloads("k", &["x".into(), "m".into()], &[]);
        let ms: Vec<i64> = ws
            .iter()
            .map(|w| w.resolve().unwrap().params["m"])
            .collect();
        assert_eq!(ms, [1 << 20, 1 << 18, 1 << 21, 1 << 19]);
        assert_eq!(
            ws[0].origin.as_deref(),
            Some(
                "the launch at line 1: k<<<(m + 255) / 256, 256>>>(x, m) in \
                 launch_scale(x, 0.5f, n) at line 3, in step(x, n) at line 9, where n = 1 << 20, \
                 m = n"
            )
        );
        assert_eq!(
            ws[0].runs_note(1e-3, None).unwrap(),
            "the host code runs this launch 30 times (line 1, called at line 3, called at line 9: \
             3 × 10 = 30 times, in `for (int r = 0; r < 3; ++r)` inside `for (int it = 0; it < \
             10; ++it)`): 30.000 ms in all"
        );
        assert_eq!(
            ws[1].runs_note(1e-3, None).unwrap(),
            "the host code runs this launch 3 times (line 1, called at line 3, called at line 10: \
             3 times, in `for (int r = 0; r < 3; ++r)`): 3.000 ms in all"
        );
    }

    /// A launch in a method reads a member its constructor sets from the one construction,
    /// and the method's calls on the object (`s.run(…)`) reach it with their loops.
    #[test]
    fn a_launch_in_a_method_takes_its_members_and_its_object_s_calls() {
        let src = r#"class Solver {
public:
  explicit Solver(int n) : n_(n), blocks_((n + 255) / 256) {}
  void step(float *u) { k<<<blocks_, 256>>>(u, n_); }
  void run(float *u, int iters) { for (int it = 0; it < iters; ++it) step(u); }
private:
  int n_, blocks_;
};
int main() {
  const int n = 1 << 22;
  float *u;
  Solver s(n);
  s.run(u, 100);
}
"#;
        let host = HostFile::new(src, None);
        let ws = host.workloads("k", &["u".into(), "n".into()], &[]);
        assert_eq!(ws.len(), 1, "{ws:?}");
        let w = ws[0].resolve().unwrap();
        assert_eq!((w.params["n"], w.grid), (1 << 22, [16384, 1, 1]));
        assert_eq!(
            ws[0].runs_note(1e-3, None).unwrap(),
            "the host code runs this launch 100 times (line 4, called at line 5, called at line \
             13: 100 times, in `for (int it = 0; it < iters; ++it)`): 100.000 ms in all"
        );
    }

    #[test]
    fn a_parameter_named_like_a_host_value_takes_its_argument() {
        let src = "int main() {\n  const int n = 1000000;\n  scale<<<(n / 2 + 127) / 128, 128>>>(x, n / 2);\n}\n";
        let w = one(src, &["x", "n"]).resolve().unwrap();
        assert_eq!((w.params["n"], w.params["n_host"]), (500000, 1000000));
        assert_eq!(w.grid, [3907, 1, 1]);
    }

    /// A value the host reads at run time (a tensor's size) keeps the parameters computed from
    /// it: they take their values where the command line gives it, and stay unset where not.
    #[test]
    fn a_parameter_computed_from_a_name_without_a_value_follows_it() {
        let src = "torch::Tensor f(torch::Tensor t, torch::Tensor u) {\n  const int64_t n = t.numel();\n  \
                   k<<<(n + 255) / 256, 256>>>(t.data_ptr<float>(), n, u.size(1) * 2);\n}\n";
        let mut spec = one(src, &["x", "n", "m"]);
        assert!(
            spec.unset["n"].contains("reads `t.numel`"),
            "{:?}",
            spec.unset
        );
        assert!(spec.resolve().unwrap_err().contains("`n`"));
        spec.set_values(
            &[
                ("t.numel".into(), Expr::Int(1000)),
                ("u.sizes[1]".into(), Expr::Int(8)),
            ],
            &["x".into(), "n".into(), "m".into()],
        );
        let w = spec.resolve().unwrap();
        assert_eq!((w.grid[0], w.params["n"], w.params["m"]), (4, 1000, 16));
        // without the second size, `m` stays unset and the rest resolves
        let mut spec = one(src, &["x", "n", "m"]);
        spec.set_values(&[("t.numel".into(), Expr::Int(1000))], &[]);
        let w = spec.resolve().unwrap();
        assert!(!w.params.contains_key("m"));
    }

    #[test]
    fn a_dispatch_case_names_its_instance_where_the_template_arguments_resolve() {
        assert_eq!(
            dispatched_instance("add_kernel<scalar_t>", Some("c10::Half")),
            Some("add_kernel<c10::Half>".into())
        );
        assert_eq!(
            dispatched_instance("ns::k<scalar_t, 256>", Some("float")),
            Some("ns::k<float, 256>".into())
        );
        // every case launches the same kernel, whatever the dtype
        assert_eq!(dispatched_instance("relu", None), Some("relu".into()));
        assert_eq!(dispatched_instance("k<scalar_t>", None), None);
        assert_eq!(dispatched_instance("k<acc_t>", Some("float")), None);
    }

    #[test]
    fn a_tensor_s_shape_follows_it_into_the_helper_it_is_passed_to() {
        // the helper's own `n` shadows the caller's, which the tensor's size is written with
        let src = "void scale(torch::Tensor x, torch::Tensor v) {\n  const long n = x.numel();\n  \
                   k<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), n, x.size(-1) + v.size(0));\n}\n\
                   void run(long n) {\n  auto t = torch::randn({n, 64});\n  auto w = at::zeros({8});\n  \
                   scale(t, w);\n}\n\
                   int main() { run(1 << 10); }\n";
        let params: Vec<String> = ["x", "n", "m"].iter().map(|s| s.to_string()).collect();
        let specs = HostFile::new(src, None).workloads("k", &params, &[]);
        assert_eq!(specs.len(), 1, "{specs:#?}");
        let w = specs[0].resolve().unwrap();
        assert_eq!((w.grid[0], w.params["n"], w.params["m"]), (256, 65536, 72));
    }

    #[test]
    fn another_file_s_call_of_a_launcher_binds_it_and_shows_its_own_lines() {
        let kernels = "void run(float *x, int n) {\n  k<<<n / 256, 256>>>(x, n);\n}\n";
        let main = "void run(float *x, int n);\nint main() {\n  run(x, 4096);\n}\n";
        let params: Vec<String> = ["x", "n"].iter().map(|s| s.to_string()).collect();
        let alone = HostFile::new(kernels, None);
        assert_eq!(alone.launching_functions("k"), ["run"]);
        assert!(alone.workloads("k", &params, &[])[0].resolve().is_err());
        let run = ["run".to_string()];
        assert_eq!(callers_of(main, &run), ["main"]);
        assert!(callers_of("void run(float *x, int n);\n", &run).is_empty());
        // a file with a `run` of its own calls that one
        let own_run = "void run(float *x, int n) { }\nint main() {\n  run(x, 4096);\n}\n";
        assert!(callers_of(own_run, &run).is_empty());
        let with = HostFile::with_callers(kernels, &[], &[("main.cpp", main)]);
        let specs = with.workloads("k", &params, &[]);
        assert_eq!(specs.len(), 1, "{specs:#?}");
        assert_eq!(specs[0].resolve().unwrap().grid, [16, 1, 1]);
        assert!(
            specs[0]
                .origin
                .as_deref()
                .unwrap()
                .contains("in run(x, 4096) at main.cpp:3"),
            "{:?}",
            specs[0].origin
        );
        // the caller's own launches are not the file's
        let launching = "int main() {\n  k<<<1, 32>>>(x, 32);\n  run(x, 4096);\n}\n";
        let with = HostFile::with_callers(kernels, &[], &[("main.cpp", launching)]);
        assert_eq!(with.workloads("k", &params, &[]).len(), 1);
    }

    #[test]
    fn each_launch_sees_its_own_function_and_the_file() {
        let src = r#"
const int threads = 128;
void small() {
    const int n = 1024;
    k<<<n / threads, threads>>>(n);
}
void large() {
    const int n = 1 << 20;
    k<<<n / threads, threads>>>(n);
}
void read() {
    int n;
    std::cin >> n;
    k<<<n / threads, threads>>>(n);
}
"#;
        let host = HostFile::new(src, None);
        let ws = host.workloads("k", &["n".to_string()], &[]);
        let ns: Vec<Result<i64, String>> = ws
            .iter()
            .map(|w| w.resolve().map(|w| w.params["n"]))
            .collect();
        // the n read at run time is not another function's n
        assert_eq!(ns.len(), 3);
        assert_eq!(ns[..2], [Ok(1024), Ok(1 << 20)]);
        assert!(
            ns[2]
                .as_ref()
                .is_err_and(|e| e.contains("undefined name `n`")),
            "{ns:?}"
        );
    }

    #[test]
    fn members_of_a_host_struct_are_values() {
        let src = r#"
struct Config { int n; int iters; };
int main() {
    Config cfg{1 << 20, 10};
    Opts o;
    o.block = 128;
    k<<<cfg.n / o.block, o.block>>>(x, cfg.n);
}
"#;
        let host = HostFile::new(src, None);
        let w = host.workloads("k", &["x".to_string(), "n".into()], &[])[0]
            .resolve()
            .unwrap();
        assert_eq!(
            (w.grid, w.block, w.params["n"]),
            ([8192, 1, 1], [128, 1, 1], 1 << 20)
        );
    }

    #[test]
    fn a_grid_sized_by_the_device_takes_its_sm_count() {
        let src = r#"
int main() {
    int numSMs;
    cudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, 0);
    saxpy<<<32 * numSMs, 256>>>(1 << 20, x, y);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    saxpy<<<prop.multiProcessorCount * 4, 256>>>(1 << 20, x, y);
}
"#;
        let host = HostFile::new(src, None);
        let ws = host.workloads("saxpy", &["n".to_string(), "x".into(), "y".into()], &[]);
        let grids: Vec<[u64; 3]> = ws
            .iter()
            .map(|w| {
                w.on_device(Some(68), Err(String::new()))
                    .resolve()
                    .unwrap()
                    .grid
            })
            .collect();
        assert_eq!(grids, [[32 * 68, 1, 1], [68 * 4, 1, 1]]);
        // without the device's count the name is asked for
        let err = ws[0]
            .on_device(None, Err(String::new()))
            .resolve()
            .unwrap_err();
        assert!(err.contains("undefined name `device.sm_count`"), "{err}");
        // a count the program changes is not the device's
        let changed = "int numSMs;\ncudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, 0);\nnumSMs /= 2;\nsaxpy<<<numSMs, 256>>>(n);\n";
        let w = HostFile::new(changed, None).workloads("saxpy", &["n".to_string()], &[]);
        assert!(w[0]
            .on_device(Some(68), Err(String::new()))
            .resolve()
            .is_err());
        // a value given where it is declared is overwritten by the query; one given later is not
        let zeroed = "int dev = 0, sms = 0;\ncudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);\nsaxpy<<<32 * sms, 256>>>(n);\n";
        let w = HostFile::new(zeroed, None).workloads("saxpy", &["n".to_string()], &[]);
        let grid = w[0]
            .on_device(Some(68), Err(String::new()))
            .resolve_with(&[("n".into(), 1)].into());
        assert_eq!(grid.unwrap().grid, [32 * 68, 1, 1]);
        let later = zeroed.replace("saxpy<<<", "sms = 4;\nsaxpy<<<");
        let w = HostFile::new(&later, None).workloads("saxpy", &["n".to_string()], &[]);
        let grid = w[0]
            .on_device(Some(68), Err(String::new()))
            .resolve_with(&[("n".into(), 1)].into());
        assert!(grid.is_err(), "{grid:?}");
    }

    #[test]
    fn a_name_assigned_again_has_the_value_that_reaches_each_launch() {
        let src = r#"
__global__ void block_sum(const float *in, float *out, int n);
int main() {
    int blocks = 0;
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    blocks = prop.multiProcessorCount * 4;
    int n = 1 << 22;
    block_sum<<<blocks, 256>>>(in, out, n);
    n = 1 << 24;
    block_sum<<<blocks, 256>>>(in, out, n);
    for (int i = 0; i < 3; ++i) {
        block_sum<<<blocks, 256>>>(in, out, n);
        n = n * 2;
    }
}
"#;
        let host = HostFile::new(src, None);
        let params = ["in".to_string(), "out".into(), "n".into()];
        let ws = host.workloads("block_sum", &params, &[]);
        let resolved: Vec<(u64, Option<i64>)> = ws
            .iter()
            .map(|w| {
                let r = w.on_device(Some(68), Err(String::new())).resolve().unwrap();
                (r.grid[0], r.params.get("n").copied())
            })
            .collect();
        assert_eq!(
            resolved,
            [
                (68 * 4, Some(1 << 22)),
                (68 * 4, Some(1 << 24)),
                (68 * 4, None)
            ]
        );
        // a later trip of the loop runs it with the doubled value: no one value, and why
        assert_eq!(
            ws[2].unset["n"],
            "`n` is given a value at lines 8, 10 and 14, so it may differ from one launch to the \
             next: line 14 assigns it after line 13, which the loop at line 12 may run again"
        );
    }

    #[test]
    fn a_helper_called_alike_with_a_name_assigned_again_runs_each_call_s_value() {
        let src = r#"
__global__ void axpy(float a, const float *x, float *y, int n);
void run(const float *x, float *y, int n) {
    int blocks = (n + 255) / 256;
    axpy<<<blocks, 256>>>(2.f, x, y, n);
}
int main() {
    const int m = 4096;
    int n = 1 << 16;
    run(x, y, n);
    n = 1 << 24;
    run(x, y, n);
    run(x, y, m);
    run(x, y, m);
}
"#;
        let host = HostFile::new(src, None);
        let params = ["a".to_string(), "x".into(), "y".into(), "n".into()];
        let ws = host.workloads("axpy", &params, &[]);
        let sizes: Vec<(i64, usize)> = ws
            .iter()
            .map(|w| (w.resolve().unwrap().params["n"], w.launches.len()))
            .collect();
        // the two calls that read `m` stay one workload, launched from both
        assert_eq!(sizes, [(1 << 16, 1), (1 << 24, 1), (4096, 2)], "{ws:?}");
    }

    /// A multigrid V-cycle of ten levels, halving the size at each: every level's size once,
    /// none past the last (`level > 0` is false at level 0), and no size left unknown where the
    /// helper depth cut the recursion before.
    #[test]
    fn a_recursive_helper_is_followed_to_its_last_level() {
        let src = r#"
__global__ void smooth(float *x, int n);
void vcycle(float *x, int n, int level) {
    smooth<<<(n + 255) / 256, 256>>>(x, n);
    if (level > 0) vcycle(x, n / 2, level - 1);
    smooth<<<(n + 255) / 256, 256>>>(x, n);
}
int main() {
    const int n = 1 << 20;
    for (int it = 0; it < 10; ++it) vcycle(x, n, 9);
}
"#;
        let host = HostFile::new(src, None);
        let params = ["x".to_string(), "n".into()];
        let mut sizes: Vec<i64> = host
            .workloads("smooth", &params, &[])
            .iter()
            .map(|w| w.resolve().unwrap().params["n"])
            .collect();
        sizes.sort();
        let want: Vec<i64> = (11..=20).map(|k| 1i64 << k).collect();
        assert_eq!(sizes, want);
        // where the host's values do not decide the branch, the recursion stops at the helper
        // depth and the launch past it asks for its sizes, rather than halving n down to 0
        let undecided = src
            .replace("int level)", "int coarsest)")
            .replace(
                "if (level > 0) vcycle(x, n / 2, level - 1)",
                "if (n > coarsest) vcycle(x, n / 2, coarsest)",
            )
            .replace("vcycle(x, n, 9)", "vcycle(x, n, atoi(argv[1]))");
        let host = HostFile::new(&undecided, None);
        let ws = host.workloads("smooth", &params, &[]);
        let known = ws.iter().filter(|w| w.resolve().is_ok()).count();
        assert!(known <= 5, "{known} sizes from an undecided recursion");
        assert!(ws.iter().any(|w| w.resolve().is_err()));
    }

    #[test]
    fn a_template_helper_launches_the_instantiation_of_the_types_it_is_called_with() {
        let src = r#"
template <int BLOCK, typename T> __global__ void reduce_sum(const T *in, T *out, int n);
template <typename T>
void reduce(const T *in, T *out, int n) {
    constexpr int B = 256;
    reduce_sum<B, T><<<(n + 2 * B - 1) / (2 * B), B>>>(in, out, n);
}
int main() {
    const int n = 1 << 22;
    float *f;
    double *d;
    reduce(f, f, n);
    reduce(d, d, n / 4);
    reduce<double>(d, d, n / 16);
}
"#;
        let host = HostFile::new(src, None);
        let params = ["in".to_string(), "out".into(), "n".into()];
        let sizes = |entry: &str| -> Vec<i64> {
            let ws = host.workloads(entry, &params, &[]);
            instantiations::for_instantiation(ws, entry)
                .iter()
                .map(|w| w.resolve().unwrap().params["n"])
                .collect()
        };
        // deduced from `float *f`, then from `double *d` and written
        assert_eq!(sizes("reduce_sum<256, float>"), [1 << 22]);
        assert_eq!(sizes("reduce_sum<256, double>"), [1 << 20, 1 << 18]);
    }

    #[test]
    fn a_launch_through_a_kernel_variable_launches_the_kernel_it_holds() {
        let src = r#"
__global__ void k_fast(float *x, int n);
__global__ void k_slow(float *x, int n);
int main() {
    const int n = 1 << 20;
    bool use_fast = true;
    auto kernel = use_fast ? k_fast : k_slow;
    kernel<<<(n + 255) / 256, 256>>>(x, n);
}
"#;
        let host = HostFile::new(src, None);
        let params = ["x".to_string(), "n".into()];
        let fast = host.workloads("k_fast", &params, &[]);
        assert_eq!(fast.len(), 1);
        assert_eq!(fast[0].resolve().unwrap().grid, [4096, 1, 1]);
        assert!(fast[0]
            .origin
            .as_deref()
            .unwrap()
            .contains("kernel<<<(n + 255) / 256, 256>>>(x, n), where kernel = k_fast"));
        assert!(host.workloads("k_slow", &params, &[]).is_empty());
        let untaken = host.untaken("k_slow", &params, &[]);
        assert_eq!(untaken.len(), 1);
        assert!(
            untaken[0].contains("where kernel = k_slow is in a branch the host code does not take: `use_fast` is true where use_fast = 1"),
            "{untaken:?}"
        );
    }

    #[test]
    fn a_dim3_set_again_has_the_shape_that_reaches_each_launch() {
        let src = r#"
__global__ void k(float *a, int w, int h);
int main() {
    int w = 4096, h = 2048;
    dim3 block(16, 16);
    dim3 grid((w + 15) / 16, (h + 15) / 16);
    k<<<grid, block>>>(a, w, h);
    block = dim3(32, 8);
    grid = dim3((w + 31) / 32, (h + 7) / 8);
    k<<<grid, block>>>(a, w, h);
    block.x = 64; block.y = 4;
    grid.x = (w + 63) / 64; grid.y = (h + 3) / 4;
    k<<<grid, block>>>(a, w, h);
    dim3 tail;
    tail = dim3(w / 256);
    if (w > 8192) tail.x = 1;
    k<<<tail, 256>>>(a, w, h);
}
"#;
        let host = HostFile::new(src, None);
        let params = ["a".to_string(), "w".into(), "h".into()];
        let ws = host.workloads("k", &params, &[]);
        let shapes: Vec<Result<([u64; 3], [u64; 3]), String>> = ws
            .iter()
            .map(|w| w.resolve().map(|r| (r.grid, r.block)))
            .collect();
        assert_eq!(
            shapes[..3],
            [
                Ok(([256, 128, 1], [16, 16, 1])),
                Ok(([128, 256, 1], [32, 8, 1])),
                Ok(([64, 512, 1], [64, 4, 1])),
            ]
        );
        // a component set under a condition of its own: no one shape, and why
        assert!(shapes[3].is_err(), "{:?}", shapes[3]);
        assert!(
            ws[3].unset["tail"].contains(
                "the assignment at line 16, the last before line 17, runs under a condition"
            ),
            "{:?}",
            ws[3].unset
        );
    }

    #[test]
    fn a_grid_capped_with_min_takes_each_device_s_count_and_a_size_given_later() {
        let src = r#"
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    int blocks = std::min((n + 255) / 256, prop.multiProcessorCount * 8);
    saxpy<<<blocks, n < 4096 ? 64 : 256>>>(n, x, y);
}
"#;
        let host = HostFile::new(src, None);
        let params = ["n".to_string(), "x".into(), "y".into()];
        let ws = host.workloads("saxpy", &params, &[]);
        // `n` has no value: the error asks for it, not for `blocks`, which reads it
        let w = ws[0].on_device(Some(68), Err(String::new()));
        let err = w.resolve().unwrap_err();
        assert_eq!(err, "undefined name `n` in a workload expression");
        assert!(
            w.how_to_set(&err)
                .contains("`n = atoi(argv[1])` is not an integer expression"),
            "{}",
            w.how_to_set(&err)
        );
        // the usual default for a run without arguments is the size
        let defaulted = src.replace("atoi(argv[1])", "argc > 1 ? atoi(argv[1]) : 1 << 24");
        let w = &HostFile::new(&defaulted, None).workloads("saxpy", &params, &[])[0];
        let r = w.on_device(Some(68), Err(String::new())).resolve().unwrap();
        assert_eq!((r.params["n"], r.grid[0]), (1 << 24, 544));
        assert!(
            w.origin.as_deref().unwrap().contains(
                "n = 1 << 24 (from `argc > 1 ? atoi(argv[1]) : 1 << 24`, with argc = 1, \
                 the program run without arguments)"
            ),
            "{:?}",
            w.origin
        );
        // given `n`, the grid is capped at 8 blocks per SM of each device
        let launch = |sms: u32, n: i64| {
            let r = ws[0]
                .on_device(Some(sms), Err(String::new()))
                .resolve_with(&[("n".into(), n)].into())
                .unwrap();
            (r.grid[0], r.block[0])
        };
        assert_eq!(launch(68, 1 << 24), (544, 256));
        assert_eq!(launch(108, 1 << 24), (864, 256));
        assert_eq!(launch(68, 1000), (4, 64));
        assert!(ws[0]
            .origin
            .as_deref()
            .unwrap()
            .contains("where blocks = std::min((n + 255) / 256, prop.multiProcessorCount * 8)"));
    }

    #[test]
    fn a_launch_in_a_size_sweep_is_predicted_at_each_size() {
        let src = r#"
__global__ void scale(float *x, int n);
__global__ void small(float *x, int n);
__global__ void big(float *x, int n);
void bench(float *x, int m) {
    for (int rep = 0; rep < 10; ++rep) scale<<<(m + 255) / 256, 256>>>(x, m);
}
int main() {
    for (int n = 1 << 16; n <= 1 << 20; n *= 4) {
        scale<<<(n + 255) / 256, 256>>>(x, n);
    }
    std::vector<int> sizes = {1024, 2048};
    for (int s : sizes) bench(x, s * 2);
    for (int n : {512, 8192}) {
        if (n < 4096) small<<<1, n>>>(x, n);
        else big<<<n / 256, 256>>>(x, n);
    }
    for (int t = 0; t < 100; ++t) scale<<<64, 256>>>(x, t);
}
"#;
        let host = HostFile::new(src, None);
        let params: Vec<String> = ["x", "n"].iter().map(|s| s.to_string()).collect();
        let ws = host.workloads("scale", &params, &[]);
        let sizes: Vec<Option<i64>> = ws
            .iter()
            .map(|w| w.resolve().unwrap().params.get("n").copied())
            .collect();
        // two sizes of the list through `bench` (its launch is first in the file), three of
        // the `for`, and the time loop's launch, whose 100 values are not swept
        let swept = [2048, 4096, 1 << 16, 1 << 18, 1 << 20];
        assert_eq!(sizes[..5], swept.map(Some));
        assert_eq!(sizes[5], None);
        let origin = |w: &WorkloadSpec| w.origin.clone().unwrap_or_default();
        assert!(
            origin(&ws[2]).contains(
                "where n = 65536 (1 of 3 values of `for (int n = 1 << 16; n <= 1 << 20; \
                 n *= 4)`, line 9)"
            ),
            "{}",
            origin(&ws[2])
        );
        assert!(
            origin(&ws[0]).contains(
                "in bench(x, s * 2) at line 13, where s = 1024 (1 of 2 values of \
                 `for (int s : sizes)`, line 13), m = s * 2"
            ),
            "{}",
            origin(&ws[0])
        );
        // each size runs once; the loop around the launch in `bench` still repeats it
        assert_eq!(ws[2].runs_note(1e-3, None), None);
        assert!(ws[0]
            .runs_note(1e-3, None)
            .unwrap()
            .starts_with("the host code runs this launch 10 times"));
        // the time loop's counter is asked for, and why it is not swept is said
        assert!(
            ws[5].unset["n"].contains(
                "`t` is the counter of `for (int t = 0; t < 100; ++t)` (line 18), which takes 100 \
             values, more than the 32 kerncast predicts one by one"
            ),
            "{:?}",
            ws[5].unset
        );
        // a branch on the swept counter is decided at each value
        let small = host.workloads("small", &params, &[]);
        assert_eq!(small.len(), 1);
        assert_eq!(small[0].resolve().unwrap().block, [512, 1, 1]);
        let untaken = host.untaken("small", &params, &[]);
        assert_eq!(untaken.len(), 1);
        assert!(
            untaken[0].contains("for n = 8192 (2 of 2 values"),
            "{untaken:?}"
        );
        assert_eq!(host.workloads("big", &params, &[]).len(), 1);
    }

    #[test]
    fn a_sweep_over_a_list_s_items_by_index_is_predicted_at_each() {
        let src = r#"
__global__ void scale(float *x, int n);
int main() {
    const int sizes[] = {1 << 10, 1 << 16, 1 << 20};
    for (int i = 0; i < 3; ++i) {
        int n = sizes[i];
        scale<<<(n + 255) / 256, 256>>>(x, n);
    }
    scale<<<1, 32>>>(x, sizes[1] / 1024);
}
"#;
        let host = HostFile::new(src, None);
        let ws = host.workloads("scale", &["x".to_string(), "n".into()], &[]);
        let sizes: Vec<i64> = ws
            .iter()
            .map(|w| w.resolve().unwrap().params["n"])
            .collect();
        assert_eq!(sizes, [1 << 10, 1 << 16, 1 << 20, 64]);
        let origin = ws[1].origin.clone().unwrap_or_default();
        assert!(
            origin.contains("n = (1 << 16) (from `sizes[i]`)")
                && origin.contains("i = 1 (2 of 3 values of `for (int i = 0; i < 3; ++i)`"),
            "{origin}"
        );
    }

    /// A bitonic sort's schedule: the inner loop starts from the outer counter, and the launch
    /// is predicted at each of the nest's 105 pairs of values, once each; a launch inside a nest
    /// that does not read the counters runs the nest's trips.
    #[test]
    fn a_nest_whose_inner_loop_follows_the_outer_counter_is_swept_pair_by_pair() {
        let src = r#"
__global__ void bitonic_sort_step(float *dev_values, int j, int k);
#define THREADS 512
#define BLOCKS 32
#define NUM_VALS (THREADS * BLOCKS)
int main() {
    dim3 blocks(BLOCKS, 1);
    dim3 threads(THREADS, 1);
    int j, k;
    for (k = 2; k <= NUM_VALS; k <<= 1) {
        for (j = k >> 1; j > 0; j = j >> 1) {
            bitonic_sort_step<<<blocks, threads>>>(dev_values, j, k);
        }
    }
    for (int it = 0; it < 3; ++it)
        for (k = 2; k <= 16; k <<= 1)
            for (j = k >> 1; j > 0; j = j >> 1)
                bitonic_sort_step<<<blocks, threads>>>(dev_values, 1, 2);
}
"#;
        let host = HostFile::new(src, None);
        let params: Vec<String> = ["dev_values", "j", "k"].map(String::from).to_vec();
        let ws = host.workloads("bitonic_sort_step", &params, &[]);
        assert_eq!(ws.len(), 105);
        let names: Vec<String> = ws.iter().map(|w| w.resolve().unwrap().name).collect();
        assert_eq!(names[..4], ["j=1,k=2", "j=2,k=4", "j=1,k=4", "j=4,k=8"]);
        assert_eq!(names[104], "j=1,k=16384");
        assert!(ws[104].origin.as_deref().unwrap().contains(
            "j = 1 (105 of 105 values of `for (j = k >> 1; j > 0; j = j >> 1)`, line 11), \
             k = 16384 (14 of 14 values of `for (k = 2; k <= NUM_VALS; k <<= 1)`, line 10)"
        ));
        assert_eq!(ws[104].runs_note(1e-3, None), None);
        // the second nest's launch has the first's values at j = 1, k = 2: 1 + 10 × 3 runs
        assert_eq!(
            ws[0].runs_note(1e-3, None).unwrap(),
            "the host code runs this launch 31 times (line 12: once; line 18: 10 × 3 = 30 \
             times, in `for (j = k >> 1; j > 0; j = j >> 1)` (10 trips over the 4 values of \
             `k`) inside `for (k = 2; k <= 16; k <<= 1)` inside `for (int it = 0; it < 3; \
             ++it)`): 31.000 ms in all"
        );
    }

    #[test]
    fn a_loop_whose_counter_only_offsets_a_pointer_is_one_launch_it_repeats() {
        let src = r#"
__global__ void incr(float *d, int n);
int main() {
    const int N = 1 << 24, parts = 4, chunk = N / parts;
    for (int s = 0; s < parts; ++s) incr<<<(chunk + 255) / 256, 256, 0, st[s]>>>(d + s * chunk, chunk);
}
"#;
        let host = HostFile::new(src, None);
        let ws = host.workloads("incr", &["d".to_string(), "n".into()], &[]);
        assert_eq!(ws.len(), 1, "{ws:?}");
        let r = ws[0].resolve().unwrap();
        assert_eq!((r.grid[0], r.params["n"]), (16384, 1 << 22));
        assert!(!r.params.contains_key("s"), "{r:?}");
        assert_eq!(
            ws[0].runs_note(1e-3, None).unwrap(),
            "the host code runs this launch 4 times (line 5: 4 times, in \
             `for (int s = 0; s < parts; ++s)`): 4.000 ms in all"
        );
    }

    #[test]
    fn a_launch_in_a_named_lambda_or_a_function_template_takes_each_call() {
        let src = r#"
template <int BS> __global__ void scale(float *x, int n);
template <int BS>
void launch(float *x, int n) { scale<BS><<<(n + BS - 1) / BS, BS>>>(x, n); }
int main() {
    constexpr int kN = 1 << 22;
    auto run = [&](int m) { scale<64><<<m / 64, 64>>>(x, m); };
    run(1 << 20);
    auto timed = [&]() { scale<32><<<kN / 32, 32>>>(x, kN); };
    time_it(timed, 10);
    launch<128>(x, kN);
    launch<256>(x, kN);
}
"#;
        let host = HostFile::new(src, None);
        let params: Vec<String> = ["x", "n"].iter().map(|s| s.to_string()).collect();
        let launches = |entry: &str| -> Vec<([u64; 3], [u64; 3], String)> {
            host.workloads(entry, &params, &[])
                .iter()
                .map(|w| {
                    let r = w.resolve().unwrap();
                    (r.grid, r.block, w.origin.clone().unwrap_or_default())
                })
                .collect()
        };
        // each instantiation takes the call that names its argument, and only that one
        let s128 = launches("scale<128>");
        assert_eq!(s128.len(), 1, "{s128:?}");
        assert_eq!((s128[0].0, s128[0].1), ([32768, 1, 1], [128, 1, 1]));
        assert!(
            s128[0].2.contains("in launch<128>(x, kN) at line 11"),
            "{}",
            s128[0].2
        );
        let s256 = launches("scale<256>");
        assert_eq!((s256.len(), s256[0].0), (1, [16384, 1, 1]));
        // the lambda's parameter takes its call's argument
        let s64 = launches("scale<64>");
        assert_eq!((s64.len(), s64[0].0), (1, [16384, 1, 1]));
        assert!(
            s64[0].2.contains("in run(1 << 20) at line 8"),
            "{}",
            s64[0].2
        );
        // a lambda passed on, not called here, sees what the function it is in defines
        let s32 = launches("scale<32>");
        assert_eq!((s32.len(), s32[0].0), (1, [131072, 1, 1]));
    }

    /// A timing helper runs what it is given: an unnamed lambda written into its call, a named
    /// lambda or a function passed by name, each as often as the helper calls it, in the
    /// helper's contexts (its default arguments included) and no more often for the loops
    /// around where the lambda is written.
    #[test]
    fn a_callable_passed_to_a_timing_helper_runs_as_often_as_the_helper_calls_it() {
        let src = r#"
template <typename F>
double bench(const char *name, F &&fn, int iters = 50) {
  for (int i = 0; i < 3; ++i) fn();
  for (int i = 0; i < iters; ++i) fn();
  return 0;
}
void step(int m) { k<<<m / 256, 256>>>(m); }
int main() {
  for (int n : {1 << 18, 1 << 20}) {
    bench("copy", [&] { k<<<(n + 255) / 256, 256>>>(n); });
  }
  auto once = [&](int m) { k<<<m / 32, 32>>>(m); };
  bench("once", [&] { once(64); }, 4);
  bench("step", &step, 2);
  std::thread t([&] { k<<<1, 1>>>(1); });
}
"#;
        let host = HostFile::new(src, None);
        let ws = host.workloads("k", &["n".into()], &[]);
        let summary: Vec<(u64, String)> = ws
            .iter()
            .filter_map(|w| {
                let r = w.resolve().ok()?;
                Some((r.grid[0], w.runs_note(1e-3, None).unwrap_or_default()))
            })
            .collect();
        let mut grids: Vec<u64> = summary.iter().map(|(g, _)| *g).collect();
        grids.sort();
        // the sweep's two sizes, the named lambda's 64 / 32, the function's unbound `m`
        // aside, and the lambda given to `std::thread`, which runs once
        assert_eq!(grids, [1, 2, 1024, 4096], "{summary:?}");
        let note = |g: u64| summary.iter().find(|(x, _)| *x == g).unwrap().1.clone();
        // 3 warm-up runs and the default 50, per size; the range-for is swept, not repeated
        assert_eq!(
            note(1024),
            "the host code runs this launch 53 times (line 11, called at line 4 as `fn()`, \
             called at line 11: 3 times, in `for (int i = 0; i < 3; ++i)`; line 11, called at \
             line 5 as `fn()`, called at line 11: 50 times, in `for (int i = 0; i < iters; \
             ++i)`): 53.000 ms in all"
        );
        // a named lambda called in a lambda the helper runs 3 + 4 times
        assert!(
            note(2).starts_with("the host code runs this launch 7 times (line 13, called at line 14, called at line 4 as `fn()`"),
            "{}",
            note(2)
        );
        assert_eq!(note(1), "");
        // a function passed by its address is called with the helper's arguments: `fn()` gives
        // `step` none, so its `m` stays unset, for `--param`
        let step = ws.iter().find(|w| w.resolve().is_err()).cloned();
        let step = step.expect("step's launch, unsized");
        assert!(
            step.origin
                .as_deref()
                .unwrap_or("")
                .contains("fn() at line 4"),
            "{:?}",
            step.origin
        );
    }

    /// A launch a stream capture records runs once per launch of the graph made from it, times
    /// the loops inside the capture; a loop around the capture repeats the capture, not it.
    #[test]
    fn a_captured_launch_runs_as_often_as_its_graph_is_launched() {
        let src = r#"void run(float *x, int n) { k<<<n / 256, 256, 0, s>>>(n); }
int main() {
  const int n = 1 << 20;
  for (int warm = 0; warm < 2; ++warm) {
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    for (int j = 0; j < 4; ++j) k<<<n / 128, 128, 0, s>>>(n);
    run(x, n);
    cudaStreamEndCapture(s, &graph);
  }
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, s);
  for (int i = 0; i < 100; ++i) cudaGraphLaunch(exec, s);
}
"#;
        let host = HostFile::new(src, None);
        let notes: Vec<(u64, String)> = host
            .workloads("k", &["n".into()], &[])
            .iter()
            .map(|w| {
                let note = w.runs_note(1e-3, None).unwrap_or_default();
                (w.resolve().unwrap().grid[0], note)
            })
            .collect();
        assert_eq!(
            notes,
            [
                (
                    4096,
                    "the host code runs this launch 101 times (line 1, called at line 7, in the \
                     graph launched at line 11: once; line 1, called at line 7, in the graph \
                     launched at line 12: 100 times, in `for (int i = 0; i < 100; ++i)`): \
                     101.000 ms in all"
                        .to_string()
                ),
                (
                    8192,
                    "the host code runs this launch 404 times (line 6, in the graph launched at \
                     line 11: 4 times, in `for (int j = 0; j < 4; ++j)`; line 6, in the graph \
                     launched at line 12: 4 × 100 = 400 times, in `for (int j = 0; j < 4; ++j)` \
                     inside `for (int i = 0; i < 100; ++i)`): 404.000 ms in all"
                        .to_string()
                )
            ]
        );
    }

    /// A grid computed in floating point (`ceil(n / 256.0)`, a cast) is the one C computes; a
    /// floating-point value passed to the kernel is no parameter value.
    #[test]
    fn a_grid_computed_in_floating_point_is_c_s_and_a_float_argument_stays_unset() {
        let src = r#"int main() {
  int n = 1000000;
  auto alpha = 2.0f;
  int blocks = ceil(n / 256.0);
  dim3 block(128);
  dim3 grid((int)ceil((float)n / block.x));
  k<<<blocks, 256>>>(x, alpha, n);
  k<<<grid, block>>>(x, 2.0f, n);
}
"#;
        let host = HostFile::new(src, None);
        let ws = host.workloads("k", &["x".into(), "alpha".into(), "n".into()], &[]);
        let resolved: Vec<([u64; 3], Option<i64>)> = ws
            .iter()
            .map(|w| {
                let r = w.resolve().unwrap();
                (r.grid, r.params.get("alpha").copied())
            })
            .collect();
        assert_eq!(resolved, [([3907, 1, 1], None), ([7813, 1, 1], None)]);
        assert_eq!(
            ws[0].unset.get("alpha").map(String::as_str),
            Some("its value `2.0f` is a floating-point number")
        );
    }

    /// A container's `size()` is its count where it is declared with one and never resized; a
    /// size kerncast cannot read says why and how to give it.
    #[test]
    fn a_container_s_size_sizes_a_launch_and_an_unreadable_size_says_why() {
        let src = r#"int main() {
  std::vector<float> h(4096);
  thrust::device_vector<float> d(1 << 16);
  std::vector<float> grown(8);
  grown.push_back(1.f);
  k<<<(h.size() + 255) / 256, 256>>>(x, h.size());
  k<<<(d.size() + 127) / 128, 128>>>(x, std::size(d));
  k<<<grown.size(), 32>>>(x, 1);
  k<<<blocks_for(7), 32>>>(x, 1);
}
"#;
        let host = HostFile::new(src, None);
        let ws = host.workloads("k", &["x".into(), "n".into()], &[]);
        let shown: Vec<String> = ws
            .iter()
            .map(|w| match w.resolve() {
                Ok(r) => format!("{:?} n={:?}", r.grid, r.params.get("n")),
                Err(e) => format!("{e}{}", w.how_to_set(&e)),
            })
            .collect();
        assert_eq!(shown[0], "[16, 1, 1] n=Some(4096)");
        assert_eq!(shown[1], "[512, 1, 1] n=Some(65536)");
        assert_eq!(
            shown[2],
            "undefined name `grown.size` in a workload expression (`grown` may change size at \
             line 5 (`grown.push_back(1.f)`)); give it a value with --param grown.size=VALUE"
        );
        assert_eq!(
            shown[3],
            "undefined name `blocks_for(7)` in a workload expression (kerncast cannot read it: \
             `blocks_for(…)` is not a function workload expressions know); give the launch's \
             sizes with a `// kerncast: workload …` annotation above the kernel or a \
             [[kernel.workload]] in kerncast.toml"
        );
    }

    #[test]
    fn a_name_without_one_value_says_why() {
        let src = "int main() {\n  int n = 1 << 24;\n  while (n > 1) {\n    int blocks = (n + 255) / 256;\n    reduce<<<blocks, 256>>>(a, b, n);\n    n = blocks;\n  }\n  int m = atoi(argv[1]);\n  scale<<<m / 256, 256>>>(x, m / 2);\n  int k;\n  read_size(&k);\n  scale<<<k, 256>>>(x, 1);\n}\n";
        let host = HostFile::new(src, None);
        let params = ["a".to_string(), "b".into(), "n".into()];
        let w = &host.workloads("reduce", &params, &[])[0];
        let why_n = "`n` is given a value at lines 2 and 6, so it may differ from one launch to \
                     the next: line 6 assigns it after line 5, which the loop at line 3 may run \
                     again";
        assert_eq!(w.unset["n"], why_n);
        assert_eq!(
            w.unset["blocks"],
            format!("`blocks = (n + 255) / 256` reads `n`; {why_n}")
        );
        let ws = host.workloads("scale", &["x".to_string(), "len".into()], &[]);
        assert_eq!(
            ws[0].unset["m"],
            "`m = atoi(argv[1])` is not an integer expression kerncast evaluates"
        );
        assert!(ws[0].unset["len"].starts_with("its argument reads `m`; `m = atoi"));
        assert_eq!(
            ws[1].unset["k"],
            "`k` is passed by address at line 11 (`&k`), so a call may set it"
        );
        // a name with one value has no entry
        assert!(!w.unset.contains_key("a") && ws[1].unset.len() == 1);
    }

    /// An occupancy that answers 8 blocks of any size, and 512 threads (1024 with no dynamic
    /// shared memory) as the best block.
    struct FixedOccupancy;

    impl crate::workload::Occupancy for FixedOccupancy {
        fn active_blocks_per_sm(&self, _threads: u64, _dynamic_shared: u64) -> u64 {
            8
        }
        fn max_potential_block_size(&self, dynamic_shared: u64, limit: u64) -> (u64, u64) {
            let block = if dynamic_shared == 0 { 1024 } else { 512 };
            (2 * 68, block.min(if limit == 0 { u64::MAX } else { limit }))
        }
    }

    #[test]
    fn a_launch_sized_by_the_occupancy_api_takes_each_devices_answer() {
        let src = "int main() {\n  const int n = 1 << 22;\n  int minGridSize, blockSize;\n  cudaOccupancyMaxPotentialBlockSize(&minGridSize, &blockSize, scale, 0, 0);\n  scale<<<(n + blockSize - 1) / blockSize, blockSize>>>(x, n);\n  int perSM = 0;\n  const int threads = 256;\n  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, (void *)sum, threads, threads * sizeof(float));\n  sum<<<perSM * 68, threads>>>(x, n);\n  fill<<<minGridSize, 128>>>(x, n);\n}\n";
        let host = HostFile::new(src, None);
        let params = ["x".to_string(), "n".into()];
        let on = |kernel: &str| {
            let w = &host.workloads(kernel, &params, &[])[0];
            (w.on_device(Some(68), Ok(&FixedOccupancy)), w.clone())
        };
        let (scale, _) = on("scale");
        let r = scale.resolve().unwrap();
        assert_eq!((r.grid, r.block), ([4096, 1, 1], [1024, 1, 1]));
        assert_eq!(r.params["blockSize"], 1024);
        assert_eq!(scale.answered.len(), 1, "{:?}", scale.answered);
        assert!(scale.answered[0].starts_with("`blockSize` = 1024 on this device: `cudaOccupancyMaxPotentialBlockSize(&minGridSize, &blockSize, scale, 0, 0)`'s answer"));
        // the label names what the kernel is given, not the answer
        assert_eq!(r.name, "n=4194304");
        let (sum, _) = on("sum");
        assert_eq!(sum.resolve().unwrap().grid, [8 * 68, 1, 1]);
        // the answer is about `scale`: `fill` cannot take it
        let (fill, _) = on("fill");
        let e = fill.resolve().unwrap_err();
        assert!(e.contains("undefined name `minGridSize`"), "{e}");
        assert!(fill.unset["minGridSize"].contains("for `scale`, not for the kernel launched"));
        // without the kernel's registers the answer is asked for, and the reason kept
        let (_, spec) = on("scale");
        let without = spec.on_device(Some(68), Err("ptxas was not found".into()));
        assert!(without.resolve().is_err());
        assert_eq!(
            without.unset["blockSize"],
            "`blockSize` is `cudaOccupancyMaxPotentialBlockSize(&minGridSize, &blockSize, scale, 0, 0)`'s answer: ptxas was not found"
        );
        // a value given on the command line wins
        let mut given = spec.clone();
        given.set_values(&[("blockSize".into(), Expr::Int(128))], &[]);
        let r = given
            .on_device(Some(68), Ok(&FixedOccupancy))
            .resolve()
            .unwrap();
        assert_eq!((r.grid, r.block), ([32768, 1, 1], [128, 1, 1]));
    }

    #[test]
    fn the_label_names_what_the_kernel_is_given() {
        let src = "int main() {\n  int numElements = 50000;\n  int threadsPerBlock = 256;\n  int blocksPerGrid = (numElements + threadsPerBlock - 1) / threadsPerBlock;\n  vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(a, b, c, numElements);\n}\n";
        let spec = one(src, &["A", "B", "C", "numElements"]);
        let w = spec.resolve().unwrap();
        assert_eq!(w.name, "numElements=50000");
        // the host's values stay in the workload, and in its origin
        assert_eq!((w.params["blocksPerGrid"], w.grid), (196, [196, 1, 1]));
        assert!(spec.origin.unwrap().contains("threadsPerBlock = 256"));
    }

    #[test]
    fn declarator_lists_define_each_name() {
        let src = r#"
#define TILE 32
int main() {
    int width = 1 <<
        12, height{2048};
    unsigned rows = 8192, cols = rows / 8, *unused;
    dim3 grid(width / TILE, height / TILE), block(TILE, 8);
    transpose<<<grid, block>>>(b, a, width, height);
    softmax<<<rows, 256>>>(a, b, cols);
}
"#;
        let sites = launch_sites(src, &[]);
        let defs = host_defs(src);
        let params = |p: &[&str]| -> Vec<String> { p.iter().map(|s| s.to_string()).collect() };
        let t = workload(&sites[0], &params(&["o", "i", "w", "h"]), &[], &defs, None)
            .resolve()
            .unwrap();
        assert_eq!((t.grid, t.block), ([128, 64, 1], [32, 8, 1]));
        assert_eq!((t.params["w"], t.params["h"]), (4096, 2048));
        let s = workload(&sites[1], &params(&["x", "y", "cols"]), &[], &defs, None)
            .resolve()
            .unwrap();
        assert_eq!((s.grid, s.params["cols"]), ([8192, 1, 1], 1024));
    }

    /// A helper defined over an integer macro resolves, and the report shows what was read.
    #[test]
    fn a_helper_over_a_macro_resolves_and_is_shown() {
        let src = r#"
#define N 4096
void go(float *x) {
    const int half = N / 2;
    k<<<half / 256, 256>>>(x);
}
"#;
        let spec = one(src, &["x"]);
        assert_eq!(spec.resolve().unwrap().grid, [8, 1, 1]);
        assert!(
            spec.origin
                .as_deref()
                .unwrap()
                .ends_with("where half = N / 2"),
            "{:?}",
            spec.origin
        );
    }

    #[test]
    fn a_size_from_the_command_line_is_reported_not_guessed() {
        let src = r#"
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    scale<<<n / 128, 128>>>(x, n);
}
"#;
        let spec = one(src, &["x", "n"]);
        let e = spec.resolve().unwrap_err();
        assert!(e.contains("undefined name `n`"), "{e}");
        let w = spec.resolve_with(&[("n".into(), 1024)].into()).unwrap();
        assert_eq!(w.grid, [8, 1, 1]);
    }

    #[test]
    fn a_struct_passed_by_value_gives_its_fields() {
        let src = r#"
struct Params { float a; float b; int n; };
int main() {
    const int n = 1 << 22;
    Params p{2.f, 1.f, n};
    affine<<<(n + 127) / 128, 128>>>(p, x, y);
}
"#;
        let sites = launch_sites(src, &[]);
        let fields = struct_args::tests::fields(&["p.a", "p.b", "p.n"]);
        let params = ["p".to_string(), "x".into(), "y".into()];
        let spec = workload(&sites[0], &params, &fields, &host_defs(src), None);
        let w = spec.resolve().unwrap();
        // the float members are not integer sizes, and stay unset
        assert_eq!(w.params.get("p.n"), Some(&(1 << 22)));
        assert!(!w.params.contains_key("p.a"));
        assert!(
            spec.origin
                .as_deref()
                .is_some_and(|o| o.ends_with("where n = 1 << 22, p.n = n")),
            "{:?}",
            spec.origin
        );
    }

    #[test]
    fn a_reassigned_or_ambiguous_name_has_no_value() {
        let src = r#"
int main() {
    int n = 1024;
    n = n * 2;
    int m = 64;
    for (int i = 0; i < 3; i++) k<<<n / 32, 32>>>(n, m, i);
}
void other() { int m = 128; }
"#;
        let d = host_defs(src);
        assert!(!d.scalars.contains_key("n"), "assigned twice");
        assert!(!d.scalars.contains_key("m"), "two values");
        assert!(!d.scalars.contains_key("i"), "incremented");
        assert!(one(src, &["n", "m", "i"]).resolve().is_err());
    }

    #[test]
    fn sites_skip_comments_strings_and_template_arguments() {
        let src = r#"
// old<<<1, 1>>>(n);
const char *s = "bad<<<1,1>>>()";
constexpr unsigned int B = 256u;
ns::tsum<B, float><<<dim3(64), dim3(B)>>>(
    x, out);
"#;
        let sites = launch_sites(src, &[]);
        assert_eq!(sites.len(), 1, "{sites:?}");
        assert_eq!(sites[0].kernel, "ns::tsum<B, float>");
        assert_eq!(sites[0].base_name(), "tsum");
        assert_eq!(sites[0].line, 5);
        assert_eq!(sites[0].args, vec!["x", "out"]);
        let w = workload(
            &sites[0],
            &["x".into(), "out".into()],
            &[],
            &host_defs(src),
            None,
        )
        .resolve()
        .unwrap();
        assert_eq!((w.grid, w.block), ([64, 1, 1], [256, 1, 1]));
    }

    #[test]
    fn a_launch_in_a_branch_the_host_code_does_not_take_is_not_predicted() {
        let src = r#"
template <unsigned B> __global__ void reduce(const float *x, float *y, int n);
void run(int n, int threads, int argc) {
    switch (threads) {
    case 256: reduce<256><<<n / 256, 256>>>(x, y, n); break;
    case 512: reduce<512><<<n / 512, 512>>>(x, y, n); break;
    }
    if (argc > 1) scale<<<n / 128, 128>>>(y, n);
}
int main(int argc, char **argv) {
    run(1 << 20, 256, argc);
}
"#;
        let host = HostFile::new(src, None);
        let params: Vec<String> = ["x", "y", "n"].iter().map(|s| s.to_string()).collect();
        let grids = |k: &str| -> Vec<[u64; 3]> {
            host.workloads(k, &params, &[])
                .iter()
                .map(|w| w.resolve().unwrap().grid)
                .collect()
        };
        assert_eq!(grids("reduce<256>"), [[4096, 1, 1]]);
        assert_eq!(grids("reduce<512>"), Vec::<[u64; 3]>::new());
        assert_eq!(
            host.untaken("reduce<512>", &params, &[]),
            [
                "the launch at line 6: reduce<512><<<n / 512, 512>>>(x, y, n) in run(1 << 20, \
                 256, argc) at line 11 is in a branch the host code does not take: \
                 `(threads) == (512)` is false where threads = 256"
            ]
        );
        // the program is read as run without arguments: `argc > 1` is false
        let params: Vec<String> = ["y", "n"].iter().map(|s| s.to_string()).collect();
        assert_eq!(host.workloads("scale", &params, &[]).len(), 0);
        let untaken = host.untaken("scale", &params, &[]);
        assert!(
            untaken[0].ends_with("`argc > 1` is false where argc = 1"),
            "{untaken:?}"
        );
        // a condition on a value read at run time may go either way: the launch stays
        let read = src.replace("argc > 1", "verbose > 1");
        let host = HostFile::new(&read, None);
        assert_eq!(host.workloads("scale", &params, &[]).len(), 1);
    }

    #[test]
    fn a_value_assigned_in_branches_is_the_taken_branch_s() {
        let src = r#"
__global__ void scale(float *x, int n);
int main(int argc, char **argv) {
    long big = 0;
    long n;
    if (big) { n = 1 << 24; } else { n = 1 << 20; }
    scale<<<n / 256, 256>>>(x, n);
    long m;
    if (argc > 1) m = 5; else m = 6;
    long k = 1;
    if (big) k = 7;
    k = 9;
    scale<<<m, 1>>>(x, m);
    scale<<<k, 2>>>(x, k);
}
"#;
        let host = HostFile::new(src, None);
        let params: Vec<String> = ["x", "n"].iter().map(|s| s.to_string()).collect();
        let resolved: Vec<Result<[u64; 3], String>> = host
            .workloads("scale", &params, &[])
            .iter()
            .map(|w| w.resolve().map(|r| r.grid))
            .collect();
        assert_eq!(resolved[0], Ok([4096, 1, 1]));
        // without arguments `argc > 1` is false
        assert_eq!(resolved[1], Ok([6, 1, 1]));
        // the last of two assignments taken runs on every path to the launch
        assert_eq!(resolved[2], Ok([9, 1, 1]));
    }
}
