//! `kerncast predict --sweep` on a corpus kernel (vecadd, PTX checked in under tests/ptx/nvcc) on
//! the GTX Titan X: every pair of the 32-pair DVFS grid with time, power and energy, the
//! minimum-energy and minimum-EDP pairs and the Pareto set (insta snapshot of the text output),
//! plus the single-pair view and `kerncast devices`.

use clap::Parser;
use kerncast::ops::{devices, predict};
use kerncast_tests::{snapshot_settings, workspace_root};

fn args(extra: &[&str]) -> predict::Args {
    let ptx = workspace_root().join("tests/ptx/nvcc/vecadd.ptx");
    let mut v = vec![
        "predict".to_string(),
        ptx.display().to_string(),
        "--device".into(),
        "gtx-titan-x".into(),
        "--grid".into(),
        "vecadd_param_0/256".into(),
        "--block".into(),
        "256".into(),
        "--param".into(),
        "vecadd_param_0=1048576".into(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    predict::Args::try_parse_from(v).unwrap()
}

/// The output names the workspace path of the PTX; keep snapshots independent of the checkout.
/// The counter's own notes (how it emulated) belong to the engine's tests, not to this snapshot.
fn relative(s: String) -> String {
    s.replace(&format!("{}/", workspace_root().display()), "")
        .lines()
        .filter(|l| !(l.starts_with("note") && l.contains("emulat")))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// `kerncast predict FILE ARGS…` as the CLI runs it.
fn predict_file(file: &std::path::Path, rest: &[&str]) -> kerncast::Result<String> {
    let file = file.display().to_string();
    let v = ["predict", file.as_str()]
        .into_iter()
        .chain(rest.iter().copied());
    predict::output(&predict::Args::try_parse_from(v).unwrap())
}

/// `text` as a file named `name` in a fresh directory (kept while the guard lives).
fn source_file(name: &str, text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    (dir, file)
}

#[test]
fn sweep_gtx_titan_x_vecadd() {
    let out = relative(predict::output(&args(&["--sweep"])).unwrap());
    let rows = out
        .lines()
        .filter(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            t.len() >= 6 && t[0].parse::<f64>().is_ok() && t[1].parse::<f64>().is_ok()
        })
        .count();
    assert_eq!(rows, 32, "{out}");
    assert_eq!(out.matches("min-energy").count(), 1);
    assert!(out.contains("pareto"));
    snapshot_settings("predict").bind(|| insta::assert_snapshot!("sweep_gtx_titan_x_vecadd", out));
}

#[test]
fn single_pair_and_json() {
    let out = relative(predict::output(&args(&["--clocks", "1164,3505"])).unwrap());
    assert!(
        out.contains("clocks     core 1164 MHz, memory 3505 MHz"),
        "{out}"
    );
    assert!(out.contains("bottleneck dram"), "{out}");
    let json = predict::output(&args(&["--json"])).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v["time_s"].as_f64().unwrap() > 0.0);
    assert!(v["energy_j"].as_f64().unwrap() > 0.0);
    // what the prediction was made from, named as analyze's report names it
    assert_eq!(v["kernel"], "vecadd");
    assert_eq!(v["device"], "gtx-titan-x");
    assert_eq!(v["workload"]["grid"], serde_json::json!([4096, 1, 1]));
    assert_eq!(v["counter"], "symbolic");
    assert_eq!(v["counts"]["threads"], 1048576.0);
    assert_eq!(v["counts"]["op.add_sub.f32.thread"], 1048576.0);
    let sweep = predict::output(&args(&["--sweep", "--json"])).unwrap();
    let v: serde_json::Value = serde_json::from_str(&sweep).unwrap();
    assert_eq!(v["points"].as_array().unwrap().len(), 32);
    assert_eq!(v["counts"]["threads"], 1048576.0);
    assert_eq!(v["counter"], "symbolic");
}

#[test]
fn devices_list_and_show() {
    let list = devices::output(&devices::Args {
        name: None,
        json: false,
    })
    .unwrap();
    assert!(list.lines().count() >= 15, "{list}");
    snapshot_settings("devices").bind(|| insta::assert_snapshot!("devices_list", list));
    let show = devices::output(&devices::Args {
        name: Some("k20".into()),
        json: false,
    })
    .unwrap();
    assert!(show.contains("sm_count = 13"), "{show}");
    assert!(
        show.contains("source: Alavani 2023 thesis Table 4.6"),
        "{show}"
    );
}

/// A scalar parameter the counts depend on and the workload leaves out is an error that names
/// it: the emulator would run the kernel with 0 there, a guess every count would rest on.
/// `--param` sets it, and so does the `param.NAME` hint the emulator offers for its own unset
/// parameters.
#[test]
fn an_unbound_parameter_the_counts_need_is_an_error_and_a_value_sets_it() {
    let run = |extra: &[&str]| {
        let ptx = workspace_root().join("tests/ptx/nvcc/l2_reread.ptx");
        let mut v: Vec<String> = [
            "predict",
            &ptx.display().to_string(),
            "--device",
            "gtx-titan-x",
            "--model",
            "dvfs",
            "--grid",
            "8",
            "--block",
            "256",
            "--param",
            "l2_reread_param_2=2048",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        predict::output(&predict::Args::try_parse_from(v).unwrap())
    };
    let time_us = |out: &str| -> f64 {
        let line = out.lines().find(|l| l.starts_with("time")).expect("time");
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let err = run(&[]).unwrap_err().to_string();
    assert!(
        err.contains("the counts depend on parameter `l2_reread_param_3`")
            && err.contains("--param l2_reread_param_3=VALUE"),
        "{err}"
    );
    let one = run(&["--param", "l2_reread_param_3=1"]).unwrap();
    let four = run(&["--param", "l2_reread_param_3=4"]).unwrap();
    let hinted = run(&["--hint", "param.l2_reread_param_3=4"]).unwrap();
    for out in [&one, &four, &hinted] {
        assert!(out.contains("counts: symbolic"), "{out}");
    }
    // Four trips of 32 load/store pairs, against one.
    assert!(time_us(&four) > 2.0 * time_us(&one), "{one}\n{four}");
    assert_eq!(time_us(&hinted), time_us(&four), "{hinted}\n{four}");
    assert!(!hinted.contains("read by nothing"), "{hinted}");
}

/// Counts that depend on where a buffer lies (a loop from the first 128-byte boundary, as
/// `cuda::discard_memory` and vectorised heads run) are the emulator's, on buffers aligned as
/// cudaMalloc aligns them, not an error asking for an address. A 64-bit size the counts need is
/// still asked for.
#[test]
fn counts_that_depend_on_a_buffers_alignment_are_emulated() {
    let (_dir, file) = source_file(
        "lines.cu",
        r#"__global__ void clear_lines(float *p, int n) {
  char *end = (char *)(p + n);
  char *first = (char *)(((unsigned long long)p + 127) & ~127ull);
  for (char *q = first + 128 * threadIdx.x; q + 128 <= end; q += 128 * blockDim.x)
    *(float *)q = 0.0f;
}
__global__ void sized(float *p, unsigned long long n) {
  for (unsigned long long i = threadIdx.x; i < n; i += 32) p[i] = 0.0f;
}
int main() {
  float *d;
  cudaMalloc(&d, 4096 * sizeof(float));
  clear_lines<<<1, 32>>>(d, 4096);
}
"#,
    );
    let out = predict_file(
        &file,
        &["--kernel", "clear_lines", "--device", "gtx-titan-x"],
    )
    .unwrap();
    assert!(out.contains("counts: emulator"), "{out}");
    assert!(
        out.contains(
            "note: symbolic counter not used: the counts depend on where the buffer `p` lies \
             (its alignment), and the emulator places its buffers 256-byte aligned, as \
             cudaMalloc does; the emulator counted"
        ),
        "{out}"
    );
    let err = predict_file(
        &file,
        &[
            "--kernel",
            "sized",
            "--device",
            "gtx-titan-x",
            "--grid",
            "1",
            "--block",
            "32",
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("the counts depend on parameter `n`, which the workload does not set"),
        "{err}"
    );
}

/// A `--kernel` that names no entry stops with the file and the kernels there are, instead of
/// analysing another kernel or none.
#[test]
fn an_unknown_kernel_name_lists_the_kernels_of_the_file() {
    let ptx = workspace_root().join("tests/ptx/nvcc/pb_atax.ptx");
    let launch = ["--grid", "16", "--block", "256"];
    let err = predict_file(&ptx, &[&["--kernel", "pb_atax_k3"][..], &launch].concat())
        .unwrap_err()
        .to_string();
    assert!(err.contains("pb_atax.ptx"), "{err}");
    assert!(
        err.contains(
            "kernel `pb_atax_k3` not found in the PTX; its kernels: `pb_atax_k1`, `pb_atax_k2`"
        ),
        "{err}"
    );
}

/// What the counts hold but no model prices (a texture fetch, a call to a function without a
/// body) is named in the prediction's notes, not left out of sight.
#[test]
fn unclassified_instructions_and_calls_left_as_calls_are_named() {
    let ptx = r#"
.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.visible .entry k(.param .u64 k_tex, .param .u64 k_out)
{
    .reg .b32 %r<4>;
    .reg .f32 %f<6>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [k_tex];
    ld.param.u64 %rd2, [k_out];
    mov.u32 %r1, %tid.x;
    tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];
    cvta.to.global.u64 %rd3, %rd2;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd3, %rd4;
    st.global.f32 [%rd5], %f1;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd2;
    .param .b64 param1;
    st.param.b64 [param1], %rd2;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    }
    ret;
}
"#;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tex_and_call.ptx");
    std::fs::write(&file, ptx).unwrap();
    let out = predict_file(&file, &["--grid", "4", "--block", "128", "--model", "dvfs"]).unwrap();
    assert!(
        out.contains("not modelled: unclassified instructions (tex.1d.v4.f32.s32 x512)"),
        "{out}"
    );
    assert!(
        out.contains("call to `vprintf` in `k` not inlined"),
        "{out}"
    );
}

/// A `--param` that names no parameter (here a source name given for a PTX file, which has
/// only PTX names) is an error naming the parameters there are, not a parameter left at 0.
#[test]
fn a_param_the_kernel_does_not_have_is_an_error() {
    let ptx = workspace_root().join("tests/ptx/nvcc/pb_atax.ptx");
    let run = |param: &str| {
        predict_file(
            &ptx,
            &[
                "--kernel",
                "pb_atax_k1",
                "--grid",
                "16",
                "--block",
                "256",
                "--param",
                param,
                "--param",
                "pb_atax_k1_param_1=4096",
            ],
        )
    };
    let err = run("nx=4096").unwrap_err().to_string();
    assert!(
        err.contains("--param nx: no such parameter; the kernel's parameters: pb_atax_k1_param_0 (0), pb_atax_k1_param_1 (1)"),
        "{err}"
    );
    for by_position in ["0=4096", "p0=4096", "pb_atax_k1_param_0=4096"] {
        let out = run(by_position).unwrap();
        assert!(out.contains("counts: symbolic"), "{by_position}: {out}");
    }
}

/// A hint that nothing reads (a misspelt key) is named, where a read one is not.
#[test]
fn a_hint_nothing_reads_is_named() {
    let unread = |hint: &str| {
        let out = predict::output(&args(&["--model", "dvfs", "--hint", hint])).unwrap();
        out.lines()
            .filter(|l| l.contains("is read by nothing here"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let typo = unread("l2_hitrate=0.5");
    assert_eq!(typo.len(), 1, "{typo:?}");
    assert!(typo[0].contains("hint `l2_hitrate`"), "{typo:?}");
    assert_eq!(unread("l2_hit_rate=0.5"), Vec::<String>::new());
}

/// `--kernel f` for two overloads of `f` is an error naming both, not the first of them.
#[test]
fn a_kernel_name_with_two_overloads_is_an_error() {
    let entry =
        |name: &str| format!(".visible .entry {name}(.param .u64 {name}_p)\n{{\n\tret;\n}}\n");
    let ptx = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n{}{}",
        entry("_Z1fPi"),
        entry("_Z1fPf")
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("overloads.ptx");
    std::fs::write(&file, ptx).unwrap();
    let run =
        |kernel: &str| predict_file(&file, &["--kernel", kernel, "--grid", "1", "--block", "32"]);
    let err = run("f").unwrap_err().to_string();
    assert!(
        err.contains("--kernel f names 2 kernels (overloads): _Z1fPi, _Z1fPf"),
        "{err}"
    );
    assert!(run("_Z1fPf").unwrap().contains("kernel f (_Z1fPf)"));
}

/// The symbolic counter's and the emulator's counts of the first kernel of `file` for `w`
/// (`names`: the kernel's parameters by position).
fn count_both(
    file: &std::path::Path,
    names: &[String],
    w: &kerncast::workload::Workload,
) -> (
    kerncast_passes::stats::BoundStats,
    kerncast_passes::stats::BoundStats,
) {
    use kerncast::engine::{Counter, EmulatorCounter};
    let (name, text) =
        kerncast::ops::ptx::load(file, &kerncast::lower::LowerArgs::default()).unwrap();
    let module = kerncast::ops::ptx::parse_for_analysis(&name, &text).unwrap();
    let kernel = module.kernels().next().unwrap().name.clone();
    let symbolic = kerncast::engine::default_counter()
        .prepare(&module, &kernel)
        .and_then(|p| p.bind(w, names))
        .unwrap();
    let emulated = EmulatorCounter::default()
        .prepare(&module, &kernel)
        .and_then(|p| p.bind(w, names))
        .unwrap();
    (symbolic, emulated)
}

/// A struct passed by value (`.param .b8 p[8]`, read with `ld.param [p+4]`) is set field by
/// field, by the source's field name or by byte offset; naming the struct alone is an error
/// listing its fields, not a value written into its first byte. The symbolic counter and the
/// emulator read the same fields.
#[test]
fn a_struct_parameter_is_set_field_by_field() {
    use kerncast::workload::Workload;
    let (_dir, file) = source_file(
        "rows.cu",
        "struct Dims { int n; int m; };\n\
         __global__ void rows(Dims d, const float* a, float* out) {\n\
         \x20   int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
         \x20   if (i >= d.m) return;\n\
         \x20   float s = 0;\n\
         \x20   for (int j = 0; j < d.n; ++j) s += a[i * d.n + j];\n\
         \x20   out[i] = s;\n\
         }\n",
    );
    let run = |params: &[&str]| {
        let mut v = vec!["--grid", "4", "--block", "256", "--model", "dvfs"];
        for p in params {
            v.extend(["--param", p]);
        }
        predict_file(&file, &v)
    };
    let err = run(&["d=1000"]).unwrap_err().to_string();
    assert!(
        err.contains("`d` is passed by value as a struct; set the fields the kernel reads: d.n (d+0, u32), d.m (d+4, u32)"),
        "{err}"
    );
    let by_name = run(&["d.n=512", "d.m=1000"]).unwrap();
    assert!(by_name.contains("counts: symbolic"), "{by_name}");
    let time = |out: &str| {
        out.lines()
            .find(|l| l.starts_with("time"))
            .map(str::to_string)
    };
    let by_offset = run(&["d+0=512", "d+4=1000"]).unwrap();
    assert_eq!(time(&by_name), time(&by_offset), "{by_name}\n{by_offset}");
    let fewer_rows = run(&["d.n=512", "d.m=500"]).unwrap();
    assert_ne!(
        time(&by_name),
        time(&fewer_rows),
        "d.m must reach the count"
    );

    // The emulator builds the struct's bytes from the same keys.
    let names = vec!["d".to_string(), "a".into(), "out".into()];
    let w = Workload {
        name: "rows".into(),
        grid: [4, 1, 1],
        block: [256, 1, 1],
        params: [("d+0".to_string(), 512), ("d+4".to_string(), 1000)].into(),
        hints: Default::default(),
        buffers: Default::default(),
    };
    let (symbolic, emulated) = count_both(&file, &names, &w);
    let adds = |s: &kerncast_passes::stats::BoundStats| {
        s.features
            .iter()
            .filter(|(k, _)| k.to_string() == "op.add_sub.f32.thread")
            .map(|(_, v)| *v)
            .sum::<f64>()
    };
    assert_eq!(adds(&symbolic), 1000.0 * 512.0);
    assert_eq!(adds(&emulated), 1000.0 * 512.0);
    assert!(
        emulated
            .assumptions
            .iter()
            .all(|a| !a.hint_key.starts_with("param.")),
        "{:?}",
        emulated.assumptions
    );
}

/// A kernel with `extern __shared__` memory: the launch sizes it (`dynamic_shared_bytes`), and
/// that size limits the blocks per SM. Unsized, it is a listed assumption (0 bytes), never a
/// silent one; both counters report the same bytes per block, and the emulator still runs it.
#[test]
fn dynamic_shared_memory_is_sized_by_the_workload() {
    use kerncast::workload::Workload;
    let (_dir, file) = source_file(
        "rev.cu",
        "extern __shared__ float buf[];\n\
         __global__ void rev(float* d, int n) {\n\
         \x20   int t = threadIdx.x;\n\
         \x20   int i = blockIdx.x * blockDim.x + t;\n\
         \x20   if (i < n) buf[t] = d[i];\n\
         \x20   __syncthreads();\n\
         \x20   if (i < n) d[i] = buf[blockDim.x - 1 - t];\n\
         }\n",
    );
    let run = |hints: &[&str]| {
        let mut v = vec![
            "--grid",
            "4096",
            "--block",
            "256",
            "--param",
            "n=1048576",
            "--model",
            "dvfs",
        ];
        for h in hints {
            v.extend(["--hint", h]);
        }
        predict_file(&file, &v).unwrap()
    };
    let time = |out: &str| -> f64 {
        let line = out.lines().find(|l| l.starts_with("time")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let unsized_ = run(&[]);
    assert!(
        unsized_.contains("assumed `dynamic_shared_bytes` = 0"),
        "{unsized_}"
    );
    // 40 KiB a block leaves 2 blocks of the 8 that fit an SM of the GM200 (96 KiB) by threads
    let sized = run(&["dynamic_shared_bytes=40960"]);
    assert!(!sized.contains("assumed `dynamic_shared_bytes`"), "{sized}");
    assert!(time(&sized) > 1.5 * time(&unsized_), "{unsized_}\n{sized}");

    let names = vec!["d".to_string(), "n".into()];
    let w = |hints: &[(&str, f64)]| Workload {
        name: "rev".into(),
        grid: [4, 1, 1],
        block: [256, 1, 1],
        params: [("n".to_string(), 1024)].into(),
        hints: hints.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        buffers: Default::default(),
    };
    for hints in [vec![], vec![("dynamic_shared_bytes", 1024.0)]] {
        let w = w(&hints);
        let (symbolic, emulated) = count_both(&file, &names, &w);
        let bytes = hints.first().map_or(0, |h| h.1 as u64);
        for s in [&symbolic, &emulated] {
            assert_eq!(s.shared_bytes_per_block, Some(bytes));
            let a = s
                .assumptions
                .iter()
                .find(|a| a.hint_key == "dynamic_shared_bytes")
                .expect("the dynamic shared memory is listed");
            assert_eq!(a.from_user, !hints.is_empty());
        }
        let stores = |s: &kerncast_passes::stats::BoundStats| {
            s.features
                .iter()
                .find(|(k, _)| k.to_string() == "wavefronts.shared.store")
                .map(|(_, v)| *v)
        };
        assert_eq!(stores(&symbolic), Some(4.0 * 8.0));
        assert_eq!(stores(&emulated), stores(&symbolic));
    }
}

/// `-D TILE=32` builds the kernel with 32×32 tiles, and the workload's `block=(TILE,TILE)` must
/// launch it so: the build's value replaces the source's `#define`, in the annotation's
/// expressions and in `--grid`/`--block`, as `analyze` and `rank` already did.
#[test]
fn a_build_define_sizes_the_launch_as_it_sizes_the_kernel() {
    let file = workspace_root().join("examples/kernels/matmul_tiled.cu");
    let header = |rest: &[&str]| {
        let out = predict_file(&file, rest).unwrap();
        out.lines().next().unwrap().to_string()
    };
    let source = header(&[]);
    assert!(
        source.contains("grid [128, 128, 1], block [16, 16, 1]"),
        "{source}"
    );
    let built = header(&["-D", "TILE=32"]);
    assert!(
        built.contains("grid [64, 64, 1], block [32, 32, 1]"),
        "{built}"
    );
    let line = header(&[
        "-D",
        "TILE=8",
        "--grid",
        "n/TILE,n/TILE",
        "--block",
        "TILE,TILE",
        "--param",
        "n=1024",
    ]);
    assert!(
        line.contains("grid [128, 128, 1], block [8, 8, 1]"),
        "{line}"
    );
}

/// Occupancy needs the registers a thread holds, which only the assembler knows: ptxas's count
/// reaches the prediction, and a block that needs more than the register file gives one is
/// named, since that launch would fail on the GPU.
#[test]
fn registers_come_from_ptxas_and_a_block_too_big_for_them_is_named() {
    let (_dir, file) = source_file(
        "hold96.cu",
        "extern \"C\" __global__ void hold96(const float* x, float* out, int n) {\n\
         int t = blockIdx.x * blockDim.x + threadIdx.x;\n\
         float v[96];\n\
         #pragma unroll\n\
         for (int i = 0; i < 96; ++i) v[i] = x[i * n + t];\n\
         float s = 0.f;\n\
         #pragma unroll\n\
         for (int i = 0; i < 96; ++i) s += v[i] * v[95 - i] + v[(i * 7) % 96];\n\
         out[t] = s;\n}\n",
    );
    let run = |block: &str| {
        predict_file(
            &file,
            &["--grid", "64", "--block", block, "--param", "n=65536"],
        )
        .unwrap()
    };
    let big = run("1024");
    let regs: u64 = big
        .lines()
        .find_map(|l| l.strip_prefix("note: registers: "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no register note:\n{big}"));
    assert!(regs > 64, "{big}");
    assert!(
        big.contains(&format!(
            "this launch would fail on gtx-titan-x: {regs} registers x 1024 threads"
        )),
        "{big}"
    );
    let small = run("128");
    assert!(!small.contains("would fail"), "{small}");
}

/// `--param` on an annotated kernel sets the annotation's value, and the launch written over it
/// follows; a name the annotation uses and nothing sets is an error that says how to set it.
#[test]
fn a_param_on_the_command_line_replaces_the_annotations_value() {
    let file = workspace_root().join("examples/kernels/saxpy.cu");
    let first = |rest: &[&str]| {
        let out = predict_file(&file, rest).unwrap();
        let time = out
            .lines()
            .find_map(|l| l.strip_prefix("time"))
            .unwrap()
            .to_string();
        (out.lines().next().unwrap().to_string(), time)
    };
    let (annotated, big) = first(&[]);
    assert!(
        annotated.contains("n=16777216 (grid [65536, 1, 1]"),
        "{annotated}"
    );
    let (given, small) = first(&["--param", "n=1024"]);
    assert!(given.contains("n=1024 (grid [4, 1, 1]"), "{given}");
    assert_ne!(big, small);

    let dir = tempfile::tempdir().unwrap();
    let bare = dir.path().join("bare.cu");
    std::fs::write(
        &bare,
        "// kerncast: workload grid=n/256 block=256\n__global__ void k(int n, float *y) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = 1.0f;\n}\n",
    )
    .unwrap();
    let err = format!("{:?}", predict_file(&bare, &[]).unwrap_err());
    assert!(
        err.contains("bare.cu:2") && err.contains("`n`") && err.contains("--param n=VALUE"),
        "{err}"
    );
    let out = predict_file(&bare, &["--param", "n=1000"]).unwrap();
    assert!(out.contains("n=1000 (grid [4, 1, 1]"), "{out}");
}

/// An OpenCL kernel whose counts depend on data runs in the emulator, and a `__local` argument
/// gets shared memory there as the host would give it, instead of a global buffer that its
/// shared accesses would miss.
#[test]
fn an_opencl_local_argument_runs_in_the_emulator() {
    let (_dir, file) = source_file(
        "rowsum.cl",
        "// kerncast: workload rows=4096 grid=rows/128 block=128\n\
         __kernel void rowsum(__global const int *rowptr, __global const float *val,\n\
                              __global float *out, __local float *acc, int rows) {\n\
           int r = get_global_id(0);\n\
           int l = get_local_id(0);\n\
           acc[l] = 0.0f;\n\
           if (r < rows)\n\
             for (int j = rowptr[r]; j < rowptr[r + 1]; j++) acc[l] += val[j];\n\
           barrier(CLK_LOCAL_MEM_FENCE);\n\
           if (r < rows) out[r] = acc[l];\n\
         }\n",
    );
    let out = predict_file(&file, &[]).unwrap();
    assert!(
        out.lines().next().unwrap().ends_with("counts: emulator"),
        "{out}"
    );
    assert!(
        out.contains("assumed `dynamic_shared_bytes` = 0") && out.contains("(acc: `extern"),
        "{out}"
    );
}

/// A whole program, its kernels unannotated and launched from `main`: each kernel takes the
/// workload of its launch, and a size the file does not fix is asked for, not guessed.
#[test]
fn an_unannotated_kernel_takes_the_workload_of_its_launch_in_host_code() {
    let (_dir, file) = source_file(
        "app.cu",
        r#"#include <cstdlib>
#define TILE 16
__global__ void transpose(const float *in, float *out, int n) {
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  out[x * n + y] = in[y * n + x];
}
__global__ void scale(float *x, int count, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) x[i] *= s;
}
int main(int argc, char **argv) {
  const int N = 2048;
  int count = atoi(argv[1]);
  float *a, *b;
  dim3 threads(TILE, TILE);
  dim3 blocks(N / TILE, N / TILE);
  transpose<<<blocks, threads>>>(a, b, N);
  scale<<<(count + 127) / 128, 128>>>(b, count, 0.5f);
}
"#,
    );
    let out = predict_file(&file, &["--kernel", "transpose"]).unwrap();
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("n=2048 (grid [128, 128, 1], block [16, 16, 1])"),
        "{out}"
    );
    assert!(
        out.contains(
            "note: workload from the launch at line 17: transpose<<<blocks, threads>>>(a, b, N);"
        ),
        "{out}"
    );
    // --param sets the kernel's parameter; the grid is the host code's, sized by its own N
    let out = predict_file(&file, &["--kernel", "transpose", "--param", "n=512"]).unwrap();
    assert!(out.contains("n=512 (grid [128, 128, 1]"), "{out}");
    assert!(out.contains("with n = 512 from --param"), "{out}");

    // the message as is, not wrapped as miette renders it for a terminal
    let err = predict_file(&file, &["--kernel", "scale"])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("undefined name `count`")
            && err.contains("--param count=VALUE")
            && err.contains("launch at line 18"),
        "{err}"
    );
    // C's division: (1000 + 127) / 128 is 8 blocks
    let out = predict_file(&file, &["--kernel", "scale", "--param", "count=1000"]).unwrap();
    assert!(out.contains("count=1000 (grid [8, 1, 1]"), "{out}");
}

/// On a device whose schedule model lacks its bandwidth penalty (the V100), `auto` never
/// predicts a streaming kernel faster than the DRAM can feed it; the grid is sized by the
/// device's SM count, as the host code asks.
#[test]
fn auto_never_predicts_a_stream_faster_than_dram() {
    let (_dir, file) = source_file(
        "stride.cu",
        r#"__global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}
int main() {
  const int N = 1 << 24;
  int numSMs;
  float *x, *y;
  cudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, 0);
  saxpy<<<32 * numSMs, 256>>>(N, 2.0f, x, y);
}
"#,
    );
    let out = predict_file(&file, &["--kernel", "saxpy", "--device", "v100"]).unwrap();
    let d = kerncast_models::device::Device::load("v100").unwrap();
    assert!(out.contains("(grid [2560, 1, 1]"), "80 SMs x 32: {out}");
    let time_us: f64 = out
        .lines()
        .find_map(|l| {
            l.strip_prefix("time")?
                .trim()
                .strip_suffix(" us")?
                .parse()
                .ok()
        })
        .unwrap();
    // 12 bytes per element through DRAM at the profile's bandwidth
    let clocks = d.default_clocks().unwrap();
    let bound_us =
        12.0 * (1u64 << 24) as f64 / d.dram_bandwidth(clocks.mem_mhz, "test").unwrap() * 1e6;
    assert!(
        time_us >= bound_us * 0.999,
        "{time_us} µs < {bound_us} µs: {out}"
    );
    assert!(out.contains("raised to the bound"), "{out}");
}

/// `predict` says why the host code gives a size no value, as `analyze` does: the error names
/// the host's name at the root of the launch's sizes (a size read from the command line, not
/// given), says why it is unknown and how to give it; `--param` then sizes the launch.
#[test]
fn predict_says_why_a_launch_size_has_no_value() {
    let (_dir, file) = source_file(
        "passes.cu",
        r#"#include <cstdlib>
__global__ void reduce_sum(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i / 256] = in[i];
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  float *a, *b;
  int blocks = (n + 255) / 256;
  reduce_sum<<<blocks, 256>>>(a, b, n);
}
"#,
    );
    let err = predict_file(&file, &[]).unwrap_err().to_string();
    assert!(
        err.contains("undefined name `n` in a workload expression (`atoi` of a string kerncast does not know); give it a value with --param n=VALUE (the workload of the launch at line 10: reduce_sum<<<blocks, 256>>>(a, b, n);)"),
        "{err}"
    );
    let out = predict_file(&file, &["--param", "n=65536"]).unwrap();
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("n=65536 (grid [256, 1, 1], block [256, 1, 1])"),
        "{out}"
    );
    assert!(out.contains("with n = 65536 from --param"), "{out}");
}

/// Wang & Chu's shared-memory periods (`o_itrs` of Eq. 21) are the barriers that follow a global
/// load. The tiled product loads a tile per period, 1024 / 16 = 64 of them. The tree reduction
/// loads once and then synchronises each of its eight shared steps: one period, where
/// barriers / 2 gave 4.5 and charged it a global latency in each.
#[test]
fn shared_memory_periods_are_the_barriers_after_a_global_load() {
    for (kernel, periods) in [("matmul_tiled", 64), ("reduce_shared", 1)] {
        let file = workspace_root().join(format!("tests/kernels/{kernel}.cu"));
        let out = predict_file(&file, &["--model", "dvfs", "--device", "gtx-titan-x"]).unwrap();
        let note = out
            .lines()
            .find(|l| l.starts_with("note: case SharedIntensive"))
            .unwrap_or_else(|| panic!("{kernel}: no shared-memory case: {out}"));
        assert!(
            note.contains(&format!("({periods} per warp,")),
            "{kernel}: {note}"
        );
    }
}

/// A launch the host code repeats in a counted loop says what the loop costs; one in a loop
/// kerncast cannot count (it ends on data copied from the device) says its figures are one
/// launch's; launches that differ by the loop's counter are workloads of their own.
#[test]
fn a_launch_in_a_host_loop_says_what_the_loop_costs() {
    let (_dir, file) = source_file(
        "jacobi.cu",
        r#"__global__ void jacobi(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) out[i] = 0.5f * (in[i - 1] + in[i + 1]);
}
__global__ void residual(const float *a, float *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) r[i] = a[i] * a[i];
}
__global__ void column(float *a, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i * 8 + k] *= 2.0f;
}
int main() {
  const int n = 1 << 20, iters = 50;
  float *a, *b, *r, err = 1;
  for (int sweep = 0; sweep < 4; sweep++) {
    for (int it = 0; it < iters; ++it) {
      jacobi<<<n / 256, 256>>>(a, b, n);
      jacobi<<<n / 256, 256>>>(b, a, n);
    }
  }
  while (err > 1e-6f) {
    residual<<<n / 256, 256>>>(a, r, n);
    cudaMemcpy(&err, r, sizeof(float), cudaMemcpyDeviceToHost);
  }
  for (int k = 0; k < 8; k++) column<<<n / 256, 256>>>(a, k, n);
}
"#,
    );
    let out = predict_file(&file, &["--kernel", "jacobi", "--json"]).unwrap();
    let p: serde_json::Value = serde_json::from_str(&out).unwrap();
    let note = p["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .find(|n| n.contains("the host code runs this launch"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        note.contains("runs this launch 400 times (line 18: 200 times; line 19: 200 times)"),
        "{note}"
    );
    // 400 launches of what one costs
    let (time_s, energy_j) = (
        p["time_s"].as_f64().unwrap(),
        p["energy_j"].as_f64().unwrap(),
    );
    assert!(
        note.ends_with(&format!(
            "): {} and {} in all",
            kerncast::report::fmt_time(time_s * 400.0),
            kerncast::report::fmt_energy(energy_j * 400.0)
        )),
        "{note}"
    );
    let out = predict_file(&file, &["--kernel", "residual"]).unwrap();
    assert!(
        out.contains(
            "the launch at line 23 is not counted (it runs at least once: the loop at line 22, \
             whose end kerncast cannot tell (`err`)): the figures are one launch's"
        ),
        "{out}"
    );
    // each launch its own column: the loop's eight values are eight workloads, each run once;
    // the first is predicted, and the note lists the others
    let out = predict_file(&file, &["--kernel", "column"]).unwrap();
    assert!(
        out.contains("it is the first of 8 workloads (0: k=0,n=1048576, 1: k=1,n=1048576, 2: k=2,")
            && out.contains("7: k=7,n=1048576), and `--workload N` predicts another"),
        "{out}"
    );
    let out = predict_file(&file, &["--kernel", "column", "--workload", "7"]).unwrap();
    assert!(out.contains("workload k=7,n=1048576"), "{out}");
    assert!(
        out.contains("workload from the launch at line 26: for (int k"),
        "{out}"
    );
    assert!(!out.contains("the host code runs this launch"), "{out}");
    // a value the command line gives replaces the loop's, and says so
    let out = predict_file(&file, &["--kernel", "column", "--param", "k=3"]).unwrap();
    assert!(out.contains("workload k=3,n=1048576"), "{out}");
    assert!(
        out.contains("column<<<n / 256, 256>>>(a, k, n);, with k = 3 from --param"),
        "{out}"
    );
}

/// Launches inside a host helper take the helper's calls, and a template's launches go to the
/// instantiation they name.
#[test]
fn helpers_and_template_launches_reach_their_kernels() {
    let (_dir, file) = source_file(
        "fill.cu",
        r#"template <typename T>
__global__ void fill(T *x, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}
template <typename T>
void run(T *x, int n) {
  fill<T><<<(n + 255) / 256, 256>>>(x, T(1), n);
}
int main() {
  const int N = 1 << 20;
  float *a; double *b;
  fill<float><<<N / 256, 256>>>(a, 1.0f, N);
  fill<double><<<N / 512, 256>>>(b, 1.0, N / 2);
  run(a, 4 * N);
}
"#,
    );
    let first = |out: String| out.lines().next().unwrap_or_default().to_string();
    let out = predict_file(&file, &["--kernel", "fill<double>"]).unwrap();
    assert!(
        first(out.clone()).contains("n=524288 (grid [2048, 1, 1]"),
        "{out}"
    );
    // run(a, 4 * N) passes a `float *`: its launch is not fill<double>'s
    assert!(!out.contains("first of"), "{out}");
    // fill<float> is launched as such at line 13, then through run(a, 4 * N), `T` deduced
    // from `float *a`, at line 8: the workloads in the order the program launches them
    for (i, n) in [(0, 1 << 20), (1, 1 << 22)] {
        let out = predict_file(
            &file,
            &["--kernel", "fill<float>", "--workload", &i.to_string()],
        )
        .unwrap();
        assert!(first(out.clone()).contains(&format!("n={n} ")), "{out}");
    }
    let out = predict_file(&file, &["--kernel", "fill<float>", "--workload", "1"]).unwrap();
    assert!(
        out.contains(
            "the launch at line 8: fill<T><<<(n + 255) / 256, 256>>>(x, T(1), n);, in run called at line 15"
        ),
        "{out}"
    );
}

/// A struct passed by value carries the size: the launch's initializer gives the field the
/// kernel reads, and without it the error names the field as the user can set it.
#[test]
fn a_struct_argument_gives_its_fields_to_the_workload() {
    let program = |init: &str| {
        format!(
            r#"struct Params {{ float a; float b; int n; }};
__global__ void affine(Params p, const float *x, float *y) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = i; k < p.n; k += gridDim.x * blockDim.x) y[k] = p.a * x[k] + p.b;
}}
int main() {{
  const int n = 1 << 20;
  float *x, *y;
  {init}
  affine<<<256, 128>>>(p, x, y);
}}
"#
        )
    };
    let (_dir, file) = source_file("affine.cu", &program("Params p{2.f, 1.f, n};"));
    let out = predict_file(&file, &["--kernel", "affine"]).unwrap();
    assert!(out.lines().next().unwrap().contains("p.n=1048576"), "{out}");
    // a member assigned once counts as well; the grid-stride loop runs n / 32768 = 32 times
    let (_dir, file) = source_file("affine.cu", &program("Params p; p.a = 2.f; p.n = 4 * n;"));
    let out = predict_file(&file, &["--kernel", "affine"]).unwrap();
    assert!(out.lines().next().unwrap().contains("p.n=4194304"), "{out}");
    // a struct whose address is taken may be written through it: its fields are not read
    let (_dir, file) = source_file(
        "affine.cu",
        &program("Params p{2.f, 1.f, n}; cudaMemcpy(&p, x, sizeof(p), cudaMemcpyDefault);"),
    );
    let err = format!(
        "{:?}",
        predict_file(&file, &["--kernel", "affine"]).unwrap_err()
    );
    assert!(
        err.contains("byte 8 of the by-value parameter `p`") && err.contains("--param p+8=VALUE"),
        "{err}"
    );
}

/// A kernel whose work depends on its data is emulated on the data `--buffer` describes, not
/// on zeros: a CSR row sum runs its rows' loops, lists what they ran, and a buffer too small
/// for what the data makes it read is named.
#[test]
fn buffers_give_a_data_dependent_kernel_its_data() {
    let (_dir, file) = source_file(
        "rowsum.cu",
        r#"// kerncast: workload rows=4096 grid=rows/256 block=256
__global__ void rowsum(int rows, const int *row_ptr, const float *val, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.f;
    for (int j = row_ptr[r]; j < row_ptr[r + 1]; j++) s += val[j];
    out[r] = s;
  }
}
"#,
    );
    let zeros = predict_file(&file, &[]).unwrap();
    assert!(
        zeros.contains("the emulator counted on zero-filled buffers"),
        "{zeros}"
    );
    assert!(
        zeros.contains("`trip.rowsum.cu:6` = 0") && zeros.contains("never entered"),
        "{zeros}"
    );
    let given = predict_file(
        &file,
        &[
            "--buffer",
            "row_ptr=i32:ramp(rows+1,0,8)",
            "--buffer",
            "val=f32:fill(8*rows,1)",
        ],
    )
    .unwrap();
    assert!(
        given.contains("on the data given for row_ptr, val (by --buffer or the host code), other buffers zero-filled"),
        "{given}"
    );
    assert!(!given.contains("never entered"), "{given}");
    // the L2 reuse comes from the addresses the data gives; on zeros there is none to take
    assert!(
        zeros.contains("depend on data, which the emulator runs as zeros"),
        "{zeros}"
    );
    assert!(given.contains("from the addresses of the first"), "{given}");
    let time = |out: &str| {
        out.lines()
            .find(|l| l.starts_with("time"))
            .unwrap()
            .to_string()
    };
    assert_ne!(time(&zeros), time(&given));

    // miette wraps its lines: the message as one line
    let flat = |e: kerncast::Error| {
        format!("{e:?}")
            .replace('│', " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let err = flat(predict_file(&file, &["--buffer", "rows=i32:zeros(4)"]).unwrap_err());
    assert!(
        err.contains("--buffer `rows`: no pointer parameter"),
        "{err}"
    );
    // eight times the entries, in a buffer sized for the default: the loads past its end, in
    // the memory a GPU maps with the allocation, read zeros; they are counted and `val` named
    let over = predict_file(&file, &["--buffer", "row_ptr=i32:ramp(rows+1,0,64)"]).unwrap();
    assert!(
        over.contains("fell outside the buffers kerncast gave the kernel, near `val`")
            && over.contains("--hint buffer_bytes.NAME=BYTES"),
        "{over}"
    );
}

/// An address the symbolic counter cannot follow (an xor) sends the kernel to the emulator,
/// which traces the first blocks' global sectors at the real size: the L2 hit rate comes from
/// them (the table is re-read by every warp, the output streams), not from "every transaction
/// from DRAM".
#[test]
fn the_emulator_profiles_the_addresses_it_runs() {
    let (_dir, file) = source_file(
        "lookup.cu",
        "// kerncast: workload n=1048576 grid=n/256 block=256\n\
         __global__ void lookup(int n, const float *table, float *y) {\n\
         int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
         if (i < n) y[i] = table[(i ^ (i >> 5)) & 255];\n}\n",
    );
    let out = predict_file(&file, &[]).unwrap();
    assert!(
        out.lines().next().unwrap().ends_with("counts: emulator"),
        "{out}"
    );
    // 4 sectors of y and 4 of the table a warp; the table's 32 sectors are first touched once
    assert!(
        out.contains("note: l2_hit_rate 0.50")
            && out.contains("from the addresses of the first 1024 of 4096 blocks"),
        "{out}"
    );
}

/// A kernel that reads its row twice, in one loop and then another (a softmax's sum, then its
/// normalising pass): the second loop re-reads the row only after the whole first loop, while
/// the blocks running beside it stream 48 MiB through a 3 MiB L2, so its reads come from DRAM
/// again. Placed side by side (each loop at its own trip), they were taken for hits: an L2
/// hit rate of a third, and a third fewer DRAM bytes than the kernel moves.
#[test]
fn a_second_pass_over_a_row_misses_the_l2_once_the_first_streamed_past_it() {
    let (_dir, file) = source_file(
        "twopass.cu",
        "// kerncast: workload rows=4096 c=16384 grid=rows block=32\n\
         __global__ void twopass(int rows, int c, const float *x, float *y) {\n\
         const float *row = x + (size_t)blockIdx.x * c;\n\
         float s = 0.0f;\n\
         for (int i = threadIdx.x; i < c; i += 32) s += row[i];\n\
         for (int i = threadIdx.x; i < c; i += 32) y[(size_t)blockIdx.x * c + i] = row[i] / s;\n}\n",
    );
    let out = predict_file(&file, &[]).unwrap();
    let hit: f64 = out
        .lines()
        .find_map(|l| l.strip_prefix("note: l2_hit_rate "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no l2_hit_rate note: {out}"));
    assert!(hit < 0.05, "l2_hit_rate {hit}: {out}");
}

/// A source that does not compile is named with the line of its own that the compiler blamed;
/// where the error is in a header it includes, the source gets no line (the compiler's message
/// names the header's), not the header's line number as if it were the source's.
#[test]
fn a_compile_error_in_a_header_is_not_given_the_sources_line() {
    let (dir, own) = source_file("own.cu", "__global__ void k(float *y) {\n y[0] = ;\n}\n");
    let err = predict_file(&own, &["--grid", "1", "--block", "1"])
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(&format!("{}:2: lower failed", own.display())),
        "{err}"
    );
    std::fs::write(dir.path().join("bad.h"), "\n\nint x = ;\n").unwrap();
    let main = dir.path().join("main.cu");
    std::fs::write(
        &main,
        "#include \"bad.h\"\n__global__ void k(float *y) { y[0] = 1; }\n",
    )
    .unwrap();
    let err = predict_file(&main, &["--grid", "1", "--block", "1"])
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(&format!("{}: lower failed", main.display())),
        "{err}"
    );
    assert!(err.contains("bad.h"), "{err}");
}

/// `kerncast predict kernels.cl --host main.c`: an OpenCL kernel's workload from the C host code
/// that launches it, and, with no host file, an error that says how to give one.
#[test]
fn an_opencl_kernel_takes_its_launch_from_the_host_file_given() {
    let (dir, cl) = source_file(
        "kernels.cl",
        "__kernel void rowsum(__global const float *a, __global float *out, int rows, int cols) {\n  int r = get_global_id(0);\n  if (r >= rows) return;\n  float s = 0.0f;\n  for (int c = 0; c < cols; ++c) s += a[r * cols + c];\n  out[r] = s;\n}\n",
    );
    let host = dir.path().join("host.c");
    std::fs::write(
        &host,
        r#"#include <CL/cl.h>
static void run(cl_command_queue q, cl_kernel k, int rows, int cols) {
    int arg = 2;
    clSetKernelArg(k, arg++, sizeof(int), &rows);
    clSetKernelArg(k, arg++, sizeof(int), &cols);
    size_t g = rows;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
}
int main(void) {
    cl_program program; cl_command_queue queue; cl_int err;
    cl_kernel k = clCreateKernel(program, "rowsum", &err);
    run(queue, k, 4096, 512);
}
"#,
    )
    .unwrap();
    let err = predict_file(&cl, &[]).unwrap_err().to_string();
    assert!(err.contains("give --host FILE"), "{err}");
    let host = host.display().to_string();
    // the runtime chooses the work-group size, so kerncast asks for it
    let err = predict_file(&cl, &["--host", &host])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`local_size`") && err.contains("which the OpenCL runtime picks"),
        "{err}"
    );
    let out = predict_file(&cl, &["--host", &host, "--param", "local_size=128"]).unwrap();
    let first = out.lines().next().unwrap();
    assert!(
        first.contains("cols=512,rows=4096")
            && first.contains("grid [32, 1, 1], block [128, 1, 1]"),
        "{out}"
    );
    assert!(out.contains("with local_size = 128 from --param"), "{out}");
    assert!(
        out.contains("host.c:7: clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);"),
        "{out}"
    );
}

/// A launch that leaves the work-group size to the runtime (`NULL`) of a kernel that requires
/// one (`reqd_work_group_size`) runs with the required size: nothing to ask for. A
/// `--param local_size` still wins.
#[test]
fn a_required_work_group_size_is_the_size_of_a_launch_that_leaves_it_to_the_runtime() {
    let (dir, cl) = source_file(
        "kernels.cl",
        "__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\nvoid twice(__global float *x, int n) {\n  int i = get_global_id(0);\n  if (i < n) x[i] *= 2.0f;\n}\n",
    );
    let host = dir.path().join("host.c");
    std::fs::write(
        &host,
        "#include <CL/cl.h>\nint main(void) {\n    cl_program program; cl_command_queue q; cl_int err;\n    cl_kernel k = clCreateKernel(program, \"twice\", &err);\n    int n = 1 << 20;\n    clSetKernelArg(k, 1, sizeof(int), &n);\n    size_t g = n;\n    clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);\n}\n",
    )
    .unwrap();
    let host = host.display().to_string();
    let out = predict_file(&cl, &["--host", &host]).unwrap();
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("grid [16384, 1, 1], block [64, 1, 1]"),
        "{out}"
    );
    assert!(
        out.contains("the work-group size is the kernel's reqd_work_group_size(64, 1, 1)"),
        "{out}"
    );
    let out = predict_file(&cl, &["--host", &host, "--param", "local_size=128"]).unwrap();
    assert!(out.contains("block [128, 1, 1]"), "{out}");
}

/// `kerncast predict` on a C host file that carries two OpenCL programs in strings, built with
/// different options: `--kernel` picks the program that defines it, and that program's build
/// (found through its variable) gives its macros. A host file with no program says what to
/// give instead.
#[test]
fn a_kernel_in_a_host_string_is_predicted_with_its_own_program_s_build_options() {
    let (_dir, host) = source_file(
        "host.c",
        r#"#include <CL/cl.h>
const char *fill_src = "__kernel void fill(__global int *x) { x[get_global_id(0)] = V; }\n";
const char *copy_src =
    "__kernel void copy(__global const int *a, __global int *b) {\n"
    "  for (int k = 0; k < V; k++) b[get_global_id(0) * V + k] = a[k];\n"
    "}\n";
int main(void) {
    cl_context ctx; cl_int err; cl_command_queue q;
    cl_program f = clCreateProgramWithSource(ctx, 1, &fill_src, NULL, &err);
    cl_program c = clCreateProgramWithSource(ctx, 1, &copy_src, NULL, &err);
    clBuildProgram(f, 0, NULL, "-DV=1", NULL, NULL);
    clBuildProgram(c, 0, NULL, "-DV=3", NULL, NULL);
    cl_kernel k = clCreateKernel(c, "copy", &err);
    size_t g = 1024, l = 64;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL);
}
"#,
    );
    let out = predict_file(&host, &["--kernel", "copy"]).unwrap();
    assert!(
        out.lines().next().unwrap().contains("kernel copy")
            && out.contains("grid [16, 1, 1], block [64, 1, 1]"),
        "{out}"
    );
    assert!(out.contains("host.c:12: -DV=3"), "{out}");
    assert!(out.contains("the OpenCL program in the string at"), "{out}");
    let (_dir, plain) = source_file("plain.c", "int main(void) { return 0; }\n");
    let err = predict_file(&plain, &[]).unwrap_err().to_string();
    assert!(
        err.contains("no OpenCL or CUDA program in its strings") && err.contains("--host"),
        "{err}"
    );
}

/// `kerncast predict` on an instantiation whose only launch is in a branch the host code rules
/// out: the error says which launch and why, instead of predicting another branch's sizes.
#[test]
fn an_instantiation_launched_only_in_a_branch_not_taken_is_explained() {
    let (_dir, file) = source_file(
        "tiles.cu",
        "template <int T> __global__ void tile(float *x, int n) {\n  int i = blockIdx.x * T + threadIdx.x;\n  if (i < n) x[i] += 1.0f;\n}\nint main() {\n  const int n = 1 << 16, tile_size = 32;\n  float *x;\n  if (tile_size == 16) tile<16><<<n / 16, 16>>>(x, n);\n  else tile<32><<<n / 32, 32>>>(x, n);\n}\n",
    );
    let out = predict_file(&file, &["--kernel", "tile<32>"]).unwrap();
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("grid [2048, 1, 1], block [32, 1, 1]"),
        "{out}"
    );
    let err = predict_file(&file, &["--kernel", "tile<16>"])
        .unwrap_err()
        .to_string();
    // the host reading takes the `else` branch at tile_size = 32: the `if`'s launch is never made
    assert!(
        err.contains("has no workload: the launch at ")
            && err.contains("tiles.cu:8 is never reached when the program runs without arguments"),
        "{err}"
    );
}

/// A Hopper mainloop in inline PTX: on the H100 kerncast lowers for `sm_90a` (where `wgmma`
/// compiles at all), reads each warp's quarter of the warpgroup's m64n8k16, and the roofline
/// bounds the tensor work at the H100's rate.
#[test]
fn a_hopper_wgmma_kernel_lowers_for_sm_90a_and_bounds_its_tensor_work() {
    let (_dir, file) = source_file(
        "wg.cu",
        r#"#include <cstdint>
__global__ void wg(float *c, const uint64_t *descs, int ktiles) {
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  uint64_t da = descs[0], db = descs[1];
  for (int kt = 0; kt < ktiles; kt++) {
    asm volatile("wgmma.fence.sync.aligned;\n");
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da + kt * 2), "l"(db + kt * 2));
    asm volatile("wgmma.commit_group.sync.aligned;\n");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n");
  }
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  c[t] = d0 + d1 + d2 + d3;
}
int main() {
  const int ktiles = 64;
  float *c; uint64_t *descs;
  wg<<<132, 128>>>(c, descs, ktiles);
}
"#,
    );
    let out = predict_file(
        &file,
        &["--device", "h100", "--model", "roofline", "--json"],
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    let p: serde_json::Value = serde_json::from_str(&out).unwrap();
    let notes: Vec<&str> = p["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("lowered for sm_90a, h100's")),
        "{notes:?}"
    );
    assert!(
        !notes.iter().any(|n| n.contains("not bounded")),
        "every wgmma read: {notes:?}"
    );
    // 132 blocks × 4 warps × 64 trips, 64·8·16 / 4 each, at 2048 an SM a clock
    let fmas = 132.0 * 4.0 * 64.0 * 2048.0;
    let want = fmas / (132.0 * 2048.0 * 1980e6);
    let tensor = p["breakdown"]["tensor"]
        .as_f64()
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        (tensor - want).abs() / want < 1e-9,
        "{tensor} against {want}"
    );
}

/// A subcommand's flags (`count::Args`, …) parsed as the CLI parses them.
fn parse_flags<'a, T: clap::Args>(v: impl IntoIterator<Item = &'a str>) -> T {
    #[derive(clap::Parser)]
    struct Flags<T: clap::Args> {
        #[command(flatten)]
        args: T,
    }
    Flags::<T>::try_parse_from(v).unwrap().args
}

/// `count`, `emulate` and `predict` read the same workload flags the same way: `--workload`
/// picks an annotated workload by name, a lone `--grid` replaces its grid (its block and
/// parameters stay), and a `--param` may be scoped to the kernel.
#[test]
fn the_workload_flags_mean_the_same_in_count_emulate_and_predict() {
    use kerncast::ops::{count, emulate};
    let (_dir, file) = source_file(
        "scale.cu",
        "// kerncast: workload name=small n=1024 grid=(n/128) block=128\n\
         // kerncast: workload name=big n=65536 grid=(n/128) block=128\n\
         __global__ void scale(float *x, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] *= 2.0f;\n}\n",
    );
    let path = file.display().to_string();
    let flags = [
        "--workload",
        "big",
        "--grid",
        "8",
        "--param",
        "scale:n=65536",
    ];
    let counted = count::output(&parse_flags(
        ["count", path.as_str()].into_iter().chain(flags),
    ))
    .unwrap();
    assert!(
        counted.starts_with("kernel _Z5scalePfi  grid [8, 1, 1] block [128, 1, 1]"),
        "{counted}"
    );
    let emulated = emulate::output(&parse_flags(
        ["emulate", path.as_str()].into_iter().chain(flags),
    ))
    .unwrap();
    assert!(emulated.contains("grid 8x1x1  block 128x1x1"), "{emulated}");
    let predicted = predict_file(&file, &flags).unwrap();
    assert!(
        predicted.contains("workload big (grid [8, 1, 1], block [128, 1, 1])"),
        "{predicted}"
    );
    // a flag a command cannot use is refused, not ignored
    let refused = count::output(&parse_flags([
        "count",
        &path,
        "--grid",
        "8",
        "--buffer",
        "x=f32:zeros(4)",
    ]))
    .unwrap_err();
    assert!(
        refused.to_string().contains("--buffer: `kerncast count`"),
        "{refused}"
    );
}

/// A library caller tells what went wrong by the error's kind, not its text.
#[test]
fn errors_come_by_kind() {
    let ptx = workspace_root().join("tests/ptx/nvcc/vecadd.ptx");
    let launch = [
        "--grid",
        "4",
        "--block",
        "256",
        "--param",
        "vecadd_param_0=1024",
    ];
    let with = |extra: &[&str]| {
        let mut v = launch.to_vec();
        v.extend(extra);
        predict_file(&ptx, &v).unwrap_err()
    };
    assert!(matches!(
        with(&["--model", "oracle"]),
        kerncast::Error::Device(_)
    ));
    assert!(matches!(
        with(&["--device", "no-such-gpu"]),
        kerncast::Error::Device(_)
    ));
    assert!(matches!(
        with(&["--clocks", "fast"]),
        kerncast::Error::Flag(_)
    ));
    assert!(matches!(
        with(&["--param", "nope=1"]),
        kerncast::Error::Flag(_)
    ));
    let (_dir, bad) = source_file("bad.ptx", ".version 7.0\n.target sm_80\n.entry k( {\n");
    let e = predict_file(&bad, &launch).unwrap_err();
    assert!(matches!(e, kerncast::Error::Input(_)), "{e:?}");
    assert!(e.to_string().contains("bad.ptx:3:"), "{e}");
    // `count` parses the file itself: the error carries the span to draw a caret under
    let flags = ["count", bad.to_str().unwrap()];
    let e = kerncast::ops::count::output(&parse_flags(flags)).unwrap_err();
    assert!(matches!(e, kerncast::Error::Ptx(_)), "{e:?}");
    assert!(e.to_string().contains("bad.ptx:3:"), "{e}");
}

/// A kernel whose counts depend on data runs in the emulator on zero-filled buffers. Where the
/// host code allocates them (`cudaMalloc`), they have the program's sizes: here a table of 4096
/// rows of 4096 floats (64 MiB), read one element per row, far past the size the emulator would
/// guess from the launch alone (16 bytes per thread). A size the user gives still wins.
#[test]
fn the_emulator_sizes_buffers_as_the_host_allocates_them() {
    let (_dir, file) = source_file(
        "gather.cu",
        r#"#include <cuda_runtime.h>
__global__ void gather(const int *flag, const float *table, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && flag[i] == 0) out[i] = table[i * 4096 + 7];
}
int main() {
  const int n = 4096;
  int *flag;
  float *table, *out;
  cudaMalloc(&flag, n * sizeof(int));
  cudaMalloc(&table, (size_t)n * 4096 * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  gather<<<n / 256, 256>>>(flag, table, out, n);
  return 0;
}
"#,
    );
    let out = predict_file(&file, &[]).unwrap();
    assert_emulated_in_the_hosts_table(&out);
    // the user's size replaces the program's: the reads past it are named
    let small = predict_file(&file, &["--hint", "buffer_bytes.table=65536"]);
    let text = match small {
        Ok(s) => s,
        Err(e) => format!("{e:?}"),
    };
    assert!(text.contains("table"), "{text}");
    assert!(
        text.contains("out of bounds") || text.contains("fell outside the buffers"),
        "{text}"
    );
}

/// The same for a parameter declared as an array (`float t[][4096]`), which C adjusts to a
/// pointer: its buffer too has the size the host allocates, not the emulator's guess.
#[test]
fn an_array_parameters_buffer_is_sized_as_the_host_allocates_it() {
    let (_dir, file) = source_file(
        "gather2d.cu",
        r#"#include <cuda_runtime.h>
__global__ void gather2d(const int flag[], const float table[][4096], float out[], int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && flag[i] == 0) out[i] = table[i][7];
}
int main() {
  const int n = 4096;
  int *flag;
  float (*table)[4096], *out;
  cudaMalloc(&flag, n * sizeof(int));
  cudaMalloc((void **)&table, (size_t)n * 4096 * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  gather2d<<<n / 256, 256>>>(flag, table, out, n);
  return 0;
}
"#,
    );
    let out = predict_file(&file, &[]).unwrap();
    assert_emulated_in_the_hosts_table(&out);
}

/// Counted by the emulator, with no read past `table` and no size of it asked for.
fn assert_emulated_in_the_hosts_table(out: &str) {
    assert!(out.contains("counts: emulator"), "{out}");
    assert!(
        !out.contains("fell outside the buffers") && !out.contains("buffer_bytes.table"),
        "{out}"
    );
}

/// A kernel whose loop trips come from a buffer runs in the emulator on the data the host
/// code writes into it: row offsets 8·r copied with `cudaMemcpy` give each of 256 rows 8
/// additions (2048), where zeros gave none; the report says where the data came from.
#[test]
fn the_emulator_runs_on_the_data_the_host_writes() {
    let (_dir, file) = source_file(
        "rowsum.cu",
        r#"#include <cuda_runtime.h>
__global__ void rowsum(const int *offs, const float *vals, float *out, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int j = offs[r]; j < offs[r + 1]; j++) s += vals[j];
  out[r] = s;
}
int main() {
  const int rows = 256;
  int h[rows + 1];
  for (int r = 0; r <= rows; r++) h[r] = 8 * r;
  int *offs;
  float *vals, *out;
  cudaMalloc(&offs, (rows + 1) * sizeof(int));
  cudaMemcpy(offs, h, sizeof(h), cudaMemcpyHostToDevice);
  cudaMalloc(&vals, 8 * rows * sizeof(float));
  cudaMalloc(&out, rows * sizeof(float));
  rowsum<<<rows / 64, 64>>>(offs, vals, out, rows);
  return 0;
}
"#,
    );
    let out = predict_file(&file, &["--json"]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let adds = v["counts"]["op.add_sub.f32.thread"].as_f64();
    assert_eq!(adds, Some(2048.0), "{out}");
    let text = predict_file(&file, &[]).unwrap();
    assert!(
        text.contains("the data given for offs (by --buffer or the host code)"),
        "{text}"
    );
}

/// The same for a buffer a by-value struct's pointer field points to: the host's allocation
/// sizes it by the field's name, which the source's layout keys by offset for the emulator; a
/// size the user gives by the field's name still wins.
#[test]
fn a_struct_fields_buffer_is_sized_as_the_host_allocates_it() {
    let (_dir, file) = source_file(
        "gather_struct.cu",
        r#"#include <cuda_runtime.h>
struct Args {
  const int *flag;
  const float *table;
  float *out;
};
__global__ void gather(Args a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && a.flag[i] == 0) a.out[i] = a.table[i * 4096 + 7];
}
int main() {
  const int n = 4096;
  Args a;
  cudaMalloc(&a.flag, n * sizeof(int));
  cudaMalloc(&a.table, (size_t)n * 4096 * sizeof(float));
  cudaMalloc(&a.out, n * sizeof(float));
  gather<<<n / 256, 256>>>(a, n);
  return 0;
}
"#,
    );
    let out = predict_file(&file, &[]).unwrap();
    assert!(out.contains("counts: emulator"), "{out}");
    assert!(!out.contains("fell outside the buffers"), "{out}");
    let small = match predict_file(&file, &["--hint", "buffer_bytes.a.table=65536"]) {
        Ok(s) => s,
        Err(e) => format!("{e:?}"),
    };
    assert!(
        small.contains("out of bounds") || small.contains("fell outside the buffers"),
        "{small}"
    );
}
