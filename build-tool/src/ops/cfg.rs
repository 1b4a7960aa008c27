//! `kerncast cfg`: the control-flow graph of a kernel (basic blocks, edges, dominators, loops) as a
//! text listing or Graphviz. The engine is `kerncast_passes::cfg`; this is the thin front.

use crate::lower::LowerArgs;
use kerncast_passes::cfg::Cfg;
use kerncast_passes::ptx::Module;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// PTX file, or a source file (.cu, .cl, .ll, .bc) lowered first.
    pub file: PathBuf,
    /// Kernel (or device function); default: every kernel in the module.
    #[arg(long)]
    pub kernel: Option<String>,
    /// Graphviz `digraph` instead of the text listing.
    #[arg(long)]
    pub dot: bool,
    #[command(flatten)]
    pub lower: LowerArgs,
}

/// The CFGs of `kernel` (or of every kernel), as text or Graphviz.
pub fn render(m: &Module, kernel: Option<&str>, dot: bool) -> Result<String, String> {
    let funcs: Vec<_> = match kernel {
        Some(k) => match m
            .functions
            .iter()
            .find(|f| f.name == k && !f.is_declaration)
        {
            Some(f) => vec![f],
            None => {
                let names: Vec<&str> = m
                    .functions
                    .iter()
                    .filter(|f| !f.is_declaration)
                    .map(|f| f.name.as_str())
                    .collect();
                return Err(format!(
                    "no kernel or function `{k}`; the module defines: {}",
                    names.join(", ")
                ));
            }
        },
        None => m.kernels().collect(),
    };
    if funcs.is_empty() {
        return Err("the module defines no kernel".into());
    }
    let mut out = String::new();
    for (i, f) in funcs.iter().enumerate() {
        let cfg = Cfg::build(f);
        if i > 0 && !dot {
            out.push('\n');
        }
        if dot {
            out.push_str(&cfg.to_dot());
        } else {
            out.push_str(&cfg.to_string());
        }
    }
    Ok(out)
}
