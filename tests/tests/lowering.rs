//! Lowering drivers against the real compilers: every front end on corpus kernels, `-D` macros,
//! error messages (missing tool, broken kernel), `.ll` through in-process LLVM, and the checked-in
//! corpus (`tests/kernels` -> `tests/ptx`) being complete and fresh. A test that needs a compiler
//! prints why it skips when that compiler is absent; nothing is skipped silently.

use kerncast::lower::{
    find_tool, lower_file, ptxas_resources, Frontend, LowerError, LowerOptions, ResourceProbe,
};
use kerncast_tests::{kernels_dir, ptx_dir, workspace_root};
use std::path::{Path, PathBuf};
use std::process::Command;

fn with(frontend: Frontend) -> LowerOptions {
    LowerOptions {
        frontend: Some(frontend),
        ..LowerOptions::default()
    }
}

fn have(tool: &str, test: &str) -> bool {
    let found = match tool {
        "clang-19" => {
            find_tool("clang-19").is_some() || Path::new("/usr/lib/llvm-19/bin/clang").is_file()
        }
        t => find_tool(t).is_some(),
    };
    if !found {
        println!("SKIP {test}: {tool} not installed (run `cargo xtask bootstrap`)");
    }
    found
}

/// A scratch directory unique to this process and test.
fn scratch(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kerncast-lowering-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// ptxas accepts `ptx`, when ptxas is installed; returns its resources.
fn assemble(ptx: &str) -> Option<ResourceProbe> {
    assemble_for(ptx, "sm_80")
}

/// ptxas's verdict on `ptx` for `arch`; `None` where ptxas is not installed.
fn assemble_for(ptx: &str, arch: &str) -> Option<ResourceProbe> {
    match ptxas_resources(ptx, arch) {
        Ok(ResourceProbe::Unavailable { reason }) => {
            println!("ptxas check skipped: {reason}");
            None
        }
        Ok(probe) => Some(probe),
        Err(e) => panic!("ptxas rejected the PTX: {e}"),
    }
}

#[test]
fn nvcc_lowers_cuda_with_line_info() {
    if !have("nvcc", "nvcc_lowers_cuda_with_line_info") {
        return;
    }
    let l = lower_file(
        &kernels_dir().join("matmul_tiled.cu"),
        &with(Frontend::Nvcc),
    )
    .unwrap();
    assert_eq!(l.frontend, Frontend::Nvcc);
    assert!(l.command.contains("-lineinfo") && l.command.contains("-arch=sm_80"));
    assert!(l.ptx.contains(".visible .entry matmul_tiled("));
    assert!(l.ptx.contains("bar.sync"));
    assert!(l.ptx.contains(".loc"));
    assert!(l.ptx.contains(".file\t1 \"") && !l.ptx.contains("/tmp/"));
    if let Some(p) = assemble(&l.ptx) {
        let r = p.kernel("matmul_tiled").expect("ptxas reports the kernel");
        assert_eq!(r.shared_bytes, 2 * 16 * 16 * 4);
        assert_eq!(r.barriers, 1);
        assert!(r.regs_per_thread > 0);
    }
}

#[test]
fn clang_lowers_cuda_with_the_prelude() {
    if !have("clang-19", "clang_lowers_cuda_with_the_prelude") {
        return;
    }
    for (file, needle) in [
        ("reduce_warp.cu", "shfl.sync.down.b32"),
        ("nbody.cu", "rsqrt.approx.f32"),
        ("haxpy.cu", ".f16"),
        ("histogram.cu", "atom.shared.add.u32"),
    ] {
        let l = lower_file(&kernels_dir().join(file), &with(Frontend::Clang)).unwrap();
        assert_eq!(l.frontend, Frontend::Clang);
        assert!(l.ptx.contains(needle), "{file}: no {needle}");
        assert!(l.ptx.contains(".loc"), "{file}: no line info");
        assert!(!l.ptx.contains("/tmp/"), "{file}: temp path leaked");
        assemble(&l.ptx);
    }
}

/// Device functions CUDA code calls without an include, each used once; nvcc must accept the
/// same source, so the prelude's signatures are CUDA's.
const INTRINSICS: &str = r#"
__global__ void intrinsics(const float *x, const double *d, int *ix, unsigned *ux,
                           unsigned long long *ull, float *out, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int k = (int)i;
  float v = __ldg(&x[i]) + (float)__ldg(&d[i]) + __ldg(&ix[i]);
  unsigned b = __ballot_sync(0xffffffffu, v > 0.f);
  v += __popc(b) + __clz(k) + __ffs(k) + __brev(b) + __umulhi(b, 3u) + __mul24(k, 3);
  v += __shfl_sync(0xffffffffu, v, 0) + __any_sync(0xffffffffu, v > 1.f)
     + __all_sync(__activemask(), v > 2.f);
  v += __sinf(v) * __cosf(v) + __logf(v) + __powf(v, 2.f) + exp2f(v);
  v += __saturatef(v) + __float2int_rn(v) + floorf(v) + ceilf(v) + (float)fmax(1.0, d[i]);
  atomicMin(ix, k); atomicMax(ux, b); atomicSub(ix, 1); atomicAdd(ull, 1ull);
  atomicExch(out, v); atomicCAS(ux, 0u, b); atomicCAS(ull, 0ull, 1ull); atomicXor(ix, k);
  __threadfence();
  out[i] = v + __popcll(*ull) + __clzll(*ull);
}
"#;

#[test]
fn the_prelude_covers_common_cuda_intrinsics() {
    if !have("clang-19", "the_prelude_covers_common_cuda_intrinsics") {
        return;
    }
    let dir = scratch("intrinsics");
    let src = dir.join("intrinsics.cu");
    std::fs::write(&src, INTRINSICS).unwrap();
    let l = lower_file(&src, &with(Frontend::Clang)).unwrap();
    for needle in [
        "ld.global.nc.f32",
        "ld.global.nc.f64",
        "vote.sync.ballot.b32",
        "vote.sync.any.pred",
        "vote.sync.all.pred",
        "shfl.sync.idx.b32",
        "popc.b32",
        "popc.b64",
        "clz.b32",
        "brev.b32",
        "mul.hi.u32",
        "sin.approx.f32",
        "cos.approx.f32",
        "lg2.approx.f32",
        "ex2.approx.f32",
        "cvt.rni.s32.f32",
        "atom.global.min.s32",
        "atom.global.max.u32",
        "atom.global.add.u64",
        "atom.global.exch.b32",
        "atom.global.cas.b64",
        "atom.global.xor.b32",
        "membar.gl",
    ] {
        assert!(l.ptx.contains(needle), "clang PTX has no {needle}");
    }
    assemble(&l.ptx);
    if have(
        "nvcc",
        "the_prelude_covers_common_cuda_intrinsics (nvcc half)",
    ) {
        let n = lower_file(&src, &with(Frontend::Nvcc)).unwrap();
        assert!(n.ptx.contains(".entry _Z10intrinsics"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn opencl_native_math_lowers_to_approx_instructions() {
    if !have(
        "clang-19",
        "opencl_native_math_lowers_to_approx_instructions",
    ) {
        return;
    }
    let dir = scratch("opencl-native");
    let src = dir.join("native.cl");
    std::fs::write(
        &src,
        "__kernel void k(__global float *y, __global float4 *v) {\n\
           int i = get_global_id(0);\n\
           y[i] = native_exp(y[i]) + native_log(y[i]) + native_sin(y[i]) + native_cos(y[i])\n\
                + native_tan(y[i]) + native_exp2(y[i]) + native_log10(y[i]) + native_powr(y[i], 2.0f);\n\
           v[i] = native_exp(v[i]);\n\
         }\n",
    )
    .unwrap();
    let l = lower_file(&src, &with(Frontend::Clang)).unwrap();
    for needle in [
        "ex2.approx.f32",
        "lg2.approx.f32",
        "sin.approx.f32",
        "cos.approx.f32",
    ] {
        assert!(l.ptx.contains(needle), "no {needle}");
    }
    // float4: one ex2 per lane, beside the scalar ones
    assert!(l.ptx.matches("ex2.approx.f32").count() >= 4 + 3);
    assemble(&l.ptx);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn clang_lowers_opencl_without_unresolved_builtins() {
    if !have(
        "clang-19",
        "clang_lowers_opencl_without_unresolved_builtins",
    ) {
        return;
    }
    let path = kernels_dir().join("cl_matmul_tiled.cl");
    // The default front end for .cl is clang.
    let l = lower_file(&path, &LowerOptions::default()).unwrap();
    assert_eq!(l.frontend, Frontend::Clang);
    assert!(l.ptx.contains(".entry cl_matmul_tiled("));
    assert!(l.ptx.contains("%tid.x") && l.ptx.contains("bar.sync"));
    assert!(
        !l.ptx.contains("get_local_id"),
        "work-item built-in left unresolved"
    );
    if let Some(p) = assemble(&l.ptx) {
        assert_eq!(p.kernel("cl_matmul_tiled").unwrap().shared_bytes, 2048);
    }
}

fn macro_kernel(dir: &Path) -> PathBuf {
    let src = dir.join("scale.cu");
    std::fs::write(
        &src,
        "// scale: y = x * SCALE\n#ifndef SCALE\n#define SCALE 5.0f\n#endif\n\
         extern \"C\" __global__ void scale(int n, const float *x, float *y)\n{\n\
         int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = x[i] * SCALE;\n}\n",
    )
    .unwrap();
    src
}

#[test]
fn defines_change_the_output() {
    let dir = scratch("defines");
    let src = macro_kernel(&dir);
    let mut fronts = vec![];
    if have("nvcc", "defines_change_the_output[nvcc]") {
        fronts.push(Frontend::Nvcc);
    }
    if have("clang-19", "defines_change_the_output[clang]") {
        fronts.push(Frontend::Clang);
    }
    for fe in fronts {
        let plain = lower_file(&src, &with(fe)).unwrap().ptx;
        let mut o = with(fe);
        o.defines.push(("SCALE".into(), Some("3.0f".into())));
        let three = lower_file(&src, &o).unwrap().ptx;
        // 5.0f = 0f40A00000, 3.0f = 0f40400000 in PTX hex floats.
        assert!(plain.contains("0f40A00000"), "{fe}: default SCALE missing");
        assert!(three.contains("0f40400000"), "{fe}: -DSCALE=3.0f missing");
        assert!(
            !three.contains("0f40A00000"),
            "{fe}: define did not replace the default"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn broken_kernels_report_file_and_line() {
    let dir = scratch("broken");
    let src = dir.join("broken.cu");
    std::fs::write(
        &src,
        "// broken on purpose\nextern \"C\" __global__ void k(float *y)\n{\n    y[0] = undefined_name;\n}\n",
    )
    .unwrap();
    let mut fronts = vec![];
    if have("nvcc", "broken_kernels_report_file_and_line[nvcc]") {
        fronts.push(Frontend::Nvcc);
    }
    if have("clang-19", "broken_kernels_report_file_and_line[clang]") {
        fronts.push(Frontend::Clang);
    }
    for fe in fronts {
        let err = lower_file(&src, &with(fe)).unwrap_err();
        assert!(matches!(err, LowerError::Compile { .. }), "{fe}: {err}");
        let (file, line) = err.location().expect("a file:line in the diagnostics");
        assert!(file.ends_with("broken.cu"), "{fe}: {file}");
        assert_eq!(line, 4, "{fe}");
        let msg = err.to_string();
        assert!(
            msg.contains("broken.cu") && msg.contains("undefined_name"),
            "{msg}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn llvm_ir_lowers_through_the_nvptx_back_end() {
    let ll = ptx_dir().join("llvm/saxpy.ll");
    let l = lower_file(&ll, &LowerOptions::default()).unwrap();
    assert_eq!(l.frontend, Frontend::Llvm);
    assert!(l.command.starts_with("LLVM 19 NVPTX"), "{}", l.command);
    assert!(l.ptx.contains(".visible .entry saxpy("));
    assert!(l.ptx.contains(".target sm_80"));
    assert!(l.ptx.contains("fma.rn.f32") && l.ptx.contains(".loc"));
    assemble(&l.ptx);
    let mut o = with(Frontend::Llvm);
    o.arch = "sm_90".into();
    let l90 = lower_file(&ll, &o).unwrap();
    assert!(l90.ptx.contains(".target sm_90") && l90.ptx.contains(".version 7.8"));
    // Hopper's architecture-specific target, which kerncast picks for an H100, needs PTX 8.0
    o.arch = "sm_90a".into();
    let l90a = lower_file(&ll, &o).unwrap();
    assert!(
        l90a.ptx.contains(".target sm_90a") && l90a.ptx.contains(".version 8.0"),
        "{}",
        &l90a.ptx[..300.min(l90a.ptx.len())]
    );
    assemble_for(&l90a.ptx, "sm_90a");
}

#[test]
fn llvm_bitcode_lowers_like_its_text() {
    let llvm_as = Path::new("/usr/lib/llvm-19/bin/llvm-as");
    if !llvm_as.is_file() {
        println!(
            "SKIP llvm_bitcode_lowers_like_its_text: {} absent",
            llvm_as.display()
        );
        return;
    }
    let dir = scratch("bitcode");
    let bc = dir.join("matmul_tiled.bc");
    let st = Command::new(llvm_as)
        .arg(ptx_dir().join("llvm/matmul_tiled.ll"))
        .arg("-o")
        .arg(&bc)
        .status()
        .unwrap();
    assert!(st.success());
    let from_bc = lower_file(&bc, &LowerOptions::default()).unwrap();
    let from_ll = lower_file(
        &ptx_dir().join("llvm/matmul_tiled.ll"),
        &LowerOptions::default(),
    )
    .unwrap();
    assert_eq!(from_bc.frontend, Frontend::Llvm);
    assert_eq!(
        from_bc.ptx, from_ll.ptx,
        "bitcode and text IR give the same PTX"
    );
    assert!(from_bc.ptx.contains("bar.sync"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn malformed_llvm_ir_names_the_file() {
    let dir = scratch("badll");
    let ll = dir.join("bad.ll");
    std::fs::write(&ll, "define void @f( {\n").unwrap();
    let err = lower_file(&ll, &LowerOptions::default()).unwrap_err();
    assert!(matches!(err, LowerError::Llvm { .. }), "{err}");
    assert!(err.to_string().contains("bad.ll"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn ptx_passes_through_and_mismatches_are_refused() {
    let p = ptx_dir().join("clang/saxpy.ptx");
    let l = lower_file(&p, &LowerOptions::default()).unwrap();
    assert_eq!(l.frontend, Frontend::Ptx);
    assert_eq!(l.ptx, std::fs::read_to_string(&p).unwrap());
    let err = lower_file(&kernels_dir().join("cl_vecadd.cl"), &with(Frontend::Nvcc)).unwrap_err();
    assert!(matches!(err, LowerError::Unsupported { .. }), "{err}");
    let err = lower_file(Path::new("kernel.f90"), &LowerOptions::default()).unwrap_err();
    assert!(matches!(err, LowerError::UnknownKind { .. }), "{err}");
}

/// Runs itself in a child process whose environment has no toolchain and no libclc, so the
/// parent's environment (shared by the tests running in parallel) is never touched.
#[test]
fn missing_tool_names_the_tool_and_the_install_command() {
    const CHILD: &str = "KERNCAST_LOWERING_TEST_CHILD";
    let saxpy = kernels_dir().join("saxpy.cu");
    if std::env::var_os(CHILD).is_some() {
        assert!(find_tool("nvcc").is_none());
        let err = lower_file(&saxpy, &with(Frontend::Nvcc)).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, LowerError::ToolMissing { .. }), "{msg}");
        assert!(
            msg.contains("nvcc") && msg.contains("cargo xtask bootstrap"),
            "{msg}"
        );
        assert!(msg.contains("saxpy.cu"), "{msg}");
        match ptxas_resources(".version 7.0\n", "sm_80").unwrap() {
            ResourceProbe::Unavailable { reason } => assert!(reason.contains("ptxas")),
            other => panic!("ptxas found in an empty toolchain: {other:?}"),
        }
        // KERNCAST_LIBCLC=none: OpenCL goes through the macro prelude instead of libclc.
        let clang = Path::new("/usr/lib/llvm-19/bin/clang");
        if clang.is_file() {
            let l = lower_file(
                &kernels_dir().join("cl_histogram.cl"),
                &with(Frontend::Clang),
            )
            .unwrap();
            assert!(l.ptx.contains("atom.global.add") && l.ptx.contains("%ctaid.x"));
            assert!(!l.command.contains("nvidiacl.bc"), "{}", l.command);
        } else {
            println!("SKIP OpenCL prelude check: {} absent", clang.display());
        }
        println!("CHILD-CHECKED");
        return;
    }
    let empty = scratch("empty-toolchain");
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "missing_tool_names_the_tool_and_the_install_command",
            "--exact",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .env("KERNCAST_TOOLCHAIN", &empty)
        .env("PATH", &empty)
        .env("KERNCAST_LIBCLC", "none")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("CHILD-CHECKED"),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&empty).ok();
}

/// `KERNCAST_CLANG` picks the clang that lowers (a child process again, so the variable never
/// reaches the other tests): here a wrapper that leaves a mark and runs clang-19; a name that
/// is not there is an error that says where it came from.
#[test]
fn kerncast_clang_picks_the_compiler_that_lowers() {
    const CHILD: &str = "KERNCAST_CLANG_TEST_CHILD";
    let clang = Path::new("/usr/lib/llvm-19/bin/clang");
    if !clang.is_file() {
        println!("SKIP: {} absent", clang.display());
        return;
    }
    if let Some(mark) = std::env::var_os(CHILD).map(PathBuf::from) {
        let saxpy = kernels_dir().join("saxpy.cu");
        let l = match lower_file(&saxpy, &with(Frontend::Clang)) {
            Ok(l) => l,
            Err(e) => {
                println!("LOWER-ERROR: {e}");
                std::process::exit(3);
            }
        };
        assert!(l.ptx.contains(".entry"), "{}", l.ptx);
        assert!(
            mark.is_file(),
            "the wrapper KERNCAST_CLANG names did not run"
        );
        println!("CHILD-CHECKED");
        return;
    }
    let dir = scratch("kerncast-clang");
    let mark = dir.join("used");
    let wrapper = dir.join("my-clang");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\ntouch '{}'\nexec '{}' \"$@\"\n",
            mark.display(),
            clang.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = |chosen: &Path| {
        Command::new(std::env::current_exe().unwrap())
            .args([
                "kerncast_clang_picks_the_compiler_that_lowers",
                "--exact",
                "--nocapture",
            ])
            .env(CHILD, &mark)
            .env("KERNCAST_CLANG", chosen)
            .output()
            .unwrap()
    };
    let out = run(&wrapper);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("CHILD-CHECKED"),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let missing = run(&dir.join("no-such-clang"));
    let said = String::from_utf8_lossy(&missing.stdout) + String::from_utf8_lossy(&missing.stderr);
    assert!(!missing.status.success(), "{said}");
    assert!(
        said.contains("no-such-clang (KERNCAST_CLANG) not found"),
        "{said}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

fn corpus_sources() -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "cu" || x == "cl") {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(&kernels_dir(), &mut v);
    v.sort();
    v
}

/// The acceptance point "40+ corpus kernels lowered with both nvcc and clang, checked in",
/// plus the corpus conventions: a first-line comment and a workload annotation per file.
#[test]
fn corpus_is_lowered_and_checked_in() {
    let sources = corpus_sources();
    let cuda: Vec<&PathBuf> = sources
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    let opencl = sources.len() - cuda.len();
    assert!(sources.len() >= 40, "only {} corpus kernels", sources.len());
    assert!(opencl >= 10, "only {opencl} OpenCL kernels");
    let mut missing = Vec::new();
    for s in &sources {
        let rel = s.strip_prefix(kernels_dir()).unwrap().with_extension("ptx");
        let text = std::fs::read_to_string(s).unwrap();
        assert!(
            text.starts_with("//"),
            "{}: no leading comment",
            s.display()
        );
        // tests/kernels/loopy/ (re-derived Loopy statistics cases) is the counting tests' own
        // material, with sizes in those tests; the rest of the corpus carries its workloads.
        if !rel.starts_with("loopy") {
            assert!(
                text.contains("kerncast: workload"),
                "{}: no workload annotation",
                s.display()
            );
        }
        let fronts: &[&str] = if cuda.contains(&s) {
            &["nvcc", "clang"]
        } else {
            &["clang"]
        };
        for fe in fronts {
            let p = ptx_dir().join(fe).join(&rel);
            match std::fs::read_to_string(&p) {
                Ok(ptx) => assert!(ptx.contains(".loc"), "{}: no line info", p.display()),
                Err(_) => missing.push(p.display().to_string()),
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not lowered (run `cargo xtask regen`): {missing:?}"
    );
    println!(
        "corpus: {} files ({} CUDA, {opencl} OpenCL), each lowered and checked in",
        sources.len(),
        cuda.len()
    );
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100000001b3)
    })
}

/// Every source is in `tests/ptx/sources.txt` with the hash it had when `cargo xtask regen` last
/// lowered it: a source edited without regenerating its PTX fails here.
#[test]
fn no_source_changed_since_regen() {
    let manifest = std::fs::read_to_string(ptx_dir().join("sources.txt"))
        .expect("tests/ptx/sources.txt (run `cargo xtask regen`)");
    let recorded: std::collections::BTreeMap<&str, &str> = manifest
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(' '))
        .collect();
    let mut stale = Vec::new();
    for s in corpus_sources() {
        let rel = s
            .strip_prefix(kernels_dir())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let now = format!("{:016x}", fnv1a64(&std::fs::read(&s).unwrap()));
        if recorded.get(rel.as_str()) != Some(&now.as_str()) {
            stale.push(rel);
        }
    }
    assert!(
        stale.is_empty(),
        "changed or new since the last `cargo xtask regen`: {stale:?}"
    );
}

/// Lowering today gives the checked-in PTX, apart from source paths (relative to the directory
/// lowering ran in): the corpus is fresh and the drivers are deterministic.
#[test]
fn checked_in_ptx_is_fresh() {
    // `.file` paths and clang's `// file:line:col` comments after `.loc` name the source relative
    // to where lowering ran (the workspace root for regen, tests/ for this test).
    let strip = |s: &str| -> String {
        s.lines()
            .filter(|l| !l.trim_start().starts_with(".file"))
            .map(|l| match l.trim_start().starts_with(".loc") {
                true => l.split("//").next().unwrap_or(l).trim_end(),
                false => l,
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut cases = vec![];
    if have("nvcc", "checked_in_ptx_is_fresh[nvcc]") {
        cases.push((Frontend::Nvcc, "triangular.cu"));
        cases.push((Frontend::Nvcc, "pb_gemm.cu"));
    }
    if have("clang-19", "checked_in_ptx_is_fresh[clang]") {
        cases.push((Frontend::Clang, "triangular.cu"));
        cases.push((Frontend::Clang, "cl_stencil5.cl"));
    }
    for (fe, file) in cases {
        let now = lower_file(&kernels_dir().join(file), &with(fe))
            .unwrap()
            .ptx;
        let stored = ptx_dir()
            .join(fe.name())
            .join(Path::new(file).with_extension("ptx"));
        let stored = std::fs::read_to_string(&stored).unwrap();
        assert_eq!(
            strip(&now),
            strip(&stored),
            "{fe} {file} differs from tests/ptx: run `cargo xtask regen`"
        );
    }
    assert!(workspace_root().join("tests/ptx/llvm/saxpy.ptx").is_file());
}

#[test]
fn sass_shows_the_machine_code() {
    let ptx = std::fs::read_to_string(ptx_dir().join("clang/saxpy.ptx")).unwrap();
    match kerncast::lower::sass(&ptx, "sm_80").unwrap() {
        Ok(text) => {
            assert!(text.contains("saxpy:"), "{text}");
            assert!(text.contains("FFMA") && text.contains("LDG.E"), "{text}");
        }
        Err(reason) => println!("SKIP sass_shows_the_machine_code: {reason}"),
    }
    let broken = kerncast::lower::sass(".version 7.0\n.target sm_80\nbogus;\n", "sm_80");
    if let Ok(Err(_)) = broken {
        return; // tools absent, reported above
    }
    let err = broken.expect_err("ptxas rejects malformed PTX");
    assert!(err.to_string().contains("line 3"), "{err}");
}

/// The demo's bundled examples lower with the default front end, assemble, and follow the corpus
/// conventions (leading comment, a workload annotation or a `main` whose launches give it).
#[test]
fn bundled_examples_lower_and_assemble() {
    let dir = workspace_root().join("examples/kernels");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu" || e == "cl"))
        .collect();
    sources.sort();
    assert!(sources.len() >= 4, "only {} examples", sources.len());
    if !have("clang-19", "bundled_examples_lower_and_assemble") {
        return;
    }
    for s in sources {
        let text = std::fs::read_to_string(&s).unwrap();
        assert!(
            text.starts_with("//")
                && (text.contains("kerncast: workload") || text.contains(">>>(")),
            "{}",
            s.display()
        );
        let l = lower_file(&s, &LowerOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", s.display()));
        assert!(l.ptx.contains(".entry"), "{}", s.display());
        assemble(&l.ptx);
    }
}

/// A module that calls a function it does not define (an OpenCL 2.0 work-group built-in that
/// libclc lacks) is no whole program for ptxas, which stopped the register counts of every
/// kernel in it. It is assembled as relocatable code instead, and the note says so.
#[test]
fn a_call_to_an_undefined_function_is_assembled_as_relocatable_code() {
    if !have(
        "ptxas",
        "a_call_to_an_undefined_function_is_assembled_as_relocatable_code",
    ) {
        return;
    }
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\
               .extern .func (.param .b32 r) ext(.param .b32 a);\n\
               .visible .entry k(.param .u64 k_out)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n\
               ld.param.u64 %rd1, [k_out];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
               { .param .b32 a; .param .b32 r; st.param.b32 [a], %r1;\n\
               call.uni (r), ext, (a); ld.param.b32 %r2, [r]; }\n\
               st.global.u32 [%rd2], %r2;\nret;\n}\n";
    let diagnostics = match ptxas_resources(ptx, "sm_80") {
        Err(LowerError::Compile { diagnostics, .. }) => diagnostics,
        other => panic!("ptxas assembled a call to nothing: {other:?}"),
    };
    assert!(
        diagnostics.contains("Unresolved extern function 'ext'"),
        "{diagnostics}"
    );
    let module = kerncast_passes::ptx::Module::parse(ptx).unwrap();
    let assembled = kerncast::registers::assemble(&module, ptx);
    assert!(assembled.relocatable);
    let mut stats = kerncast_passes::stats::BoundStats::default();
    let notes = assembled.apply("k", &mut stats);
    assert!(stats.regs_per_thread.is_some_and(|r| r > 0), "{notes:?}");
    assert!(
        notes[0]
            .contains("(ptxas -arch=sm_80 -c, as the module calls functions it does not define)"),
        "{notes:?}"
    );
}

/// ptxas's own SASS of a module is read by PTX line where it assembles for the architecture the
/// FLOPs are counted for: a division's line holds its reciprocal and five FFMAs (ten FLOPs, its
/// slow path left out), an add's one FADD. For another architecture nothing is read, and the
/// reason is kept for the report's note.
#[test]
fn ptxas_own_sass_is_read_by_ptx_line_for_the_counted_architecture() {
    if !have(
        "ptxas",
        "ptxas_own_sass_is_read_by_ptx_line_for_the_counted_architecture",
    ) || !have(
        "nvdisasm",
        "ptxas_own_sass_is_read_by_ptx_line_for_the_counted_architecture",
    ) {
        return;
    }
    let ptx = ".version 8.0\n.target sm_86\n.address_size 64\n\
               .visible .entry k(.param .u64 k_out)\n{\n.reg .f32 %f<5>;\n.reg .b64 %rd<3>;\n\
               ld.param.u64 %rd1, [k_out];\ncvta.to.global.u64 %rd2, %rd1;\n\
               ld.global.f32 %f1, [%rd2];\nld.global.f32 %f2, [%rd2+4];\n\
               div.rn.f32 %f3, %f1, %f2;\nadd.f32 %f4, %f3, %f1;\n\
               st.global.f32 [%rd2+8], %f4;\nret;\n}\n";
    let module = kerncast_passes::ptx::Module::parse(ptx).unwrap();
    let assembled = kerncast::registers::assemble_for(&module, ptx, Some("sm_86"));
    let lines = assembled
        .sass_lines
        .unwrap_or_else(|| panic!("no SASS lines: {:?}", assembled.sass_unread));
    assert_eq!(lines.arch, "sm_86");
    let div = &lines.lines[&12];
    assert_eq!(div.mufu, 1, "{div:?}");
    let per = div.per_execution(true, false).expect("a division's FLOPs");
    assert_eq!(per.f32, 10.0, "{div:?}");
    let add = lines.lines[&13].per_execution(false, false);
    assert_eq!(add.map(|f| f.f32), Some(1.0), "{lines:?}");
    let other = kerncast::registers::assemble_for(&module, ptx, Some("sm_90"));
    assert!(other.sass_lines.is_none());
    assert_eq!(
        other.sass_unread.as_deref(),
        Some("ptxas assembles this PTX for sm_86, not sm_90")
    );
    let unasked = kerncast::registers::assemble(&module, ptx);
    assert!(unasked.sass_lines.is_none() && unasked.sass_unread.is_none());
}
