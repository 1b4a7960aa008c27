//! A precompiled CUDA prelude (`kerncast_host::clang::prelude`) changes how long a unit takes
//! to parse, never what it reads: the same launches with and without it, one prelude shared by
//! programs whose flags differ only in their own header folders, and none for a program whose
//! own folder holds a header the prelude would otherwise have read from the CUDA installation;
//! likewise a unit's precompiled preamble (its opening `#include <…>`s).

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

/// How many files in `dir` have a name `keep` takes.
fn files_in(dir: &Path, keep: impl Fn(&str) -> bool) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| {
        d.flatten()
            .filter(|e| keep(&e.file_name().to_string_lossy()))
            .count()
    })
}

/// The precompiled CUDA preludes in `dir`.
fn preludes_in(dir: &Path) -> usize {
    files_in(dir, |n| n.ends_with(".pch") && !n.starts_with("preamble-"))
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

/// The launches and the precompiled preambles kept after reading `p` three times with `cache`.
fn three_readings(p: &Program, cache: &Path, tools: &Toolchain) -> Vec<Vec<String>> {
    (0..3)
        .map(|_| launches(p, Some(cache.to_path_buf()), tools))
        .collect()
}

/// The files of precompiled preambles in `dir` whose names end with `ext`.
fn preambles_in(dir: &Path, ext: &str) -> usize {
    files_in(dir, |n| n.starts_with("preamble-") && n.ends_with(ext))
}

#[test]
fn a_units_opening_includes_are_precompiled_once_seen_twice_and_read_the_same() {
    let tools = Toolchain::discover();
    assert!(tools.cuda_path.is_some(), "run `cargo xtask bootstrap`");
    let root = std::env::temp_dir().join(format!("kerncast-preamble-{}", std::process::id()));
    let cache = root.join("cache");
    // `<random>` is not among the prelude's headers; the `#define` ahead of it sets the grid
    let text = MAIN
        .replace(
            "#include <cstdio>\n",
            "// a comment\n#define GRID 7\n#include <random>\n",
        )
        .replace("(n + 255) / 256", "GRID");
    let a = program(&root, "a", &text, &tools);
    let plain = launches(&a, None, &tools);
    assert_eq!(plain.len(), 1, "{plain:?}");
    assert!(plain[0].contains('7'), "{plain:?}");
    let readings = three_readings(&a, &cache, &tools);
    assert!(readings.iter().all(|r| *r == plain), "{readings:?}");
    // seen at the first reading, built at the second, taken at the third
    assert_eq!(preambles_in(&cache, ".pch"), 1);
    assert_eq!(preambles_in(&cache, ".refused"), 0);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_preamble_header_that_cannot_be_read_twice_is_refused_and_the_unit_read_without_it() {
    let tools = Toolchain::discover();
    assert!(tools.cuda_path.is_some(), "run `cargo xtask bootstrap`");
    let root = std::env::temp_dir().join(format!("kerncast-preamble-twice-{}", std::process::id()));
    let cache = root.join("cache");
    // a system header without a guard: the precompiled preamble holds its struct, and the
    // unit's own `#include` of it defines the struct again
    let sys = root.join("sys");
    std::fs::create_dir_all(&sys).unwrap();
    std::fs::write(sys.join("twice.h"), "struct Twice { int grid; };\n").unwrap();
    let text = MAIN.replace("#include <cstdio>\n", "#include <twice.h>\n");
    let dir = root.join("a");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("main.cu");
    std::fs::write(&file, text).unwrap();
    let flags = vec![
        format!("-isystem{}", sys.display()),
        "-std=c++17".to_string(),
    ];
    let a = Program::from_files(&[file], &flags, &tools);
    let plain = launches(&a, None, &tools);
    assert_eq!(plain.len(), 1, "{plain:?}");
    // `launches` asserts each reading has no diagnostics: the third is read without it
    let readings = three_readings(&a, &cache, &tools);
    assert!(readings.iter().all(|r| *r == plain), "{readings:?}");
    assert_eq!(preambles_in(&cache, ".refused"), 1);
    assert_eq!(preambles_in(&cache, ".pch"), 0);
    let _ = std::fs::remove_dir_all(&root);
}
