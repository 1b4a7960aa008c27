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
//! other is reported as unread, never guessed. So are the headers `nvrtcCreateProgram` gives a
//! program as strings (its `numHeaders`, `headers` and `includeNames`), which the program's
//! `#include "name"` finds.

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
    let n = counted(text, count, all.len(), "options", &name)?;
    Ok(all[..n].to_vec())
}

/// How many of the `held` strings of the array `name` a call passes as `count`: a number or a
/// `#define`d one that many, `opts.size()` and `sizeof` forms the whole array.
fn counted(text: &str, count: &str, held: usize, what: &str, name: &str) -> Result<usize, String> {
    let fixed = count.parse::<usize>().ok().or_else(|| {
        let v = *crate::annotations::int_macros(text).get(count)?;
        usize::try_from(v).ok()
    });
    match fixed {
        Some(n) if n <= held => Ok(n),
        Some(n) => Err(format!(
            "the call passes {n} {what} and `{name}` holds {held}"
        )),
        None if count.contains("size") => Ok(held),
        None => Err(format!("the count of {what} `{count}` is not read")),
    }
}

/// A header NVRTC is given as a string: the program's `#include "name"` reads `text`.
#[derive(Debug, Clone, PartialEq)]
pub struct StringHeader {
    pub name: String,
    pub text: String,
}

/// The headers given as strings to the `nvrtcCreateProgram` that makes a program from the
/// variable `source` (to every one when the file does not say which, if they agree), as
/// `(line of the call, headers)`. `Ok(None)` when no call gives headers; `Err` says why they
/// are not known.
pub fn headers_for(
    text: &str,
    source: Option<&str>,
) -> Result<Option<(usize, Vec<StringHeader>)>, String> {
    let code = code_only(text);
    let mut calls = Vec::new();
    for m in CREATE.find_iter(&code) {
        let Some((_, args)) = call_args(&code, m.end() - 1) else {
            continue;
        };
        let [_, src, _, count, headers, names, ..] = args.as_slice() else {
            continue;
        };
        let src = code[src.clone()].trim();
        if source.is_some_and(|s| src.strip_suffix(".c_str()").unwrap_or(src).trim() != s) {
            continue;
        }
        let line = code[..m.start()].matches('\n').count() + 1;
        let read = string_headers(
            text,
            &code,
            text[count.clone()].trim(),
            text[headers.clone()].trim(),
            text[names.clone()].trim(),
        );
        calls.push((line, read));
    }
    let calls: Vec<(usize, Result<Vec<StringHeader>, String>)> = calls
        .into_iter()
        .filter(|(_, h)| h.as_ref().map_or(true, |h| !h.is_empty()))
        .collect();
    let Some((first_line, first)) = calls.first() else {
        return Ok(None);
    };
    if let Some((line, Err(why))) = calls.iter().find(|(_, h)| h.is_err()) {
        return Err(format!(
            "the headers of the nvrtcCreateProgram at line {line} are not read: {why}"
        ));
    }
    if let Some((line, _)) = calls.iter().find(|(_, h)| h != first) {
        return Err(format!(
            "the nvrtcCreateProgram calls at lines {first_line} and {line} give different headers, and which makes this program is not found"
        ));
    }
    Ok(first.clone().ok().map(|h| (*first_line, h)))
}

/// The `count` headers of the arrays `headers` (their texts) and `names` (their include names).
fn string_headers(
    text: &str,
    code: &str,
    count: &str,
    headers: &str,
    names: &str,
) -> Result<Vec<StringHeader>, String> {
    let none = |s: &str| ["0", "NULL", "nullptr"].contains(&s);
    if none(count) || none(headers) {
        return Ok(Vec::new());
    }
    let texts = string_array(text, code, headers)?;
    let names = string_array(text, code, names)?;
    let n = counted(
        text,
        count,
        texts.len().min(names.len()),
        "headers",
        headers,
    )?;
    names
        .into_iter()
        .zip(texts)
        .take(n)
        .map(|(name, text)| {
            let path = std::path::Path::new(&name);
            let plain = path
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
            if plain && !name.is_empty() {
                Ok(StringHeader { name, text })
            } else {
                Err(format!(
                    "the include name `{name}` is not a relative path inside the program's folder"
                ))
            }
        })
        .collect()
}

/// The strings of an array or vector declared once with them (`const char *o[] = {…}`,
/// `std::vector<const char *> o = {…}`, `o{…}`), when nothing adds to it.
fn string_array(text: &str, code: &str, name: &str) -> Result<Vec<String>, String> {
    let Some(name) = bare_name(name) else {
        return Err(format!(
            "`{name}` is not an array of strings this file fixes"
        ));
    };
    let n = regex::escape(name);
    let added = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b{n}\s*(?:\.|->)\s*(?:push_back|emplace_back|insert|assign|resize)\b|\b{n}\s*\[[^\]]*\]\s*=\s*[^=\s{{]"
    ))
    .unwrap();
    if added.is_match(code) {
        return Err(format!("`{name}` is built at run time"));
    }
    let declared = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b{n}\s*(?:\[[^\]]*\]\s*)?(?:=\s*)?\(?\s*\{{"
    ))
    .unwrap();
    let braces = bracket_after_once(code, &(0..code.len()), &declared)
        .ok_or_else(|| format!("`{name}` is not declared once with its strings"))?;
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
    fn headers_given_as_strings_are_read_for_the_program_they_are_given_to() {
        let host = r##"
const char *common = "#define REPS 3\n";
const char *hdrs[] = {common, "#pragma once\n"};
const char *names[] = {"common.h", "inc/once.h"};
const char *up[] = {"../secret.h"};
std::vector<const char *> grown;
nvrtcCreateProgram(&a, src_a, "a.cu", 2, hdrs, names);
nvrtcCreateProgram(&b, src_b, "b.cu", NUM, hdrs, names);
nvrtcCreateProgram(&c, src_c, "c.cu", 0, NULL, NULL);
nvrtcCreateProgram(&d, src_d, "d.cu", 3, hdrs, names);
nvrtcCreateProgram(&e, src_e, "e.cu", 1, hdrs, up);
nvrtcCreateProgram(&f, src_f, "f.cu", 1, hdrs, grown.data());
#define NUM 1
"##;
        let read = |source| {
            headers_for(host, Some(source)).map(|h| {
                h.map(|(line, h)| {
                    let shown: Vec<String> = h
                        .iter()
                        .map(|h| format!("{}={:?}", h.name, h.text))
                        .collect();
                    format!("{line}: {}", shown.join(" "))
                })
            })
        };
        assert_eq!(
            read("src_a"),
            Ok(Some(
                r##"7: common.h="#define REPS 3\n" inc/once.h="#pragma once\n""##.into()
            ))
        );
        assert_eq!(
            read("src_b"),
            Ok(Some(r##"8: common.h="#define REPS 3\n""##.into()))
        );
        assert_eq!(read("src_c"), Ok(None));
        assert_eq!(
            read("src_d"),
            Err("the headers of the nvrtcCreateProgram at line 10 are not read: the call passes 3 headers and `hdrs` holds 2".into())
        );
        assert!(read("src_e").unwrap_err().contains(
            "the include name `../secret.h` is not a relative path inside the program's folder"
        ));
        assert!(read("src_f")
            .unwrap_err()
            .contains("`grown.data()` is not an array of strings this file fixes"));
        // without the program's source, the calls that give headers must agree
        assert!(headers_for(host, None)
            .unwrap_err()
            .contains("are not read"));
        assert_eq!(
            headers_for("nvrtcCreateProgram(&p, s, \"p.cu\", 0, NULL, NULL);", None),
            Ok(None)
        );
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
