//! The options a host compiles its NVRTC programs with, so that a CUDA program carried in a
//! host string is lowered as NVRTC would compile it: a `-DREPS=4` the host passes changes the
//! kernel.
//!
//! ```text
//! nvrtcCreateProgram(&prog, src, "saxpy.cu", 0, NULL, NULL);
//! const char *opts[] = {"--gpu-architecture=compute_80", "-DREPS=4"};
//! nvrtcCompileProgram(prog, 2, opts);
//! ```
//!
//! The options are read where the file fixes them: `NULL`, an array (or `std::vector`) declared
//! once with strings the file fixes and never added to, or the address of one such string. Any
//! other is reported as unread, never guessed.

use super::c_text::{bare_name, bracket_after_once, call_args, code_only};
use super::cl_build::{fixed_string, pick_build, BuildCall};
use regex::Regex;
use std::sync::LazyLock;

static COMPILE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bnvrtcCompileProgram\s*\(").unwrap());
static CREATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bnvrtcCreateProgram\s*\(").unwrap());
static NAME_EXPRESSION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bnvrtcAddNameExpression\s*\(").unwrap());
static LOWERED_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bnvrtcGetLoweredName\s*\(").unwrap());

/// Every `nvrtcCompileProgram` of `text`, in order (`code` is `text` with comments and strings
/// blanked).
fn compile_calls(text: &str, code: &str) -> Vec<BuildCall<Vec<String>>> {
    let line = |at: usize| code[..at].matches('\n').count() + 1;
    let mut out = Vec::new();
    for m in COMPILE.find_iter(code) {
        let Some((_, args)) = call_args(code, m.end() - 1) else {
            continue;
        };
        let [program, count, options, ..] = args.as_slice() else {
            continue;
        };
        out.push(BuildCall {
            line: line(m.start()),
            program: code[program.clone()].to_string(),
            options: option_list(text, code, &text[count.clone()], &text[options.clone()]),
        });
    }
    out
}

/// The `count` options `options` points at.
fn option_list(text: &str, code: &str, count: &str, options: &str) -> Result<Vec<String>, String> {
    let count = count.trim();
    let options = options.trim();
    if ["0", "NULL", "nullptr"].contains(&count) || ["NULL", "nullptr", "0"].contains(&options) {
        return Ok(Vec::new());
    }
    if let Some(one) = options.strip_prefix('&') {
        return fixed_string(text, code, one).map(|o| vec![o]);
    }
    let name = options
        .strip_suffix(".data()")
        .unwrap_or(options)
        .trim()
        .to_string();
    let all = string_array(text, code, &name)?;
    // the count the call passes: a number or a `#define`d one takes that many, `opts.size()`
    // and `sizeof` forms the whole array
    let fixed = count.parse::<usize>().ok().or_else(|| {
        let v = *crate::annotations::int_macros(text).get(count)?;
        usize::try_from(v).ok()
    });
    match fixed {
        Some(n) if n <= all.len() => Ok(all[..n].to_vec()),
        Some(n) => Err(format!(
            "the call passes {n} options and `{name}` holds {}",
            all.len()
        )),
        None if count.contains("size") => Ok(all),
        None => Err(format!("the count of options `{count}` is not read")),
    }
}

/// The strings of an array or vector declared once with them (`const char *o[] = {…}`,
/// `std::vector<const char *> o = {…}`, `o{…}`), when nothing adds to it.
fn string_array(text: &str, code: &str, name: &str) -> Result<Vec<String>, String> {
    let Some(name) = bare_name(name) else {
        return Err(format!(
            "`{name}` is not an array of options this file fixes"
        ));
    };
    let n = regex::escape(name);
    let added = Regex::new(&format!(
        r"\b{n}\s*(?:\.|->)\s*(?:push_back|emplace_back|insert|assign|resize)\b|\b{n}\s*\[[^\]]*\]\s*=\s*[^=\s{{]"
    ))
    .unwrap();
    if added.is_match(code) {
        return Err(format!("`{name}` is built at run time"));
    }
    let declared = Regex::new(&format!(r"\b{n}\s*(?:\[[^\]]*\]\s*)?(?:=\s*)?\(?\s*\{{")).unwrap();
    let braces = bracket_after_once(code, &(0..code.len()), &declared)
        .ok_or_else(|| format!("`{name}` is not declared once with its options"))?;
    let (_, items) = call_args(code, braces.start).unwrap_or_default();
    items
        .iter()
        .map(|r| fixed_string(text, code, &text[r.clone()]))
        .collect()
}

/// The NVRTC programs made from the source text held in `source`:
/// `nvrtcCreateProgram(&prog, source, "name.cu", …)`.
fn programs_from(code: &str, source: &str) -> Vec<String> {
    CREATE
        .find_iter(code)
        .filter_map(|m| {
            let (_, args) = call_args(code, m.end() - 1)?;
            let [program, src, ..] = args.as_slice() else {
                return None;
            };
            let program = code[program.clone()].trim().trim_start_matches('&').trim();
            let src = code[src.clone()].trim();
            let src = src.strip_suffix(".c_str()").unwrap_or(src).trim();
            (src == source).then(|| program.to_string())
        })
        .collect()
}

/// The name expressions (`nvrtcAddNameExpression(prog, "scale<float, 3>")`) of the programs
/// made from `source`, or of every program when the file does not say which: the template
/// instances NVRTC compiles, as the file fixes them, each with the 1-based line of its call.
pub fn name_expressions(text: &str, source: Option<&str>) -> Vec<(String, usize)> {
    let code = code_only(text);
    let programs = source.map(|s| programs_from(&code, s)).unwrap_or_default();
    NAME_EXPRESSION
        .find_iter(&code)
        .filter_map(|m| {
            let (_, args) = call_args(&code, m.end() - 1)?;
            let [program, expression, ..] = args.as_slice() else {
                return None;
            };
            let program = code[program.clone()].trim();
            if !programs.is_empty() && !programs.iter().any(|p| p == program) {
                return None;
            }
            let line = code[..m.start()].matches('\n').count() + 1;
            let expression = fixed_string(text, &code, &text[expression.clone()]).ok()?;
            Some((expression, line))
        })
        .collect()
}

/// The name expression whose lowered name the variable `name` receives
/// (`nvrtcGetLoweredName(prog, "scale<float, 3>", &name)`), without its `&`: the kernel a
/// `cuModuleGetFunction` of `name` gets.
pub(super) fn lowered_name(text: &str, code: &str, name: &str) -> Option<String> {
    let name = name.trim();
    let mut found = LOWERED_NAME.find_iter(code).filter_map(|m| {
        let (_, args) = call_args(code, m.end() - 1)?;
        let [_, expression, receiver, ..] = args.as_slice() else {
            return None;
        };
        let receiver = code[receiver.clone()].trim().trim_start_matches('&').trim();
        (receiver == name)
            .then(|| fixed_string(text, code, &text[expression.clone()]).ok())
            .flatten()
    });
    let expression = found.next()?;
    // assigned twice: which one a launch gets depends on the run
    found
        .next()
        .is_none()
        .then(|| expression.trim().trim_start_matches('&').trim().to_string())
}

/// Whether `text` compiles a program with NVRTC.
pub fn compiles(text: &str) -> bool {
    text.contains("nvrtcCompileProgram")
}

/// The `nvrtcCompileProgram` that compiles a program of `text`: one made from the variable
/// `source` when the file says which, else the file's compiles when they all pass the same
/// options. `Ok(None)` when the file compiles no program; `Err` says why the options are not
/// known.
pub fn options_for(
    text: &str,
    source: Option<&str>,
) -> Result<Option<BuildCall<Vec<String>>>, String> {
    let code = code_only(text);
    let calls = compile_calls(text, &code);
    let programs = source.map(|s| programs_from(&code, s)).unwrap_or_default();
    pick_build(&calls, &programs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compile calls of `host` as `line program: options` or `line program: why not`.
    fn read(host: &str) -> Vec<String> {
        compile_calls(host, &code_only(host))
            .into_iter()
            .map(|c| match c.options {
                Ok(o) => format!("{} {}: {}", c.line, c.program, o.join(" | ")),
                Err(why) => format!("{} {}: not read: {why}", c.line, c.program),
            })
            .collect()
    }

    #[test]
    fn option_arrays_vectors_single_strings_and_null() {
        let host = r#"
#define REPS "-DREPS=4"
const char *opts[] = {"--gpu-architecture=compute_80", /* c */ "--fmad=false", REPS};
std::vector<const char *> more{"-std=c++17", "-DN=2"};
const char *one = "--use_fast_math";
std::vector<const char *> grown = {"-DA=1"};
void f(int arch) {
    nvrtcCompileProgram(p, 3, opts);
    nvrtcCompileProgram(q, 2, opts);
    nvrtcCompileProgram(r, more.size(), more.data());
    nvrtcCompileProgram(s, 1, &one);
    nvrtcCompileProgram(t, 0, NULL);
    grown.push_back(arch_flag(arch));
    nvrtcCompileProgram(u, grown.size(), grown.data());
    nvrtcCompileProgram(v, 4, opts);
    nvrtcCompileProgram(w, NUM_OPTS, opts);
    nvrtcCompileProgram(x, num_opts, opts);
    nvrtcCompileProgram(y, sizeof(opts) / sizeof(opts[0]), opts);
}
#define NUM_OPTS 1
"#;
        assert_eq!(
            read(host),
            vec![
                "8 p: --gpu-architecture=compute_80 | --fmad=false | -DREPS=4",
                "9 q: --gpu-architecture=compute_80 | --fmad=false",
                "10 r: -std=c++17 | -DN=2",
                "11 s: --use_fast_math",
                "12 t: ",
                "14 u: not read: `grown` is built at run time",
                "15 v: not read: the call passes 4 options and `opts` holds 3",
                "16 w: --gpu-architecture=compute_80",
                "17 x: not read: the count of options `num_opts` is not read",
                "18 y: --gpu-architecture=compute_80 | --fmad=false | -DREPS=4",
            ]
        );
    }

    #[test]
    fn the_compile_of_a_program_is_found_by_its_source() {
        let host = r#"
nvrtcProgram a, b;
nvrtcCreateProgram(&a, src_a, "a.cu", 0, NULL, NULL);
nvrtcCreateProgram(&b, src_b.c_str(), "b.cu", 0, NULL, NULL);
const char *oa[] = {"-DV=1"};
const char *ob[] = {"-DV=3"};
nvrtcCompileProgram(a, 1, oa);
nvrtcCompileProgram(b, 1, ob);
"#;
        let opts = |s| options_for(host, s).map(|c| c.map(|c| (c.line, c.options.unwrap())));
        assert_eq!(
            opts(Some("src_b")),
            Ok(Some((8, vec!["-DV=3".to_string()])))
        );
        assert_eq!(
            opts(None),
            Err("the builds at lines 7 and 8 pass different options, and which builds this program is not found".into())
        );
        assert!(compiles(host));
        assert_eq!(options_for("int main() {}", None), Ok(None));
    }

    #[test]
    fn name_expressions_and_the_lowered_names_they_give() {
        let host = r#"
#define EXPR "&scale<float, 3>"
nvrtcCreateProgram(&a, src_a, "a.cu", 0, NULL, NULL);
nvrtcCreateProgram(&b, src_b, "b.cu", 0, NULL, NULL);
nvrtcAddNameExpression(a, EXPR);
nvrtcAddNameExpression(b, "other<int>");
nvrtcAddNameExpression(b, made_at_run_time);
const char *lowered;
nvrtcGetLoweredName(a, EXPR, &lowered);
const char *twice;
nvrtcGetLoweredName(b, "x<1>", &twice);
nvrtcGetLoweredName(b, "x<2>", &twice);
"#;
        let expressions = |source| {
            name_expressions(host, source)
                .into_iter()
                .map(|(e, line)| format!("{line}: {e}"))
                .collect::<Vec<_>>()
        };
        assert_eq!(expressions(Some("src_a")), ["5: &scale<float, 3>"]);
        assert_eq!(expressions(None), ["5: &scale<float, 3>", "6: other<int>"]);
        let code = code_only(host);
        assert_eq!(
            lowered_name(host, &code, "lowered").as_deref(),
            Some("scale<float, 3>")
        );
        assert_eq!(lowered_name(host, &code, "twice"), None);
        assert_eq!(lowered_name(host, &code, "unknown"), None);
    }
}
