//! Kernel programs that host code carries as strings (the OpenCL C handed to
//! `clCreateProgramWithSource`, the CUDA handed to NVRTC, CuPy, PyCUDA or PyTorch's
//! `load_inline`), as the host reading finds them ([`kerncast_host::EmbeddedSource`]).
//!
//! A program is written out with `#line` directives that put every line back at the line of
//! the host file it comes from, so that the compiler's errors, the PTX's `.loc` lines and the
//! report's hot lines all name the host file and the line the user wrote.

use kerncast_host::{EmbeddedSource, SourceOrigin};

/// The language a program in a host string is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// OpenCL C, built by `clBuildProgram`.
    OpenCl,
    /// CUDA C++, compiled at run time by NVRTC (or by nvcc for PyTorch's `load_inline`).
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

    /// The language the host reading names (`cuda`, `opencl`); `None` for one kerncast does
    /// not lower (a `load_inline`'s C++ sources).
    pub fn of(name: &str) -> Option<Language> {
        match name {
            "cuda" => Some(Language::Cuda),
            "opencl" => Some(Language::OpenCl),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbeddedProgram {
    pub language: Language,
    /// The program's source, `#line` directives included.
    pub text: String,
    /// 1-based host line of the program's first line.
    pub line: usize,
    /// The host line of each line of `text` (index 0 is line 1), 0 for a directive.
    host_lines: Vec<usize>,
}

impl EmbeddedProgram {
    /// `text`, each line placed at its host line of `file` (`lines[i]` for line `i + 1`;
    /// a line past them at the last one's).
    pub fn placed(language: Language, text: &str, lines: &[usize], file: &str) -> EmbeddedProgram {
        let mut out = String::new();
        let mut host_lines = Vec::new();
        let mut next = None;
        for (i, piece) in text.lines().enumerate() {
            let host_line = lines.get(i).or(lines.last()).copied().unwrap_or(1);
            if next != Some(host_line) {
                out.push_str(&format!("#line {host_line} \"{}\"\n", escape(file)));
                host_lines.push(0);
            }
            out.push_str(piece);
            out.push('\n');
            host_lines.push(host_line);
            next = Some(host_line + 1);
        }
        EmbeddedProgram {
            language,
            text: out,
            line: lines.first().copied().unwrap_or(1),
            host_lines,
        }
    }

    /// The program a host reading found, placed where its text comes from: a literal's lines
    /// in the host file (`host_file` as shown), a file's own lines, or the line of the call
    /// that compiles it for text the host computes. `None` for a program whose text or
    /// language kerncast does not know.
    pub fn of_source(s: &EmbeddedSource, host_file: &str) -> Option<EmbeddedProgram> {
        let language = Language::of(&s.language)?;
        let text = s.text.as_deref()?;
        let n = text.lines().count().max(1);
        let (file, lines): (String, Vec<usize>) = match &s.origin {
            SourceOrigin::Literal { line, .. } => (
                host_file.to_string(),
                (0..n).map(|k| *line as usize + k).collect(),
            ),
            SourceOrigin::File { path } => (path.clone(), (1..=n).collect()),
            SourceOrigin::Lines { lines, .. } => (
                host_file.to_string(),
                lines.iter().map(|l| *l as usize).collect(),
            ),
            SourceOrigin::Computed => (host_file.to_string(), vec![s.line as usize; n]),
        };
        Some(EmbeddedProgram::placed(language, text, &lines, &file))
    }

    /// The host line that line `line` (1-based) of [`Self::text`] comes from.
    pub fn host_line(&self, line: usize) -> usize {
        line.checked_sub(1)
            .and_then(|i| self.host_lines.get(i))
            .copied()
            .filter(|&h| h > 0)
            .unwrap_or(self.line)
    }

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

fn escape(file: &str) -> String {
    file.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str, origin: SourceOrigin) -> EmbeddedSource {
        EmbeddedSource {
            api: "cupy.RawKernel".into(),
            language: "cuda".into(),
            text: Some(text.into()),
            unknown: None,
            origin,
            kernels: vec![],
            options: vec![],
            name_expressions: vec![],
            extern_c: false,
            headers: vec![],
            name: None,
            file: "/abs/host.py".into(),
            line: 9,
        }
    }

    #[test]
    fn a_literal_s_lines_are_the_host_file_s() {
        let s = source(
            "\n__global__ void k(int *x) {\n  x[0] = 1;\n}\n",
            SourceOrigin::Literal {
                file: "/abs/host.py".into(),
                line: 2,
                col: 20,
            },
        );
        let p = EmbeddedProgram::of_source(&s, "host.py").unwrap();
        assert_eq!(
            p.text,
            "#line 2 \"host.py\"\n\n__global__ void k(int *x) {\n  x[0] = 1;\n}\n"
        );
        assert_eq!((p.host_line(3), p.host_line(5)), (3, 5));
        let added = p.with_lines(&[("void *e = (void *)&g<1>;".into(), 7)], "host.py");
        assert!(added
            .text
            .ends_with("#line 7 \"host.py\"\nvoid *e = (void *)&g<1>;\n"));
        assert_eq!(added.host_line(7), 7);
    }

    #[test]
    fn computed_text_is_placed_at_its_compile_call_and_a_file_s_at_its_own_lines() {
        let computed = source("__global__ void k() {}\n// two\n", SourceOrigin::Computed);
        let p = EmbeddedProgram::of_source(&computed, "host.py").unwrap();
        assert_eq!(
            p.text,
            "#line 9 \"host.py\"\n__global__ void k() {}\n#line 9 \"host.py\"\n// two\n"
        );
        let file = source(
            "__global__ void k() {}\n",
            SourceOrigin::File {
                path: "kernels/k.cu".into(),
            },
        );
        let p = EmbeddedProgram::of_source(&file, "host.py").unwrap();
        assert_eq!(p.text, "#line 1 \"kernels/k.cu\"\n__global__ void k() {}\n");
        let mut cpp = computed.clone();
        cpp.language = "c++".into();
        assert!(EmbeddedProgram::of_source(&cpp, "host.py").is_none());
    }
}
