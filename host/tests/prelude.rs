//! A precompiled CUDA prelude (`kerncast_host::clang::prelude`) changes how long a unit takes
//! to parse, never what it reads: the same launches with and without it, one prelude shared by
//! programs whose flags differ only in their own header folders, and none for a program whose
//! own folder holds a header the prelude would otherwise have read from the CUDA installation.

use kerncast_host::{read, Options, Program, Toolchain};
use std::path::{Path, PathBuf};

const MAIN: &str = "#include <cstdio>\n\
    __global__ void scale(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }\n\
    int main() {\n  int n = 1 << 20;\n  float *x;\n  cudaMalloc(&x, n * sizeof(float));\n  \
    scale<<<(n + 255) / 256, 256>>>(x, n);\n  cudaFree(x);\n  return 0;\n}\n";

/// `main.cu` with `text` in a folder of its own under `root`, and the program of it.
fn program(root: &Path, name: &str, text: &str, tools: &Toolchain) -> Program {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("main.cu");
    std::fs::write(&file, text).unwrap();
    let flags = vec![format!("-I{}", dir.display()), "-std=c++17".to_string()];
    Program::from_files(&[file], &flags, tools)
}

/// The program's launches, as text to compare.
fn launches(p: &Program, cache: Option<PathBuf>, tools: &Toolchain) -> Vec<String> {
    let opts = Options {
        toolchain: tools.clone(),
        prelude_cache: cache,
        ..Options::default()
    };
    let r = read(p, &opts).unwrap();
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    r.launches
        .iter()
        .map(|l| format!("{} {:?} {:?} {:?}", l.kernel, l.grid, l.block, l.args))
        .collect()
}

fn preludes_in(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| {
        d.filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "pch"))
        })
        .count()
    })
}

#[test]
fn a_precompiled_prelude_reads_the_same_launches() {
    let tools = Toolchain::discover();
    assert!(tools.cuda_path.is_some(), "run `cargo xtask bootstrap`");
    let root = std::env::temp_dir().join(format!("kerncast-prelude-{}", std::process::id()));
    let cache = root.join("cache");
    let a = program(&root, "a", MAIN, &tools);
    let plain = launches(&a, None, &tools);
    assert_eq!(plain.len(), 1, "{plain:?}");
    assert_eq!(launches(&a, Some(cache.clone()), &tools), plain);
    assert_eq!(preludes_in(&cache), 1);
    // built once, then taken: a second reading gives the same launches
    assert_eq!(launches(&a, Some(cache.clone()), &tools), plain);
    // another program with the same flags but its own folder shares the prelude
    let b = program(&root, "b", MAIN, &tools);
    assert_eq!(launches(&b, Some(cache.clone()), &tools), plain);
    assert_eq!(preludes_in(&cache), 1);

    // A folder of its own with a `cuda_runtime.h` ahead of the CUDA installation's: the
    // prelude clang puts ahead of the unit reads this one, which defines the grid. Loading a
    // prelude built without it would lose the definition, so this unit parses whole.
    let c = program(
        &root,
        "c",
        "__global__ void k(float *x) {}\nint main() { k<<<KC_SHADOW, 32>>>(0); return 0; }\n",
        &tools,
    );
    std::fs::write(
        root.join("c/cuda_runtime.h"),
        "#define KC_SHADOW 8\n#include_next \"cuda_runtime.h\"\n",
    )
    .unwrap();
    let shadowed = launches(&c, Some(cache.clone()), &tools);
    assert_eq!(shadowed.len(), 1, "{shadowed:?}");
    assert!(shadowed[0].contains("8"), "{shadowed:?}");
    assert_eq!(shadowed, launches(&c, None, &tools));
    let _ = std::fs::remove_dir_all(&root);
}
