//! CuPy's own timing helper, `cupyx.profiler.benchmark` (and its older name
//! `cupyx.time.repeat`): `benchmark(func, args=(), kwargs={}, n_repeat=10000, *, name=None,
//! n_warmup=10, max_duration=inf, devices=None)` calls `func(*args)` `n_warmup` times untimed,
//! then `n_repeat` times timed (CuPy's reference, docs.cupy.dev, cupyx.profiler.benchmark). The
//! file does not define it, so its calls are shaped here as the loop it runs:
//!
//! ```text
//! print(benchmark(step, (x, 4096), n_repeat=20))
//! for (long kerncast_run = 0; kerncast_run < 10 + 20; ++kerncast_run) { step(x, 4096); }
//! ```
//!
//! with the call as written for the loop's head in the note. A `max_duration=` may stop the
//! repeats early, after a time only a run knows, so such a call's runs are not counted.

use super::calls::{call_of_def, lambda, lambda_body, Def};
use super::{c_expression, keyword, kwarg, launch, tuple};
use regex::Regex;
use std::sync::LazyLock;

/// CuPy's documented defaults.
const N_REPEAT: &str = "10000";
const N_WARMUP: &str = "10";

/// A call of the helper, as the C loop it runs.
pub(super) struct Shaped {
    pub c: String,
    /// Whether the loop's body is a launch (for the report's list of the file's launches).
    pub launches: bool,
    /// The call as written, the loop's head in the note.
    pub head: String,
    /// Why its runs cannot be counted (`max_duration=`).
    pub why_not: Option<String>,
}

/// The helper's call in `statement` (alone, assigned or printed), where `host` imports it from
/// `cupyx`, with `func` one of the file's functions, a kernel handle or a lambda of one.
pub(super) fn shape(
    host: &str,
    statement: &str,
    raw: &str,
    defs: &[Def],
    handles: &[(String, String)],
) -> Option<Shaped> {
    static CALL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:\bcupyx\.(?:profiler|time)\.)?\b(?:benchmark|repeat)\s*\(").unwrap()
    });
    static IMPORTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\bfrom\s+cupyx\.(?:profiler|time)\s+import\b|\bimport\s+cupyx\b").unwrap()
    });
    if !IMPORTED.is_match(host) {
        return None;
    }
    let m = CALL.find(statement)?;
    let name = m.as_str().trim_end_matches('(').trim_end();
    // the file's own `benchmark` is a def, called as one
    if defs.iter().any(|d| name.ends_with(d.name.as_str())) {
        return None;
    }
    let open = m.end() - 1;
    let (_, args) = crate::launch_sites::c_text::arg_texts(statement, open)?;
    let args: Vec<String> = args.into_iter().map(String::from).collect();
    let positional: Vec<&String> = args.iter().filter(|a| !keyword(a)).collect();
    let named = |name: &str, at: usize| {
        kwarg(&args, name).or_else(|| positional.get(at).map(|a| a.to_string()))
    };
    let func = named("func", 0)?;
    let func_args = named("args", 1).map_or_else(Vec::new, |a| tuple(&a));
    let n_repeat = named("n_repeat", 3).unwrap_or_else(|| N_REPEAT.into());
    let n_warmup = kwarg(&args, "n_warmup").unwrap_or_else(|| N_WARMUP.into());
    let (body, launches) = match lambda(&func) {
        Some((params, body)) if params.is_empty() => lambda_body(body, defs, handles)?,
        Some(_) => return None,
        None => {
            let call = format!("{func}({})", func_args.join(", "));
            match launch(&call, handles) {
                Some(c) => (c, true),
                None => call_of_def(&call, defs, handles)?,
            }
        }
    };
    let runs = |e: &str| c_expression(e).unwrap_or_else(|| "python_value".into());
    let head = raw
        .find(name)
        .and_then(|k| {
            let open = k + raw[k..].find('(')?;
            let close = crate::launch_sites::c_text::matching_close(raw.as_bytes(), open)?;
            Some(raw[k..=close].to_string())
        })
        .unwrap_or_else(|| raw.to_string());
    let why_not = kwarg(&args, "max_duration").map(|d| {
        format!(
            "`max_duration={d}` stops the repeats once they take longer, which only a run knows"
        )
    });
    Some(Shaped {
        c: format!(
            "for (long kerncast_run = 0; kerncast_run < ({}) + ({}); ++kerncast_run) {{ {body} }}",
            runs(&n_warmup),
            runs(&n_repeat)
        ),
        launches,
        head,
        why_not,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const IMPORT: &str = "from cupyx.profiler import benchmark\n";

    #[test]
    fn a_benchmark_call_is_the_loop_it_runs() {
        let defs = [Def::of("def step(x, n):").unwrap()];
        let handles = [("add".to_string(), "my_add".to_string())];
        let shaped = |s: &str| shape(IMPORT, s, s, &defs, &handles);
        let s = shaped("print(benchmark(step, (x, 4096), n_repeat=20))").unwrap();
        assert_eq!(
            s.c,
            "for (long kerncast_run = 0; kerncast_run < (10) + (20); ++kerncast_run) { step(x, \
             4096); }"
        );
        assert_eq!(
            (s.head.as_str(), s.launches, s.why_not),
            ("benchmark(step, (x, 4096), n_repeat=20)", false, None)
        );
        // a kernel handle, the defaults, and the qualified name
        let s =
            shaped("r = cupyx.profiler.benchmark(add, ((n // 256,), (256,), (x, y, cp.int32(n))))")
                .unwrap();
        assert_eq!(
            s.c,
            "for (long kerncast_run = 0; kerncast_run < (10) + (10000); ++kerncast_run) { \
             my_add<<<n / 256, 256>>>(x, y, n); }"
        );
        assert!(s.launches);
        // a lambda, n_warmup and max_duration
        let s = shaped("benchmark(lambda: step(x, 8), n_warmup=0, n_repeat=5, max_duration=2)")
            .unwrap();
        assert!(
            s.c.contains("< (0) + (5);") && s.c.contains("{ step(x, 8); }"),
            "{}",
            s.c
        );
        assert!(s
            .why_not
            .unwrap()
            .starts_with("`max_duration=2` stops the repeats"));
        // not CuPy's helper: the file does not import it, or defines its own `benchmark`
        assert!(shape("", "benchmark(step, (x, 1))", "", &defs, &handles).is_none());
        assert!(shaped("benchmark(print, (1,))").is_none());
    }
}
