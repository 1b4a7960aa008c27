//! Kernel programs a C or C++ host carries in its string literals (the OpenCL C handed to
//! `clCreateProgramWithSource`, the CUDA handed to NVRTC): a run of adjacent literals (C joins
//! them), one continued with `\` at its line ends, or a raw string, whose text defines a
//! kernel. Clang's lexer gives the tokens; each is decoded as the compiler decodes it, every
//! byte with the line it is written on, so the caller can place each line of the program at
//! its line of the host file. A literal the host compiles ([`CompiledProgram`]) carries the
//! compile's options; a program the host compiles from text it computes or reads at run time
//! is listed too, with its text where the reading knows it.

use crate::clang::LiteralToken;
use crate::interp::programs::CompiledProgram;
use crate::output::{EmbeddedSource, SourceOrigin};

/// A program in a run of joined literals: its text and the host line of each of its lines.
#[derive(Clone, Debug, PartialEq)]
pub struct LiteralProgram {
    pub file: String,
    pub text: String,
    pub lines: Vec<u32>,
    pub language: &'static str,
    pub line: u32,
}

/// The programs among `file`'s string literal tokens.
pub fn programs(file: &str, tokens: &[LiteralToken]) -> Vec<LiteralProgram> {
    let mut runs: Vec<Vec<&LiteralToken>> = Vec::new();
    for t in tokens {
        match runs.last_mut() {
            Some(run) if t.joined => run.push(t),
            _ => runs.push(vec![t]),
        }
    }
    runs.into_iter()
        .filter_map(|run| {
            let bytes: Vec<(u8, u32)> = run.iter().flat_map(|t| t.decode()).collect();
            let text = String::from_utf8_lossy(&bytes.iter().map(|(b, _)| *b).collect::<Vec<_>>())
                .into_owned();
            let language = language_of(&text)?;
            // the host line of each program line: that of its first byte
            let mut lines = Vec::new();
            let mut at_start = true;
            for (b, line) in &bytes {
                if at_start {
                    lines.push(*line);
                }
                at_start = *b == b'\n';
            }
            Some(LiteralProgram {
                file: file.to_string(),
                line: run[0].line,
                text,
                lines,
                language,
            })
        })
        .collect()
}

/// The language of a program whose text defines a kernel (`__kernel void f(`, `kernel void
/// f(`, `__global__ void f(`, attributes allowed between), else `None`.
fn language_of(text: &str) -> Option<&'static str> {
    const ATTRIBUTES: [&str; 4] = [
        "__attribute__",
        "__launch_bounds__",
        "__cluster_dims__",
        "__maxnreg__",
    ];
    let words = words(text);
    for (i, (w, _)) in words.iter().enumerate() {
        let language = match *w {
            "__kernel" | "kernel" => "opencl",
            "__global__" => "cuda",
            _ => continue,
        };
        // `void` next, or after attributes (whose arguments are words too)
        let next = words.get(i + 1).map(|(w, _)| *w);
        let void = match next {
            Some("void") => Some(i + 1),
            Some(a) if ATTRIBUTES.contains(&a) => {
                (i + 2..words.len().min(i + 16)).find(|&k| words[k].0 == "void")
            }
            _ => None,
        };
        let named = void
            .and_then(|v| words.get(v + 1))
            .is_some_and(|(_, end)| text[*end..].trim_start().starts_with('('));
        if named {
            return Some(language);
        }
    }
    None
}

/// The identifiers of `text`, each with the offset of its end.
fn words(text: &str) -> Vec<(&str, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() || b[i] == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((&text[start..i], i));
        } else {
            i += 1;
        }
    }
    out
}

/// The embedded sources of a C or C++ reading: each program in the host's literals, with the
/// options of the compile that builds it (matched by its text), then each program the host
/// compiles from text it computes or reads, with that text where the reading knows it.
pub fn sources(literals: &[LiteralProgram], compiled: &[CompiledProgram]) -> Vec<EmbeddedSource> {
    let mut out = Vec::new();
    let mut matched = vec![false; compiled.len()];
    for p in literals {
        let by = compiled
            .iter()
            .position(|c| c.text.as_deref() == Ok(p.text.as_str()));
        if let Some(i) = by {
            matched[i] = true;
        }
        let c = by.map(|i| &compiled[i]);
        out.push(EmbeddedSource {
            api: c.map_or("string literal", |c| c.api).to_string(),
            language: p.language.to_string(),
            text: Some(p.text.clone()),
            unknown: None,
            origin: SourceOrigin::Lines {
                file: p.file.clone(),
                lines: p.lines.clone(),
            },
            kernels: Vec::new(),
            options: c.map(|c| c.options.clone()).unwrap_or_default(),
            name_expressions: c.map(|c| c.name_expressions.clone()).unwrap_or_default(),
            extern_c: false,
            headers: c.map(|c| c.headers.clone()).unwrap_or_default(),
            name: c.and_then(|c| c.name.clone()),
            file: c.map_or(p.file.clone(), |c| c.site.file.to_string()),
            line: c.map_or(p.line, |c| c.site.line),
        });
    }
    for (c, _) in compiled.iter().zip(&matched).filter(|(_, m)| !**m) {
        let language = match c.api {
            "clCreateProgramWithSource" => "opencl",
            _ => "cuda",
        };
        out.push(EmbeddedSource {
            api: c.api.to_string(),
            language: language.to_string(),
            text: c.text.clone().ok(),
            unknown: c.text.clone().err(),
            origin: SourceOrigin::Computed,
            kernels: Vec::new(),
            options: c.options.clone(),
            name_expressions: c.name_expressions.clone(),
            extern_c: false,
            headers: c.headers.clone(),
            name: c.name.clone(),
            file: c.site.file.to_string(),
            line: c.site.line,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(spelling: &str, line: u32, joined: bool) -> LiteralToken {
        LiteralToken {
            spelling: spelling.into(),
            line,
            col: 1,
            joined,
        }
    }

    #[test]
    fn adjacent_literals_join_into_one_program_at_their_lines() {
        let toks = [
            tok(r#""__kernel void vadd(__global float *c)\n""#, 3, false),
            tok(r#""{\n""#, 4, true),
            tok(r#""  c[0] = 1;\n""#, 5, true),
            tok(r#""}\n""#, 6, true),
            tok(r#""vadd""#, 9, false),
        ];
        let p = programs("m.c", &toks);
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].language, "opencl");
        assert_eq!(
            p[0].text,
            "__kernel void vadd(__global float *c)\n{\n  c[0] = 1;\n}\n"
        );
        assert_eq!(p[0].lines, [3, 4, 5, 6]);
    }

    #[test]
    fn continued_and_raw_literals_keep_their_lines_and_escapes_decode() {
        let cont = tok(
            "\"\\n\\\nextern \\\"C\\\" __global__\\n\\\nvoid f(int *x) { x[0] = '\\x41'; }\\n\"",
            1,
            false,
        );
        let p = programs("m.cpp", &[cont]);
        assert_eq!(
            p[0].text,
            "\nextern \"C\" __global__\nvoid f(int *x) { x[0] = 'A'; }\n"
        );
        assert_eq!(p[0].lines, [1, 2, 3]);
        let raw = tok(
            "R\"CLC(\n#define T 16\n__kernel void k(global int *x) { x[0] = T; }\n)CLC\"",
            7,
            false,
        );
        let p = programs("h.cpp", &[raw]);
        assert_eq!(
            p[0].text,
            "\n#define T 16\n__kernel void k(global int *x) { x[0] = T; }\n"
        );
        assert_eq!(p[0].lines, [7, 8, 9]);
        let attr = tok(
            "\"__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void k(){}\"",
            2,
            false,
        );
        assert_eq!(programs("m.c", &[attr]).len(), 1);
    }

    #[test]
    fn strings_that_only_name_kernels_are_no_programs() {
        let toks = [
            tok(r#""kernel void %s\n""#, 1, false),
            tok(r#""__kernel""#, 2, false),
            tok(r#""void k(){}""#, 2, false),
        ];
        assert!(programs("m.c", &toks).is_empty());
    }
}
