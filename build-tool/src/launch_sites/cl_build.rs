//! The options an OpenCL host program builds its programs with, so that the kernels are lowered
//! as the driver would compile them: a `-D TILE=32` the host passes changes the kernel.
//!
//! ```text
//! cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);   // cl::Program p(ctx, src);
//! clBuildProgram(p, 1, &device, "-D TILE=32 -cl-mad-enable", NULL, NULL); // p.build("-D TILE=32");
//! ```
//!
//! The options are read where they are a string the file fixes: a literal, or a name declared
//! once with one and not written by `sprintf`, `strcat` or `+=`. Anything else is reported as
//! unread, never guessed.

use super::c_text::{bare_name, call_args, code_only};
use crate::c_lex::literal_value;
use regex::Regex;
use std::sync::LazyLock;

static C_BUILD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bclBuildProgram\s*\(").unwrap());
static CPP_BUILD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b([A-Za-z_]\w*)\s*(?:\.|->)\s*build\s*\(").unwrap());

/// One `clBuildProgram` or C++ `program.build(…)` (options one string), or one
/// `nvrtcCompileProgram` (options a list, [`super::nvrtc`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildCall<O = String> {
    /// 1-based line of the call.
    pub line: usize,
    /// The program object it builds, as written.
    pub program: String,
    /// The options, or why they could not be read.
    pub options: Result<O, String>,
}

/// Every build call of `text`, in order (`code` is `text` with comments and strings blanked).
fn build_calls(text: &str, code: &str) -> Vec<BuildCall> {
    let line = |at: usize| code[..at].matches('\n').count() + 1;
    let mut out = Vec::new();
    for m in C_BUILD.find_iter(code) {
        let Some((_, args)) = call_args(code, m.end() - 1) else {
            continue;
        };
        let Some(program) = args.first() else {
            continue;
        };
        let options = match args.get(3) {
            Some(r) => fixed_string(text, code, &text[r.clone()]),
            None => Err("the call has fewer than 4 arguments".into()),
        };
        out.push(BuildCall {
            line: line(m.start()),
            program: code[program.clone()].to_string(),
            options,
        });
    }
    // C++'s `build` is a common name: only a file that uses cl::Program is read for it
    if text.contains("cl::Program") {
        for c in CPP_BUILD.captures_iter(code) {
            let (whole, program) = (c.get(0).unwrap(), c.get(1).unwrap());
            let Some((_, args)) = call_args(code, whole.end() - 1) else {
                continue;
            };
            let texts: Vec<&str> = args.iter().map(|r| &text[r.clone()]).collect();
            // build(), build(options), build(devices), build(devices, options, …)
            let options = match texts.as_slice() {
                [] => Ok(String::new()),
                // one argument: the options when it is text, else the devices
                [one] if literal_value(one).is_some() || holds_text(code, one) => {
                    fixed_string(text, code, one)
                }
                [_] => Ok(String::new()),
                [_, options, ..] => fixed_string(text, code, options),
            };
            out.push(BuildCall {
                line: line(whole.start()),
                program: program.as_str().to_string(),
                options,
            });
        }
    }
    out.sort_by_key(|c| c.line);
    out
}

/// Whether `arg` is a name declared as text (`std::string opts`, `const char *opts`) or a
/// macro: an argument `build` takes as its options, where anything else is its devices.
fn holds_text(code: &str, arg: &str) -> bool {
    let arg = arg.trim();
    let Some(name) = bare_name(arg.strip_suffix(".c_str()").unwrap_or(arg)) else {
        return false;
    };
    let n = regex::escape(name);
    crate::launch_sites::c_text::cached_regex(&format!(
        r"(?:\bstring|\bchar)\s*(?:\*\s*)?(?:const\s+)?\b{n}\b|#\s*define\s+{n}\b"
    ))
    .unwrap()
    .is_match(code)
}

/// The string an argument passes where the file fixes it: none (`NULL`, as options), a
/// literal, a string variable declared once and not rewritten, or a macro's.
pub(super) fn fixed_string(text: &str, code: &str, arg: &str) -> Result<String, String> {
    let arg = arg.trim();
    if ["NULL", "nullptr", "0", "\"\""].contains(&arg) {
        return Ok(String::new());
    }
    if let Some(v) = literal_value(arg) {
        return Ok(v);
    }
    match bare_name(arg.strip_suffix(".c_str()").unwrap_or(arg)) {
        Some(name) => string_variable(text, code, name),
        None => Err(format!("`{arg}` is not a string this file fixes")),
    }
}

/// The one string a variable is declared with (`const char *opts = "…";`, `char opts[] = …`,
/// `std::string opts("…")`), when nothing writes it afterwards, or a macro's
/// (`#define OPTS "…"`).
fn string_variable(text: &str, code: &str, name: &str) -> Result<String, String> {
    let n = regex::escape(name);
    let define = super::host_defs::DEFINE
        .captures_iter(code)
        .find(|c| &c[1] == name);
    if let Some(value) = define.and_then(|c| c.get(2)) {
        return literal_value(&text[value.range()])
            .ok_or_else(|| format!("`{name}` is a macro, not a string"));
    }
    let written = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b(?:sprintf|snprintf|strcat|strncat|strcpy|strncpy)\s*\(\s*{n}\b|\b{n}\s*(?:\+=|\.append\b|\.assign\b)|\b{n}\s*=[^=]"
    ))
    .unwrap();
    let declared = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b{n}\s*(?:\[\s*\w*\s*\]\s*)?(?:=\s*|(\()|(\{{))"
    ))
    .unwrap();
    let decls: Vec<regex::Captures> = declared
        .captures_iter(code)
        .filter(|c| {
            // a declaration follows a type: `char *opts =`, `std::string opts(`
            let before = code[..c.get(0).unwrap().start()].trim_end();
            before.ends_with('*') || before.ends_with(|ch: char| ch.is_alphanumeric())
        })
        .collect();
    // a declaration's own `=` is one write
    let own = match decls.as_slice() {
        [d] => usize::from(d.get(1).is_none() && d.get(2).is_none()),
        _ => 0,
    };
    if written.find_iter(code).count() > own {
        return Err(format!("`{name}` is built at run time"));
    }
    let [decl] = decls.as_slice() else {
        return Err(format!("`{name}` is not declared once with a string"));
    };
    let start = decl.get(0).unwrap().end();
    let end = match (decl.get(1), decl.get(2)) {
        (None, None) => code[start..].find(';').map(|e| start + e),
        _ => super::c_text::matching_close(code.as_bytes(), start - 1),
    }
    .ok_or_else(|| format!("`{name}`'s declaration does not end"))?;
    literal_value(&text[start..end])
        .ok_or_else(|| format!("`{name}` is not declared with a string"))
}

/// The program objects made from the source text held in `source`: `p =
/// clCreateProgramWithSource(ctx, 1, &source, …)`, `cl::Program p(ctx, source)`.
fn programs_from(code: &str, source: &str) -> Vec<String> {
    static MADE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"\b([A-Za-z_]\w*)\s*(?:=\s*(?:clCreateProgramWithSource|cl::Program)\s*\(|\(|\{)",
        )
        .unwrap()
    });
    let uses =
        crate::launch_sites::c_text::cached_regex(&format!(r"\b{}\b", regex::escape(source)))
            .unwrap();
    MADE.captures_iter(code)
        .filter(|c| {
            let whole = c.get(0).unwrap();
            let made_by_call = whole.as_str().contains("clCreateProgramWithSource")
                || whole.as_str().contains("cl::Program")
                || code[..whole.start()].trim_end().ends_with("cl::Program");
            made_by_call
                && call_args(code, whole.end() - 1)
                    .is_some_and(|(close, _)| uses.is_match(&code[whole.end()..close]))
        })
        .map(|c| c[1].to_string())
        .collect()
}

/// The build call that builds a program of `text`: one made from the variable `source` (an
/// embedded program's) when the file says which, else the file's build calls when they all
/// pass the same options. `Ok(None)` when the file builds no program; `Err` says why the
/// options are not known.
pub fn options_for(text: &str, source: Option<&str>) -> Result<Option<BuildCall>, String> {
    let code = code_only(text);
    let calls = build_calls(text, &code);
    let programs = source.map(|s| programs_from(&code, s)).unwrap_or_default();
    pick_build(&calls, &programs)
}

/// The build of one of `programs` (those made from the program's source) among `calls`, else
/// the one options all of `calls` agree on.
pub(super) fn pick_build<O: Clone + PartialEq>(
    calls: &[BuildCall<O>],
    programs: &[String],
) -> Result<Option<BuildCall<O>>, String> {
    let linked: Vec<&BuildCall<O>> = calls
        .iter()
        .filter(|c| programs.contains(&c.program))
        .collect();
    let candidates: Vec<&BuildCall<O>> = if linked.is_empty() {
        calls.iter().collect()
    } else {
        linked
    };
    let Some(first) = candidates.first() else {
        return Ok(None);
    };
    if let Some(unread) = candidates.iter().find(|c| c.options.is_err()) {
        let why = unread.options.as_ref().err().cloned().unwrap_or_default();
        return Err(format!(
            "the options of the build at line {} are not read: {why}",
            unread.line
        ));
    }
    if let Some(other) = candidates.iter().find(|c| c.options != first.options) {
        return Err(format!(
            "the builds at lines {} and {} pass different options, and which builds this program is not found",
            first.line, other.line
        ));
    }
    Ok(Some((*first).clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The build calls of `host` as `line program: options` or `line program: why not`.
    fn read(host: &str) -> Vec<String> {
        build_calls(host, &code_only(host))
            .into_iter()
            .map(|c| match c.options {
                Ok(o) => format!("{} {}: {o}", c.line, c.program),
                Err(why) => format!("{} {}: not read: {why}", c.line, c.program),
            })
            .collect()
    }

    #[test]
    fn c_options_from_literals_variables_and_null() {
        let host = r#"
const char *opts = "-D TILE=32 " "-cl-mad-enable";
char built[64];
int main(void) {
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    clBuildProgram(p, 1, &dev, "-DN=4", NULL, NULL);
    clBuildProgram(q, 1, &dev, opts, NULL, NULL);
    clBuildProgram(r, 0, NULL, NULL, NULL, NULL);
    sprintf(built, "-DTILE=%d", tile);
    clBuildProgram(s, 0, NULL, built, NULL, NULL);
}
"#;
        assert_eq!(
            read(host),
            vec![
                "6 p: -DN=4",
                "7 q: -D TILE=32 -cl-mad-enable",
                "8 r: ",
                "10 s: not read: `built` is built at run time",
            ]
        );
        assert_eq!(
            programs_from(&code_only(host), "src"),
            vec!["p".to_string()]
        );
    }

    #[test]
    fn a_macro_s_string_is_read() {
        let host = "#define OPTS \"-DX=2\" // with a comment\nclBuildProgram(p, 0, NULL, OPTS, NULL, NULL);\n";
        assert_eq!(read(host), ["2 p: -DX=2"]);
    }

    #[test]
    fn a_variable_written_later_is_not_read() {
        let host = "std::string o = \"-DA=1\";\nvoid f() { o += \" -DB=2\"; cl::Program p(ctx, src); p.build(o.c_str()); }\n";
        assert_eq!(
            build_calls(host, &code_only(host))[0].options,
            Err("`o` is built at run time".to_string())
        );
    }

    #[test]
    fn cpp_build_forms() {
        let host = r#"
cl::Program program(context, source);
cl::Program other = cl::Program(context, kernel_code);
void f() {
    program.build({device}, "-DBLOCK=16");
    other.build(devices);
    program.build();
    std::string opts("-cl-fast-relaxed-math");
    other.build(opts);
    std::string made = make_options();
    program.build(made);
}
"#;
        assert_eq!(
            read(host),
            vec![
                "5 program: -DBLOCK=16",
                "6 other: ",
                "7 program: ",
                "9 other: -cl-fast-relaxed-math",
                "11 program: not read: `made` is not declared with a string",
            ]
        );
        assert_eq!(
            programs_from(&code_only(host), "source"),
            vec!["program".to_string()]
        );
        assert_eq!(
            programs_from(&code_only(host), "kernel_code"),
            vec!["other".to_string()]
        );
    }

    #[test]
    fn the_build_of_a_program_is_found_by_its_source_or_by_agreement() {
        let host = r#"
cl_program a = clCreateProgramWithSource(ctx, 1, &src_a, NULL, &err);
cl_program b = clCreateProgramWithSource(ctx, 1, &src_b, NULL, &err);
clBuildProgram(a, 0, NULL, "-DTILE=8", NULL, NULL);
clBuildProgram(b, 0, NULL, "-DTILE=16", NULL, NULL);
"#;
        let opts = |s| options_for(host, s).map(|c| c.map(|c| (c.line, c.options.unwrap())));
        assert_eq!(opts(Some("src_b")), Ok(Some((5, "-DTILE=16".to_string()))));
        assert_eq!(
            opts(None),
            Err("the builds at lines 4 and 5 pass different options, and which builds this program is not found".into())
        );
        let same = "clBuildProgram(a, 0, NULL, \"-DX\", 0, 0);\nclBuildProgram(b, 0, NULL, \"-DX\", 0, 0);";
        assert_eq!(options_for(same, None).unwrap().unwrap().line, 1);
        assert_eq!(options_for("int main() {}", None), Ok(None));
    }
}
