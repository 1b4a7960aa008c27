//! PyTorch extensions a Python host builds with `load_inline` (or `load` from files) and then
//! calls; on the right, the C-shaped copy:
//!
//! ```text
//! ext = load_inline(name="ext",          (the C++ of the strings, at their lines)
//!                   cpp_sources=…,
//!                   cuda_sources=src,
//!                   functions=["relu"])
//! x = torch.randn(4096, 4096)            … torch::Tensor x = torch::empty({4096, 4096});
//! y = ext.relu(x)                        relu(x);
//! ```
//!
//! The C++ of the program strings is placed in the C-shaped copy at the lines it is written
//! on, so the C reader follows a Python call of the module into the C++ function, and the
//! launches there see the tensors' shapes (`launch_sites::tensors`). A function the module
//! binds under another name (`m.def("forward", &lltm_forward)`, in its strings or, for one
//! built from files, in those files) is called by its C++ name.

use super::{c_expression, decode, keyword, lex, split_top, TARGETS};
use crate::launch_sites::c_text::matching_close;
use regex::Regex;
use std::sync::LazyLock;

/// `ext = load_inline(` or `ext = torch.utils.cpp_extension.load_inline(`, and `load(` of an
/// extension built from files (`sources=[…]`).
static MODULE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Za-z_]\w*)\s*=\s*(?:[A-Za-z_][\w.]*\.)?load(?:_inline)?\s*\(").unwrap()
});
/// A pybind11 binding, `m.def("forward", &lltm_forward`.
static BINDING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\.def\s*\(\s*"(\w+)"\s*,\s*&?\s*((?:\w+::)*\w+)"#).unwrap());

/// The C++ text of the strings of a Python host that builds an extension with `load_inline`:
/// each line's, by 0-based line. A string is C++ when it names a CUDA kernel, a PyTorch tensor
/// or a pybind11 module and holds a body or a declaration (`{`, or a closing `;`); its escaped
/// new lines are read as spaces, so that its text keeps the line it is written on.
pub(super) fn inline_sources(host: &str) -> Vec<(usize, String)> {
    if !host.contains("load_inline") {
        return Vec::new();
    }
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(host.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |offset: usize| line_starts.partition_point(|&s| s <= offset) - 1;
    let mut out: Vec<(usize, String)> = Vec::new();
    for s in lex(host).strings.iter().filter(|s| !s.formatted) {
        let decoded = decode(host, s);
        let text: Vec<u8> = decoded.iter().map(|(b, _)| *b).collect();
        let text = String::from_utf8_lossy(&text);
        let names = ["__global__", "torch::", "at::Tensor", "PYBIND11_MODULE"]
            .iter()
            .any(|w| text.contains(w));
        if !names || !(text.contains('{') || text.trim_end().ends_with(';')) {
            continue;
        }
        let mut bytes: Vec<(usize, Vec<u8>)> = Vec::new();
        for (b, offset) in decoded {
            // the host's own line ends are the lines'
            if host.as_bytes()[offset] == b'\n' {
                continue;
            }
            let line = line_of(offset);
            if bytes.last().is_none_or(|(l, _)| *l != line) {
                bytes.push((line, Vec::new()));
            }
            let last = &mut bytes.last_mut().expect("pushed above").1;
            last.push(if b == b'\n' { b' ' } else { b });
        }
        out.extend(
            bytes
                .into_iter()
                .map(|(line, b)| (line, String::from_utf8_lossy(&b).into_owned())),
        );
    }
    out
}

/// The functions a C++ extension source binds for Python (`m.def("forward", &lltm_forward)`),
/// as (Python name, C++ function).
pub fn bindings_in(text: &str) -> Vec<(String, String)> {
    BINDING
        .captures_iter(text)
        .map(|c| {
            let function = c[2].rsplit("::").next().unwrap_or(&c[2]).to_string();
            (c[1].to_string(), function)
        })
        .collect()
}

/// Whether a Python host builds an extension from files (`cpp_extension.load(…, sources=…)`),
/// whose functions it then calls.
pub fn loads_extension(host: &str) -> bool {
    static LOAD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bload\s*\(").unwrap());
    host.contains("cpp_extension") && host.contains("sources") && LOAD.is_match(host)
}

/// The extension modules a `setup.py` builds with `CUDAExtension` (`'lltm_cuda'`, or
/// `name='pkg.lltm_cuda'`), by the name Python imports them as.
pub fn setup_extensions(text: &str) -> Vec<String> {
    static BUILT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\bCUDAExtension\s*\(\s*(?:name\s*=\s*)?['"]([A-Za-z_][\w.]*)['"]"#).unwrap()
    });
    BUILT
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .collect()
}

/// The names a Python statement imports the extension modules `built` under: `import
/// lltm_cuda` gives `lltm_cuda`, `import lltm_cuda as ext` and `from pkg import lltm_cuda as
/// ext` give `ext`.
fn imported_as(statement: &str, built: &[String]) -> Option<String> {
    static IMPORT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:from\s+([A-Za-z_][\w.]*)\s+)?import\s+([A-Za-z_][\w.]*)(?:\s+as\s+([A-Za-z_]\w*))?\s*$")
            .unwrap()
    });
    let c = IMPORT.captures(statement.trim())?;
    let module = match c.get(1) {
        Some(package) => format!("{}.{}", package.as_str(), &c[2]),
        None => c[2].to_string(),
    };
    if !built.contains(&module) {
        return None;
    }
    match (c.get(3), c.get(1)) {
        (Some(alias), _) => Some(alias.as_str().to_string()),
        (None, Some(_)) => Some(c[2].to_string()),
        // `import pkg.ext` is called as `pkg.ext.f(…)`, which a module call does not read
        (None, None) => (!module.contains('.')).then_some(module),
    }
}

/// Whether a Python host imports one of the extension modules a `setup.py` builds (`built`,
/// [`setup_extensions`]), whose functions it then calls.
pub fn imports_extension(host: &str, built: &[String]) -> bool {
    !built.is_empty() && host.lines().any(|l| imported_as(l, built).is_some())
}

/// The extension modules of a Python host and the C++ functions they bind.
pub(super) struct Modules {
    names: Vec<String>,
    /// Python name → C++ function, where a binding renames it.
    bindings: Vec<(String, String)>,
}

impl Modules {
    /// The modules the `statements` (code only) make with `load_inline` or `load`, or import
    /// among those a `setup.py` builds (`built`), and the bindings in the C++ `sources`
    /// ([`inline_sources`]) and in the extension's files (`elsewhere`, [`bindings_in`]).
    pub fn of<'s>(
        statements: impl Iterator<Item = &'s str>,
        sources: &[(usize, String)],
        elsewhere: &[(String, String)],
        built: &[String],
    ) -> Self {
        let names = statements
            .filter_map(|s| {
                MODULE
                    .captures(s)
                    .map(|c| c[1].to_string())
                    .or_else(|| imported_as(s, built))
            })
            .collect();
        let text: Vec<&str> = sources.iter().map(|(_, t)| t.as_str()).collect();
        let mut bindings = bindings_in(&text.join("\n"));
        bindings.extend(elsewhere.iter().cloned());
        Modules { names, bindings }
    }

    /// A call of a module's function (`y = ext.relu(x.contiguous())`) as the C++ call
    /// (`relu(x);`). A tensor argument is passed by name, past the moves and casts that keep its
    /// shape (`.contiguous()`, `.cuda()`); an integer expression as C; anything else, a keyword
    /// argument among them, as a value kerncast cannot read.
    pub fn call(&self, statement: &str) -> Option<String> {
        let call = super::calls::unassigned(unpacked(statement));
        let open = call.find('(')?;
        let (module, function) = call[..open].trim().split_once('.')?;
        let named = self.names.iter().any(|n| n == module);
        let simple = function.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !named || !simple || matching_close(call.as_bytes(), open)? != call.len() - 1 {
            return None;
        }
        let function = self
            .bindings
            .iter()
            .find(|(py, _)| py == function)
            .map_or(function, |(_, cpp)| cpp.as_str());
        let args: Vec<String> = split_top(&call[open + 1..call.len() - 1])
            .iter()
            .map(|a| {
                let a = super::arrays::without_moves(a.trim());
                let value = (!keyword(a)).then(|| c_expression(a)).flatten();
                value.unwrap_or_else(|| "python_value".into())
            })
            .collect();
        Some(format!("{function}({});", args.join(", ")))
    }
}

/// The value of an assignment to several names, or the statement.
fn unpacked(statement: &str) -> &str {
    TARGETS
        .captures(statement)
        .map_or(statement, |c| c.get(2).expect("the value").as_str().trim())
}

/// The names an assignment to several names gives values (`h` and `c` of `h, c, *rest = …`).
pub(super) fn unpacked_names(statement: &str) -> Vec<String> {
    TARGETS.captures(statement).map_or_else(Vec::new, |c| {
        c[1].split(',')
            .map(|n| n.trim().trim_start_matches('*').to_string())
            .filter(|n| !n.is_empty())
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: &str = "from torch.utils.cpp_extension import load_inline\n\
src = r'''\n\
__global__ void k(float *x) {}\n\
torch::Tensor run(torch::Tensor x) { return x; }\n\
PYBIND11_MODULE(ext, m) { m.def(\"forward\", &run); }\n\
'''\n\
ext = load_inline(name='ext', cpp_sources='torch::Tensor run(torch::Tensor x);', cuda_sources=src)\n\
msg = 'torch::Tensor is no program here'\n";

    #[test]
    fn the_program_strings_keep_their_lines() {
        let sources = inline_sources(HOST);
        let lines: Vec<usize> = sources.iter().map(|(l, _)| *l).collect();
        // the program's lines 2-4 (0-based) and the declaration on line 6, not the message
        assert_eq!(lines, [2, 3, 4, 6]);
        assert_eq!(sources[0].1, "__global__ void k(float *x) {}");
        assert_eq!(sources[3].1, "torch::Tensor run(torch::Tensor x);");
        assert!(inline_sources("x = '__global__ void k() {}'\n").is_empty());
    }

    #[test]
    fn a_module_call_is_the_cpp_call_it_binds() {
        let sources = inline_sources(HOST);
        let modules = Modules::of(
            ["ext = load_inline(name='ext', cpp_sources='', cuda_sources=src)"].into_iter(),
            &sources,
            &[],
            &[],
        );
        assert_eq!(
            modules.call("y = ext.forward(x.contiguous().cuda(), 1 << 10)"),
            Some("run(x, 1 << 10);".into())
        );
        assert_eq!(
            modules.call("ext.other(x, scale=2.0, data=make())"),
            Some("other(x, python_value, python_value);".into())
        );
        assert_eq!(modules.call("y = other.forward(x)"), None);
        assert_eq!(modules.call("y = ext.forward(x).sum()"), None);
        // a module built from files, its bindings in them
        let cpp = "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"step\", &ns::lltm_step, \"doc\");\n}\n";
        let from_files = Modules::of(
            ["lltm = load(name='lltm', sources=['lltm.cpp', 'lltm_kernel.cu'])"].into_iter(),
            &[],
            &bindings_in(cpp),
            &[],
        );
        assert_eq!(
            from_files.call("lltm.step(x)"),
            Some("lltm_step(x);".into())
        );
        assert_eq!(
            from_files.call("h, c, *rest = lltm.step(x, h)"),
            Some("lltm_step(x, h);".into())
        );
        assert_eq!(
            unpacked_names("h, c, *rest = lltm.step(x, h)"),
            ["h", "c", "rest"]
        );
        assert!(unpacked_names("h = lltm.step(x)").is_empty());
        let host = "from torch.utils.cpp_extension import load\nlltm = load(name='lltm', sources=['a.cu'])\n";
        assert!(loads_extension(host));
        assert!(!loads_extension(
            "from torch.utils.cpp_extension import CUDAExtension\n"
        ));
    }

    #[test]
    fn a_module_a_setup_py_builds_is_called_under_the_name_it_is_imported_as() {
        let setup = "from setuptools import setup\n\
                     from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\
                     setup(name='lltm', ext_modules=[\n\
                         CUDAExtension('lltm_cuda', ['lltm_cuda.cpp', 'lltm_cuda_kernel.cu']),\n\
                         CUDAExtension(name='ops.fused', sources=['fused.cu'])])\n";
        let built = setup_extensions(setup);
        assert_eq!(built, ["lltm_cuda", "ops.fused"]);
        let cpp = "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"forward\", &lltm_forward); }";
        let imports = [
            ("import lltm_cuda", "lltm_cuda.forward(x)"),
            ("import lltm_cuda as ext", "h = ext.forward(x)"),
            ("from ops import fused", "fused.forward(x)"),
            ("from ops import fused as f", "f.forward(x)"),
        ];
        for (import, call) in imports {
            assert!(imports_extension(
                &format!("import torch\n{import}\n"),
                &built
            ));
            let modules = Modules::of([import].into_iter(), &[], &bindings_in(cpp), &built);
            assert_eq!(
                modules.call(call),
                Some("lltm_forward(x);".into()),
                "{import}"
            );
        }
        // a module no setup.py builds, and a dotted import, whose calls name the package
        assert!(!imports_extension("import numpy as np\n", &built));
        assert!(!imports_extension("import lltm_cuda\n", &[]));
        assert_eq!(imported_as("import ops.fused", &built), None);
    }
}
