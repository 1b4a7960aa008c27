//! The command line's `--param [KERNEL:]NAME=VALUE` values (`analyze`, `check`, `predict`).
//!
//! A value goes where its name is: a name the host code leaves unknown (a size read at run
//! time) is given to the host reading, which computes the launches from it; a kernel
//! parameter (or a by-value struct's field, `d.m`) is set in the kernel's workloads; a name an
//! annotation's workload reads is given to it. A scope (`gelu_forward:block_size=128`) limits a
//! value to one kernel's workloads and launches; an unscoped name applies to all. A name that
//! is none of these is an error that lists the names the program has ([`unknown_names`]).

use crate::workload::Expr;

/// One `--param`.
#[derive(Clone, Debug, PartialEq)]
pub struct Given {
    /// The kernel it is for (`gelu_forward` of `gelu_forward:block_size=128`); `None`: all.
    pub kernel: Option<String>,
    pub name: String,
    pub value: Value,
}

/// A `--param` value: an integer expression (`1<<20`, `4096`) or a floating-point number
/// (`1e-5`, `0.5`).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(Expr),
    Float(f64),
}

impl Value {
    /// The number, for the host reading; `None` for an integer expression that names other
    /// values (`n/2`), which only a workload can evaluate.
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Int(e) => e
                .eval(&Default::default(), crate::workload::Div::Floor)
                .ok()
                .map(|v| v as f64),
            Value::Float(f) => Some(*f),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(e) => write!(f, "{e}"),
            Value::Float(x) => write!(f, "{x}"),
        }
    }
}

impl std::fmt::Display for Given {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kernel {
            Some(k) => write!(f, "{k}:{}={}", self.name, self.value),
            None => write!(f, "{}={}", self.name, self.value),
        }
    }
}

/// Parses the `--param`s; a name given twice for the same scope takes its last value.
pub fn parse(params: &[String]) -> Result<Vec<Given>, String> {
    let mut out: Vec<Given> = Vec::new();
    for p in params {
        let (key, value) = p
            .split_once('=')
            .ok_or_else(|| format!("--param `{p}`: expected [KERNEL:]NAME=VALUE"))?;
        // `a::b` is a qualified kernel name, not a scope of its own
        let (kernel, name) = match scope_split(key.trim()) {
            Some((k, n)) => (Some(k.trim().to_string()), n.trim().to_string()),
            None => (None, key.trim().to_string()),
        };
        if name.is_empty() || kernel.as_deref() == Some("") {
            return Err(format!("--param `{p}`: expected [KERNEL:]NAME=VALUE"));
        }
        let text = value.trim();
        let value = match Expr::parse(text) {
            Ok(e) => Value::Int(e),
            Err(why) => match text.parse::<f64>() {
                Ok(x) if x.is_finite() => Value::Float(x),
                _ => return Err(format!("--param {p}: {why}")),
            },
        };
        let given = Given {
            kernel,
            name,
            value,
        };
        out.retain(|o| (&o.kernel, &o.name) != (&given.kernel, &given.name));
        out.push(given);
    }
    Ok(out)
}

/// `kernel:name` split at its last `:` that is not part of a `::`.
fn scope_split(key: &str) -> Option<(&str, &str)> {
    let b = key.as_bytes();
    (0..b.len()).rev().find_map(|i| {
        let lone =
            b[i] == b':' && (i == 0 || b[i - 1] != b':') && b.get(i + 1).is_none_or(|c| *c != b':');
        lone.then(|| (&key[..i], &key[i + 1..]))
    })
}

/// Whether a scope names the kernel `entry` (a PTX entry, demangled as `demangled`): its
/// demangled name (`fill<float>`, `ns::scan<float>`), its template's (`fill`), or either
/// without namespaces (`scan`), spaces aside.
pub fn scope_names(scope: &str, demangled: &str) -> bool {
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let scope = squeeze(scope);
    let full = squeeze(demangled);
    let base = squeeze(crate::annotations::template_base(demangled));
    let last = |s: &str| s.rsplit("::").next().unwrap_or(s).to_string();
    [full.clone(), base.clone(), last(&full), last(&base)].contains(&scope)
}

/// The values that apply to the kernel `demangled`: unscoped ones, then its own (which win).
pub fn for_kernel<'a>(given: &'a [Given], demangled: &str) -> Vec<&'a Given> {
    let unscoped = given.iter().filter(|g| g.kernel.is_none());
    let own = given.iter().filter(|g| {
        g.kernel
            .as_deref()
            .is_some_and(|k| scope_names(k, demangled))
    });
    let mut out: Vec<&Given> = Vec::new();
    for g in unscoped.chain(own) {
        out.retain(|o| o.name != g.name);
        out.push(g);
    }
    out
}

/// The error for `--param`s that name nothing (`unused`): each, with the names the program has
/// (`known`, sorted and each once).
pub fn unknown_names(unused: &[&Given], known: &[String]) -> Option<String> {
    if unused.is_empty() {
        return None;
    }
    let mut names: Vec<&str> = known.iter().map(String::as_str).collect();
    names.sort();
    names.dedup();
    let listed = if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    };
    let each: Vec<String> = unused
        .iter()
        .map(|g| match &g.kernel {
            Some(k) => format!("--param {g}: kernel `{k}` has no parameter, and its launches no value, called `{}`", g.name),
            None => format!("--param {g}: no kernel parameter, host value or workload name is called `{}`", g.name),
        })
        .collect();
    Some(format!(
        "{}; the names this program has: {listed}",
        each.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> Given {
        parse(&[s.to_string()]).unwrap().remove(0)
    }

    #[test]
    fn a_param_is_scoped_integer_or_floating() {
        let g = one("gelu_forward:block_size=128");
        assert_eq!(g.kernel.as_deref(), Some("gelu_forward"));
        assert_eq!(g.name, "block_size");
        assert_eq!(g.value.number(), Some(128.0));
        let e = one("epsilon=1e-5");
        assert_eq!((e.kernel, e.value), (None, Value::Float(1e-5)));
        assert_eq!(one("n=1<<20").value.number(), Some(1048576.0));
        // a qualified kernel keeps its `::`; a field keeps its dot
        let q = one("ns::scan<float>:d.m=3");
        assert_eq!(
            (q.kernel.as_deref(), q.name.as_str()),
            (Some("ns::scan<float>"), "d.m")
        );
        assert!(parse(&["n".into()]).is_err());
        assert!(parse(&[":n=1".into()]).is_err());
        assert!(parse(&["n=abc+".into()])
            .unwrap_err()
            .contains("--param n=abc+"));
    }

    #[test]
    fn a_scope_names_a_kernel_its_template_or_its_unqualified_name() {
        assert!(scope_names("fill", "fill<float>"));
        assert!(scope_names("fill<float>", "fill< float >"));
        assert!(scope_names("scan", "ns::scan<float>"));
        assert!(!scope_names("fill", "fill_rows"));
        let given = parse(&["n=1".into(), "k:n=2".into(), "m=3".into()]).unwrap();
        let for_k: Vec<String> = for_kernel(&given, "k")
            .iter()
            .map(|g| g.to_string())
            .collect();
        assert_eq!(for_k, ["m=3", "k:n=2"]);
        let for_j: Vec<String> = for_kernel(&given, "j")
            .iter()
            .map(|g| g.to_string())
            .collect();
        assert_eq!(for_j, ["n=1", "m=3"]);
    }

    #[test]
    fn an_unknown_name_lists_the_names_there_are() {
        let given = parse(&["locl_size=64".into()]).unwrap();
        let msg =
            unknown_names(&[&given[0]], &["n".into(), "local_size".into(), "n".into()]).unwrap();
        assert_eq!(
            msg,
            "--param locl_size=64: no kernel parameter, host value or workload name is called \
             `locl_size`; the names this program has: local_size, n"
        );
        assert_eq!(unknown_names(&[], &[]), None);
    }
}
