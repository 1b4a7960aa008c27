//! kerncast's declarations of the PyTorch C++ extension API (`host/prelude/kerncast_torch_api.h`)
//! and the headers that stand in for PyTorch's own: one file, used both to read an extension's
//! host code (the Python reader) and to lower its kernels (the build tool), so the two never
//! see different declarations.

use std::path::{Path, PathBuf};

/// The declarations, written as [`HEADER`].
pub const DECLARATIONS: &str = include_str!("../prelude/kerncast_torch_api.h");

/// The name the declarations are written and included under.
pub const HEADER: &str = "kerncast_torch_api.h";

/// The prefixes of PyTorch's header names.
const PREFIXES: [&str; 4] = ["torch/", "ATen/", "c10/", "pybind11/"];

/// The PyTorch headers the texts include (`#include <torch/extension.h>`, either bracket
/// form), each once, in order. Only preprocessor lines are looked at: a name in a comment
/// or a string is not an include.
pub fn torch_includes<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for text in texts {
        for line in text.lines() {
            let Some(name) = included_name(line) else {
                continue;
            };
            let torch = PREFIXES.iter().any(|p| name.starts_with(p));
            // a header name that climbs out of the folder is not PyTorch's
            let climbs = name.split('/').any(|p| p == "..");
            if torch && !climbs && !out.iter().any(|o| o == name) {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// The header a `#include` line names.
fn included_name(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?;
    let rest = rest.trim_start().strip_prefix("include")?.trim();
    rest.strip_prefix('<')
        .and_then(|r| r.split('>').next())
        .or_else(|| rest.strip_prefix('"').and_then(|r| r.split('"').next()))
}

/// Writes the declarations under `root` and, for each of `names`, a header of that name that
/// includes them: the path of the declarations, for `-include`; `root` goes on the include path.
pub fn write_headers(root: &Path, names: &[String]) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(root)?;
    let header = root.join(HEADER);
    std::fs::write(&header, DECLARATIONS)?;
    for n in names {
        if n.split('/').any(|p| p == "..") {
            continue;
        }
        let file = root.join(n);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&file, format!("#pragma once\n#include <{HEADER}>\n"))?;
    }
    Ok(header)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_are_read_from_directives_only_each_once() {
        let src = "#include <torch/extension.h>\n  # include \"ATen/cuda/CUDAContext.h\"\n\
                   #include <cuda.h>\n#include <torch/extension.h>\n// #include <c10/x.h> in a comment\n\
                   #include <c10/../../etc/passwd>\n";
        assert_eq!(
            torch_includes([src]),
            vec!["torch/extension.h", "ATen/cuda/CUDAContext.h"]
        );
        assert!(torch_includes(["#include <cuda_runtime.h>\n"]).is_empty());
    }

    #[test]
    fn each_named_header_includes_the_declarations() {
        let tmp =
            std::env::temp_dir().join(format!("kerncast-torch-api-{}/api", std::process::id()));
        let names = vec![
            "ATen/cuda/CUDAContext.h".to_string(),
            "../climbs.h".to_string(),
        ];
        let header = write_headers(&tmp, &names).unwrap();
        assert_eq!(std::fs::read_to_string(&header).unwrap(), DECLARATIONS);
        let wrapper = std::fs::read_to_string(tmp.join("ATen/cuda/CUDAContext.h")).unwrap();
        assert_eq!(wrapper, format!("#pragma once\n#include <{HEADER}>\n"));
        assert!(!tmp.join("../climbs.h").exists());
        std::fs::remove_dir_all(tmp.parent().unwrap()).unwrap();
    }
}
