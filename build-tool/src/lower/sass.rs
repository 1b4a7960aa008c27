//! SASS (the GPU's real machine code) for a PTX module: `ptxas` to a cubin, `nvdisasm -c` to
//! text. PTX is virtual; when a prediction looks wrong the SASS shows what the hardware would
//! really run (unrolling, predication, instruction selection), so reports can link to it.

use super::{tools::find_tool, Frontend, LowerError};
use std::process::Command;

/// The SASS listing, or `Err(reason)` inside `Ok` when ptxas or nvdisasm is absent.
pub fn sass(ptx: &str, arch: &str) -> Result<Result<String, String>, LowerError> {
    let (Some(ptxas), Some(nvdisasm)) = (find_tool("ptxas"), find_tool("nvdisasm")) else {
        return Ok(Err(
            "ptxas or nvdisasm not found; install them with `cargo xtask bootstrap`".into(),
        ));
    };
    let io = |context: &str| {
        let context = context.to_string();
        move |source| LowerError::Io { context, source }
    };
    let dir = tempfile::tempdir().map_err(io("creating a temp dir for ptxas"))?;
    let input = dir.path().join("input.ptx");
    let cubin = dir.path().join("out.cubin");
    std::fs::write(&input, ptx).map_err(io("writing PTX for ptxas"))?;
    let mut asm = Command::new(ptxas);
    asm.arg(format!("-arch={arch}"))
        .arg("-o")
        .arg(&cubin)
        .arg(&input);
    let mut dis = Command::new(nvdisasm);
    dis.arg("-c").arg(&cubin);
    let mut text = String::new();
    for mut cmd in [asm, dis] {
        let command = super::render_command(&cmd).replace(&*dir.path().to_string_lossy(), "$TMP");
        let out = cmd.output().map_err(io(&format!("starting `{command}`")))?;
        if !out.status.success() {
            return Err(LowerError::Compile {
                path: "<ptx>".into(),
                frontend: Frontend::Ptx,
                status: out.status.to_string(),
                command,
                diagnostics: String::from_utf8_lossy(&out.stderr)
                    .replace(&*input.to_string_lossy(), "<ptx>"),
            });
        }
        text = String::from_utf8_lossy(&out.stdout).into_owned();
    }
    Ok(Ok(text))
}
