//! The host's definitions one launch's workload takes: each name it reads, after the names its
//! definition reads, or why it has none.

use super::branches;
use super::c_text::c_expr;
use super::host_defs::HostDefs;
use super::occupancy_calls::{self, QueryKind};
use crate::workload::{Ask, DeviceQuery, Expr};
use std::collections::{BTreeMap, BTreeSet};

/// The host's definitions a launch's workload takes, in the order they read each other.
pub(super) struct Definer<'a> {
    pub(super) defs: &'a HostDefs,
    /// The kernel the launch names, which an occupancy query must be about.
    pub(super) kernel: &'a str,
    pub(super) renames: &'a BTreeMap<String, String>,
    pub(super) back: &'a BTreeMap<&'a str, &'a str>,
    /// Why the host code gives a name no single value (`n` is given values at lines 15 and 22).
    pub(super) why_no_value: &'a dyn Fn(&str) -> Option<String>,
    pub(super) seen: BTreeSet<String>,
    pub(super) order: Vec<(String, Expr)>,
    /// The host's definitions taken, for the report to show.
    pub(super) sources: Vec<String>,
    /// The names read that have no value, and why, for the error that asks for them.
    pub(super) unset: BTreeMap<String, String>,
    /// The names the occupancy API sets, asked of each device.
    pub(super) queries: Vec<DeviceQuery>,
    /// Definitions that read a name without a value (`blocks = std::min((n + 255) / 256, …)`
    /// with `n` read from the command line), in the order they read each other: a launch
    /// sized by one keeps it, so that its error asks for the name at the root and
    /// `--param n=…` gives the launch its size. Each with its source, as `sources` shows it.
    pub(super) pending: Vec<(String, Expr, String)>,
}

impl Definer<'_> {
    /// Adds `name` (a parameter or helper name of the workload) and, first, every name its
    /// definition reads, to `order`; a name without a usable definition is left out, and
    /// `unset` says why.
    pub(super) fn define(&mut self, name: &str) {
        if !self.seen.insert(name.to_string()) || is_given(name, self.defs) {
            return;
        }
        let host = self.back.get(name).copied().unwrap_or(name);
        if let Some(q) = self.defs.queries.get(host) {
            return self.query(name, host, q);
        }
        let Some(text) = self.defs.scalars.get(host) else {
            if let Some(why) = (self.why_no_value)(host) {
                self.unset.insert(name.to_string(), why);
            }
            return;
        };
        let taken = branches::settled(text, self.defs);
        match self.expression(&taken) {
            Ok(e) => {
                self.order.push((name.to_string(), e));
                self.sources.push(shown_source(host, text, &taken));
            }
            Err(why) => {
                if let Ok(e) = Expr::parse(&c_expr(&taken, &self.defs.fns)) {
                    let source = shown_source(host, text, &taken);
                    self.pending
                        .push((name.to_string(), rename(e, self.renames), source));
                }
                let why = format!("`{host} = {}` {why}", text.trim());
                self.unset.insert(name.to_string(), why);
            }
        }
    }

    /// `text` as a workload expression, once the names it reads are defined; `Err` says what
    /// it lacks ("reads `n`; `n` is given a value at lines 14 and 22, …").
    fn expression(&mut self, text: &str) -> Result<Expr, String> {
        let e = Expr::parse(&c_expr(text, &self.defs.fns))
            .map_err(|_| "is not an integer expression kerncast evaluates".to_string())?;
        let e = rename(e, self.renames);
        let mut vars = Vec::new();
        e.vars(&mut vars);
        for v in &vars {
            self.define(v);
        }
        match self.first_undefined(&vars) {
            None => Ok(e),
            Some(v) => {
                let why = self.unset.get(&v).map(|w| format!("; {w}"));
                Err(format!("reads `{v}`{}", why.unwrap_or_default()))
            }
        }
    }

    /// The first of `vars` without a value.
    fn first_undefined(&self, vars: &[String]) -> Option<String> {
        vars.iter()
            .find(|v| {
                !self.order.iter().any(|(n, _)| n == *v)
                    && !self.queries.iter().any(|q| &q.name == *v)
                    && !is_given(v, self.defs)
            })
            .cloned()
    }

    /// `name`, set by the occupancy call `q`: asked of each device, once the sizes the call
    /// passes are defined.
    fn query(&mut self, name: &str, host: &str, q: &occupancy_calls::HostQuery) {
        if !occupancy_calls::same_kernel(&q.kernel, self.kernel) {
            let why = format!(
                "`{host}` is set by `{}` for `{}`, not for the kernel launched",
                q.shown, q.kernel
            );
            self.unset.insert(name.to_string(), why);
            return;
        }
        let mut args = Vec::new();
        for text in &q.args {
            match self.expression(text) {
                Ok(e) => args.push(e),
                Err(why) => {
                    let why = format!("`{}` passes `{text}`, which {why}", q.shown);
                    self.unset.insert(name.to_string(), why);
                    return;
                }
            }
        }
        let [a, b] = <[Expr; 2]>::try_from(args).expect("two sizes");
        let ask = match q.kind {
            QueryKind::MaxPotentialBlockSize => Ask::MaxPotentialBlockSize {
                dynamic_shared: a,
                limit: b,
            },
            QueryKind::MinGridSize => Ask::MinGridSize {
                dynamic_shared: a,
                limit: b,
            },
            QueryKind::ActiveBlocksPerSm => Ask::ActiveBlocksPerSm {
                threads: a,
                dynamic_shared: b,
            },
        };
        self.queries.push(DeviceQuery {
            name: name.to_string(),
            ask,
            shown: format!("`{}`'s answer", q.shown),
        });
        self.sources.push(format!("{host} from {}", q.shown));
    }
}

/// `host = text` as the report shows where a workload's value comes from; where the host's
/// values settle it (a conditional's branch, a list's item) it shows what it is taken as, and
/// from what (`n = 1 << 24 (from `argc > 1 ? atoi(argv[1]) : 1 << 24`, with argc = 1, the
/// program run without arguments)`).
fn shown_source(host: &str, text: &str, taken: &str) -> String {
    let text = text.trim();
    if taken == text {
        return format!("{host} = {text}");
    }
    let argc = if crate::c_lex::has_word(text, "argc") {
        format!(
            ", with argc = {}, the program run without arguments",
            branches::ARGC
        )
    } else {
        String::new()
    };
    format!("{host} = {taken} (from `{text}`{argc})")
}

/// Whether `name` needs no definition from the host code: a macro, or a value of the device the
/// workload is predicted on.
fn is_given(name: &str, defs: &HostDefs) -> bool {
    defs.macros.contains_key(name) || name == crate::workload::DEVICE_SM_COUNT
}

pub(super) fn rename(e: Expr, renames: &BTreeMap<String, String>) -> Expr {
    e.map_vars(&|v| Expr::Var(renames.get(&v).cloned().unwrap_or(v)))
}
