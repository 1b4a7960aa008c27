//! Kernel programs that host code carries as string literals: the OpenCL C handed to
//! `clCreateProgramWithSource` and the CUDA handed to NVRTC's `nvrtcCreateProgram`
//! (`const char *src = "__kernel void vadd(…)\n" …;`), in adjacent literals that C joins, in
//! one literal continued with `\` at line ends, or in one raw string (`R"(…)"`).
//!
//! A program is a run of adjacent string literals (only white space and comments between them)
//! whose text defines a kernel. It is decoded as the compiler would (escapes, joining), and
//! written out with `#line` directives that put every line back at the line of the host file
//! its literal sits on, so that the compiler's errors, the PTX's `.loc` lines and the report's
//! hot lines all name the host file and the line the user wrote.

use crate::c_lex::{self, Kind, Span, PREFIXES};
use regex::Regex;
use std::sync::LazyLock;

/// A string literal's text defines an OpenCL kernel: `__kernel void name(` or
/// `kernel void name(`, attributes allowed between.
static DEFINES_OPENCL_KERNEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)\b(?:__)?kernel\s+(?:__attribute__\s*\(\(.*?\)\)\s*)*void\s+\w+\s*\(").unwrap()
});

/// A string literal's text defines a CUDA kernel: `__global__ void name(`, launch bounds, cluster
/// dimensions and register limits allowed on either side of `void`.
static DEFINES_CUDA_KERNEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)\b__global__\s+(?:(?:__launch_bounds__|__cluster_dims__|__maxnreg__)\s*\([^)]*\)\s*)*void\s+(?:(?:__launch_bounds__|__cluster_dims__|__maxnreg__)\s*\([^)]*\)\s*)*\w+\s*\(").unwrap()
});

/// The language a program in a host string is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// OpenCL C, built by `clBuildProgram`.
    OpenCl,
    /// CUDA C++, compiled at run time by NVRTC.
    Cuda,
}

impl Language {
    /// The extension a file of this language has, which tells the lowering what it is.
    pub fn extension(self) -> &'static str {
        match self {
            Language::OpenCl => "cl",
            Language::Cuda => "cu",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Language::OpenCl => "OpenCL",
            Language::Cuda => "CUDA",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbeddedProgram {
    pub language: Language,
    /// The program's source, `#line` directives included.
    pub text: String,
    /// 1-based host line of the program's first literal.
    pub line: usize,
    /// The host line of each line of `text` (index 0 is line 1), 0 for a directive.
    host_lines: Vec<usize>,
    /// The variable the literals initialise (`src` in `const char *src = "…";`), if any.
    pub variable: Option<String>,
}

impl EmbeddedProgram {
    /// The host line that line `line` (1-based) of [`Self::text`] comes from.
    pub fn host_line(&self, line: usize) -> usize {
        line.checked_sub(1)
            .and_then(|i| self.host_lines.get(i))
            .copied()
            .filter(|&h| h > 0)
            .unwrap_or(self.line)
    }
}

impl EmbeddedProgram {
    /// The program with `lines` added at its end, each placed at its host line by a `#line`
    /// directive naming `file`.
    pub fn with_lines(&self, lines: &[(String, usize)], file: &str) -> EmbeddedProgram {
        let mut p = self.clone();
        for (text, host_line) in lines {
            p.text
                .push_str(&format!("#line {host_line} \"{}\"\n{text}\n", escape(file)));
            p.host_lines.extend([0, *host_line]);
        }
        p
    }

    /// The program after `lines`, each from no host line.
    pub fn preceded_by(&self, lines: &[&str]) -> EmbeddedProgram {
        let mut p = self.clone();
        p.text = format!("{}\n{}", lines.join("\n"), self.text);
        p.host_lines.splice(0..0, lines.iter().map(|_| 0));
        p
    }

    /// The program between the lines `before` and `after` (`extern "C" {` and `}`), each
    /// from no host line.
    pub fn wrapped(&self, before: &str, after: &str) -> EmbeddedProgram {
        let mut p = self.clone();
        p.text = format!("{before}\n{}\n{after}\n", self.text.trim_end_matches('\n'));
        p.host_lines.insert(0, 0);
        p.host_lines.push(0);
        p
    }
}

/// The OpenCL and CUDA programs in `host`, in order. `file` is the name the `#line` directives give.
pub fn programs(host: &str, file: &str) -> Vec<EmbeddedProgram> {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(host.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |offset: usize| line_starts.partition_point(|&s| s <= offset);
    let spans = c_lex::spans(host);
    c_lex::joined_runs(host, &spans)
        .iter()
        .filter_map(|run| program(host, run, &line_of, file))
        .collect()
}

/// Whether a string literal of `host` names the file `name` (`"kernels.cl"`,
/// `"src/kernels.cl"`), as a host that reads its program from a file does.
pub fn names_file(host: &str, name: &str) -> bool {
    c_lex::spans(host)
        .into_iter()
        .filter(|s| s.kind == Kind::Str || s.kind == Kind::RawStr)
        .any(|s| {
            let v = &host[s.body];
            v.strip_suffix(name)
                .is_some_and(|dir| dir.is_empty() || dir.ends_with(['/', '\\']))
        })
}

/// The program a run of joined literals holds, if it defines a kernel.
fn program(
    host: &str,
    run: &[&Span],
    line_of: &dyn Fn(usize) -> usize,
    file: &str,
) -> Option<EmbeddedProgram> {
    // each byte of the joined value with the host line it comes from
    let value: Vec<(u8, usize)> = c_lex::decode(host, run)
        .into_iter()
        .map(|(c, at)| (c, line_of(at)))
        .collect();
    program_of_value(
        &value,
        line_of(run[0].range.start),
        initialised(&host[..run[0].range.start]),
        file,
    )
}

/// The program a string's decoded value holds (each byte with the host line it comes from), if
/// it defines a kernel; `line` is the string's first host line, `variable` the one it
/// initialises. Shared by the C hosts' literals and other hosts' strings (`python_host`).
pub(crate) fn program_of_value(
    value: &[(u8, usize)],
    line: usize,
    variable: Option<String>,
    file: &str,
) -> Option<EmbeddedProgram> {
    let bytes: Vec<u8> = value.iter().map(|(c, _)| *c).collect();
    let text = String::from_utf8_lossy(&bytes);
    let language = if DEFINES_OPENCL_KERNEL.is_match(&text) {
        Language::OpenCl
    } else if DEFINES_CUDA_KERNEL.is_match(&text) {
        Language::Cuda
    } else {
        return None;
    };
    let mut out = String::new();
    let mut host_lines = Vec::new();
    let mut next_line = None;
    let mut at = 0;
    for piece in text.split_inclusive('\n') {
        let host_line = value.get(at).map_or(0, |(_, l)| *l);
        at += piece.len();
        if next_line != Some(host_line) {
            out.push_str(&format!("#line {host_line} \"{}\"\n", escape(file)));
            host_lines.push(0);
        }
        out.push_str(piece.strip_suffix('\n').unwrap_or(piece));
        out.push('\n');
        host_lines.push(host_line);
        next_line = Some(host_line + 1);
    }
    Some(EmbeddedProgram {
        language,
        text: out,
        line,
        host_lines,
        variable,
    })
}

/// The variable a literal that follows `before` initialises: `src` in `const char *src =`,
/// `char src[] =`, `std::string src(`.
fn initialised(before: &str) -> Option<String> {
    let t = before.trim_end();
    // the literal's own encoding prefix (`R`, `u8R`, `L`)
    let t = PREFIXES
        .iter()
        .filter(|p| !p.is_empty())
        .find_map(|p| {
            t.strip_suffix(p)
                .filter(|r| !r.ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        })
        .unwrap_or(t)
        .trim_end();
    let t = t.strip_suffix(['=', '(', '{'])?.trim_end();
    let t = match t.strip_suffix(']') {
        Some(r) => r.rsplit_once('[')?.0.trim_end(),
        None => t,
    };
    let name: String = t
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
}

fn escape(file: &str) -> String {
    file.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: &str = r#"#include <CL/cl.h>
static const char *src =
    "__kernel void vadd(__global const float *a, // a comment in the kernel\n"
    "                   __global float *c, const unsigned int n)\n"  /* joined */
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n) c[i] = a[i] * 2.0f;\n"
    "}\n";
int main(void) {
    const char *name = "vadd";
    printf("kernel void %s\n", name);
    return 0;
}
"#;

    #[test]
    fn adjacent_literals_join_into_one_program_placed_at_its_host_lines() {
        let p = programs(HOST, "src/main.c");
        assert_eq!(p.len(), 1, "{p:?}");
        let p = &p[0];
        assert_eq!(p.line, 3);
        assert_eq!(
            p.text,
            "#line 3 \"src/main.c\"\n\
             __kernel void vadd(__global const float *a, // a comment in the kernel\n\
             \x20                  __global float *c, const unsigned int n)\n\
             {\n\
             \x20   int i = get_global_id(0);\n\
             \x20   if (i < n) c[i] = a[i] * 2.0f;\n\
             }\n"
        );
        assert_eq!(p.host_line(2), 3);
        assert_eq!(p.host_line(5), 6);
        assert_eq!(p.host_line(7), 8);
        assert_eq!(p.variable.as_deref(), Some("src"));
    }

    #[test]
    fn a_raw_string_keeps_its_lines_and_several_lines_in_one_literal_get_directives() {
        let host = "auto s = R\"CLC(\n#define TILE 16\n__kernel void k(global int *x) { x[0] = TILE; }\n)CLC\";\nconst char *t = \"kernel void a(){}\\nkernel void b(){}\\n\";\n";
        let p = programs(host, "h.cpp");
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!(
            p[0].text,
            "#line 1 \"h.cpp\"\n\n#define TILE 16\n__kernel void k(global int *x) { x[0] = TILE; }\n"
        );
        assert_eq!(p[0].host_line(4), 3);
        assert_eq!(
            p[1].text,
            "#line 5 \"h.cpp\"\nkernel void a(){}\n#line 5 \"h.cpp\"\nkernel void b(){}\n"
        );
        assert_eq!(p[1].host_line(4), 5);
        assert_eq!(p[0].variable.as_deref(), Some("s"));
        assert_eq!(initialised("char prog[ ] = "), Some("prog".into()));
        assert_eq!(initialised("clCreateProgramWithSource(ctx, 1, "), None);
    }

    #[test]
    fn cuda_programs_continued_with_backslashes_and_added_lines_keep_their_host_lines() {
        let host = "const char *k = \"\\n\\\nextern \\\"C\\\" __global__\\n\\\nvoid f(int *x) { x[0] = 1; }\\n\";\nnvrtcAddNameExpression(p, \"g<1>\");\n";
        let p = programs(host, "m.cpp");
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].language, Language::Cuda);
        assert_eq!(
            p[0].text,
            "#line 1 \"m.cpp\"\n\nextern \"C\" __global__\nvoid f(int *x) { x[0] = 1; }\n"
        );
        assert_eq!(p[0].host_line(4), 3);
        let added = p[0].with_lines(&[("void *e = (void *)&g<1>;".into(), 5)], "m.cpp");
        assert!(added
            .text
            .ends_with("#line 5 \"m.cpp\"\nvoid *e = (void *)&g<1>;\n"));
        assert_eq!(added.host_line(6), 5);
        assert_eq!(added.host_line(4), 3);
    }

    #[test]
    fn a_file_is_named_by_a_literal_ending_in_its_name() {
        let host = "FILE *f = fopen(\"../src/kernels.cl\", \"r\");";
        assert!(names_file(host, "kernels.cl"));
        assert!(!names_file(host, "els.cl"));
        assert!(!names_file("// kernels.cl\n", "kernels.cl"));
    }

    #[test]
    fn literals_separated_by_code_are_separate_and_host_strings_are_not_programs() {
        let host =
            "f(\"__kernel\", \"void k(){}\");\nprintf(\"kernel void %s\\n\", \"__kernel\");\n";
        assert_eq!(programs(host, "m.c"), vec![]);
        let attr = "s = \"__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\"\n    \" void k(){}\";";
        assert_eq!(programs(attr, "m.c").len(), 1);
    }
}
