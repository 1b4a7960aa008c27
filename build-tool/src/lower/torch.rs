//! PyTorch extensions without PyTorch: an extension's CUDA source includes `torch/extension.h`
//! (or ATen, c10 and pybind11 headers), which a machine without a PyTorch install does not have.
//! Where the source includes them and no include directory holds PyTorch's own, kerncast lowers
//! it with its declarations of that API ([`kerncast_host::torch_api`], shared with the host
//! reader): each
//! header the source names becomes one that includes them. Host code only has to compile; the
//! device-side types (half floats, tensor accessors) are laid out as ATen's, so the kernels'
//! PTX is what a PyTorch build gives.

pub use kerncast_host::torch_api::torch_includes;
use std::path::{Path, PathBuf};

/// What a report says of a kernel lowered with them.
pub const NOTE: &str = "lowered with kerncast's declarations of the PyTorch extension API \
     (torch/extension.h, ATen, c10, pybind11), as no include directory has PyTorch's own: \
     device code sees ATen's layouts of half floats and tensor accessors; pass PyTorch's \
     include directories with -I to lower with its headers";

/// Added to a compile error of a source lowered with them.
pub const HINT: &str = "note: kerncast lowered this PyTorch extension with its own \
     declarations of the extension API, which lack what the source uses above; pass PyTorch's \
     include directories (`python -c 'from torch.utils.cpp_extension import include_paths; \
     print(include_paths())'`) with -I";

/// The flags `torch.utils.cpp_extension` gives nvcc for every extension (its
/// `COMMON_NVCC_FLAGS`): CUDA's own half and bfloat16 operators and conversions off, as ATen
/// provides its own, and constexpr host functions (`fmax`, `std::min`) callable from device code.
/// A user's `-U…` after them turns one back on, as in `extra_cuda_cflags`.
pub const NVCC_FLAGS: [&str; 5] = [
    "-D__CUDA_NO_HALF_OPERATORS__",
    "-D__CUDA_NO_HALF_CONVERSIONS__",
    "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
    "-D__CUDA_NO_HALF2_OPERATORS__",
    "--expt-relaxed-constexpr",
];

/// What a report says of an extension compiled with [`NVCC_FLAGS`].
pub fn flags_note() -> String {
    format!(
        "compiled as a PyTorch extension, with the nvcc flags torch.utils.cpp_extension adds: {}",
        NVCC_FLAGS.join(" ")
    )
}

/// Whether one of `include_dirs` holds PyTorch's own headers.
fn has_real_torch(include_dirs: &[PathBuf]) -> bool {
    include_dirs.iter().any(|d| {
        d.join("torch/extension.h").is_file()
            || d.join("ATen/ATen.h").is_file()
            || d.join("torch/types.h").is_file()
    })
}

/// Writes the declarations and one header for each of `headers` under `dir`, when `headers`
/// is not empty and `include_dirs` has no PyTorch: the directory to add last to the include
/// path, or `None`.
pub fn write_headers(
    headers: &[String],
    include_dirs: &[PathBuf],
    dir: &Path,
) -> std::io::Result<Option<PathBuf>> {
    if headers.is_empty() || has_real_torch(include_dirs) {
        return Ok(None);
    }
    let root = dir.join("torch-api");
    kerncast_host::torch_api::write_headers(&root, headers)?;
    Ok(Some(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_headers_a_source_names_are_written_unless_pytorch_is_on_the_path() {
        let src = "#include <torch/extension.h>\n  # include \"ATen/cuda/CUDAContext.h\"\n";

        let tmp = tempfile::tempdir().unwrap();
        let dir = write_headers(&torch_includes([src]), &[], tmp.path())
            .unwrap()
            .unwrap();
        let wrapper = std::fs::read_to_string(dir.join("ATen/cuda/CUDAContext.h")).unwrap();
        assert!(wrapper.contains("#include <kerncast_torch_api.h>"));
        assert_eq!(
            std::fs::read_to_string(dir.join(kerncast_host::torch_api::HEADER)).unwrap(),
            kerncast_host::torch_api::DECLARATIONS
        );
        // nothing to write for a source without PyTorch headers
        assert!(write_headers(&[], &[], tmp.path()).unwrap().is_none());

        // PyTorch's own headers on the include path win: kerncast writes none
        let real = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(real.path().join("torch")).unwrap();
        std::fs::write(real.path().join("torch/extension.h"), "").unwrap();
        let other = tempfile::tempdir().unwrap();
        assert!(write_headers(
            &torch_includes([src]),
            &[real.path().to_path_buf()],
            other.path()
        )
        .unwrap()
        .is_none());
    }
}
