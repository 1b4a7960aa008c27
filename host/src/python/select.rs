//! Which Python files of a folder are GPU hosts, from what they import (parsed, not searched
//! as text): a script that imports CuPy, PyCUDA, PyOpenCL or `torch.utils.cpp_extension`, a
//! `setup.py` that builds a PyTorch extension, or a script that imports a module such a
//! `setup.py` builds. A test or a plotting script beside them is not read as a host.

use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{Expr, Stmt};
use std::path::{Path, PathBuf};

/// The modules whose import makes a script a GPU host.
const GPU_MODULES: [&str; 4] = ["cupy", "pycuda", "pyopencl", "torch.utils.cpp_extension"];

/// What a script imports, and the extension modules it builds (a `setup.py`'s
/// `CUDAExtension('cell_cuda', …)`).
#[derive(Default)]
struct Imports {
    modules: Vec<String>,
    built: Vec<String>,
}

impl<'a> Visitor<'a> for Imports {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Import(i) => {
                self.modules
                    .extend(i.names.iter().map(|a| a.name.id.to_string()));
            }
            Stmt::ImportFrom(i) => {
                if let Some(m) = &i.module {
                    self.modules.push(m.id.to_string());
                    // `from torch.utils import cpp_extension`
                    self.modules
                        .extend(i.names.iter().map(|a| format!("{}.{}", m.id, a.name.id)));
                }
            }
            _ => {}
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(c) = expr {
            let callee = match &*c.func {
                Expr::Name(n) => Some(n.id.as_str()),
                Expr::Attribute(a) => Some(a.attr.id.as_str()),
                _ => None,
            };
            if callee.is_some_and(|n| n.ends_with("Extension")) {
                if let Some(Expr::StringLiteral(s)) = c.arguments.args.first() {
                    let name = s.value.to_str();
                    self.built
                        .push(name.rsplit('.').next().unwrap_or(name).to_string());
                }
            }
        }
        walk_expr(self, expr);
    }
}

fn imports(path: &Path) -> Option<Imports> {
    let text = std::fs::read_to_string(path).ok()?;
    let parsed =
        ruff_python_parser::parse_unchecked_source(&text, ruff_python_ast::PySourceType::Python);
    let mut v = Imports::default();
    for s in &parsed.syntax().body {
        v.visit_stmt(s);
    }
    Some(v)
}

/// The GPU hosts among `files` (Python scripts of one analysis), in their order.
pub fn gpu_scripts(files: &[PathBuf]) -> Vec<PathBuf> {
    let read: Vec<(&PathBuf, Imports)> = files
        .iter()
        .filter_map(|f| Some((f, imports(f)?)))
        .collect();
    let built: Vec<&String> = read.iter().flat_map(|(_, i)| &i.built).collect();
    let gpu = |m: &str| {
        GPU_MODULES
            .iter()
            .any(|g| m == *g || m.starts_with(&format!("{g}.")))
    };
    read.iter()
        .filter(|(_, i)| {
            i.modules.iter().any(|m| {
                gpu(m)
                    || built
                        .iter()
                        .any(|b| m == *b || m.starts_with(&format!("{b}.")))
            })
        })
        .map(|(f, _)| (*f).clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_that_import_a_gpu_module_or_a_built_extension_are_hosts() {
        let dir = std::env::temp_dir().join(format!("kerncast-select-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let files = vec![
            write("cupy_add.py", "import cupy as cp\n"),
            write(
                "setup.py",
                "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\nsetup(ext_modules=[CUDAExtension('pkg.cell_cuda', ['a.cu'])])\n",
            ),
            write("bench.py", "def f():\n    import cell_cuda as cell\n"),
            write("plot.py", "import matplotlib\nprint('plots')\n"),
            write("plain_setup.py", "from setuptools import setup\nsetup()\n"),
            write("ext.py", "from torch.utils import cpp_extension\n"),
        ];
        let hosts: Vec<String> = gpu_scripts(&files)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(hosts, ["cupy_add.py", "setup.py", "bench.py", "ext.py"]);
    }
}
