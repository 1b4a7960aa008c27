//! How launches are recorded: files that each define `main` are programs of their own (two
//! drivers beside one kernel file), and a launch made with many distinct arguments keeps the
//! ones that do not change.

use kerncast_host::{read, Options, Program, Toolchain};

#[test]
fn each_file_with_a_main_is_a_program_of_its_own() {
    let dir = std::env::temp_dir().join(format!("kerncast-two-mains-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let files = vec![
        write(
            "kernels.cu",
            "__global__ void scale(float *x, int n) { x[threadIdx.x] *= n; }\n\
             void launch(float *x, int n) { scale<<<n / 128, 128>>>(x, n); }\n",
        ),
        write(
            "a.cu",
            "void launch(float *x, int n);\nint main() { for (int i = 0; i < 3; ++i) launch(0, 1024); }\n",
        ),
        write(
            "b.cu",
            "void launch(float *x, int n);\nint main() { for (int i = 0; i < 5; ++i) launch(0, 2048); }\n",
        ),
    ];
    let tools = Toolchain::discover();
    let opts = Options {
        toolchain: tools.clone(),
        ..Options::default()
    };
    let r = read(&Program::from_files(&files, &[], &tools), &opts).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let mut got: Vec<(String, u64, u64)> = r
        .launches
        .iter()
        .map(|l| {
            let caller = l.calls.first().map(|c| c.file.clone()).unwrap_or_default();
            let caller = caller.rsplit('/').next().unwrap_or("").to_string();
            (caller, l.grid[0].as_u64().unwrap(), l.count)
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [("a.cu".to_string(), 8, 3), ("b.cu".to_string(), 16, 5)]
    );
    assert!(r.unreached.is_empty(), "{:?}", r.unreached);
}

/// A launch made with more distinct arguments than are kept apart (a time step's float) still
/// has the arguments that never change: only those that vary read as unknown.
#[test]
fn past_the_distinct_launches_kept_only_the_varying_arguments_are_unknown() {
    let dir = std::env::temp_dir().join(format!("kerncast-variants-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("drift.cu");
    std::fs::write(
        &file,
        "__global__ void drift(float *u, int n, float t) { u[threadIdx.x] += t * n; }\n\
         int main() {\n  const int n = 4096;\n  float *u;\n\
         for (int t = 0; t < 100; ++t) drift<<<(n + 255) / 256, 256>>>(u, n, t * 0.01f);\n}\n",
    )
    .unwrap();
    let tools = Toolchain::discover();
    let opts = Options {
        toolchain: tools.clone(),
        ..Options::default()
    };
    let r = read(&Program::from_files(&[file], &[], &tools), &opts).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let total: u64 = r.launches.iter().map(|l| l.count).sum();
    assert_eq!(total, 100);
    for l in &r.launches {
        assert_eq!(l.args["n"], kerncast_host::Scalar::Int(4096), "{l:?}");
    }
    let varied = r
        .launches
        .iter()
        .filter(|l| l.args["t"].unknown_reason().is_some())
        .count();
    assert_eq!((r.launches.len(), varied), (65, 1));
}

/// A struct passed by value reaches the launch with its fields (the implicit copy constructor
/// copies it), listed by path.
#[test]
fn a_struct_argument_s_fields_are_listed_by_path() {
    let dir = std::env::temp_dir().join(format!("kerncast-struct-arg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("affine.cu");
    std::fs::write(
        &file,
        "struct Params { float a; float b; int n; };\n\
         __global__ void affine(Params p, float *y) { y[threadIdx.x] = p.a * p.n + p.b; }\n\
         int main() {\n  float *y;\n  Params p{2.f, 1.f, 1 << 20};\n  affine<<<256, 128>>>(p, y);\n}\n",
    )
    .unwrap();
    let tools = Toolchain::discover();
    let opts = Options {
        toolchain: tools.clone(),
        ..Options::default()
    };
    let r = read(&Program::from_files(&[file], &[], &tools), &opts).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let fields: Vec<(&str, String)> = r.launches[0]
        .fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.to_string()))
        .collect();
    assert_eq!(
        fields,
        [
            ("p.a", "2".to_string()),
            ("p.b", "1".to_string()),
            ("p.n", "1048576".to_string())
        ]
    );
}

/// A struct a copy from the device writes (`cudaMemcpy(&p, …)`) holds what the device
/// computed: its fields are unknown, not the values from before.
#[test]
fn a_struct_written_by_a_copy_from_the_device_is_unknown() {
    let dir = std::env::temp_dir().join(format!("kerncast-struct-copy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("affine.cu");
    std::fs::write(
        &file,
        "struct Params { float a; int n; };\n\
         __global__ void affine(Params p, float *y) { y[threadIdx.x] = p.a * p.n; }\n\
         int main() {\n  float *y;\n  Params p{2.f, 1 << 20};\n\
         cudaMemcpy(&p, y, sizeof(p), cudaMemcpyDefault);\n  affine<<<256, 128>>>(p, y);\n}\n",
    )
    .unwrap();
    let tools = Toolchain::discover();
    let opts = Options {
        toolchain: tools.clone(),
        ..Options::default()
    };
    let r = read(&Program::from_files(&[file], &[], &tools), &opts).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let n = &r.launches[0].fields["p.n"];
    assert!(
        n.unknown_reason()
            .is_some_and(|w| w.contains("copied from the device")),
        "{n:?}"
    );
}

/// A program that runs longer than the reading's budget (a loop whose condition never
/// changes) has its launches counted only until the reading stopped: each count says it is a
/// lower bound.
#[test]
fn counts_of_a_reading_that_stopped_early_are_lower_bounds() {
    let dir = std::env::temp_dir().join(format!("kerncast-halted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("forever.cu");
    std::fs::write(
        &file,
        "__global__ void k(float *a) { a[threadIdx.x] = 0; }\n\
         int main() {\n  float *a, err = 1;\n  while (err > 1e-6f) k<<<1, 32>>>(a);\n}\n",
    )
    .unwrap();
    let tools = Toolchain::discover();
    let mut opts = Options {
        toolchain: tools.clone(),
        ..Options::default()
    };
    opts.budget.steps = 20_000;
    let r = read(&Program::from_files(&[file], &[], &tools), &opts).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let l = &r.launches[0];
    assert!(l.count > 1, "{l:?}");
    assert!(
        l.count_note
            .as_deref()
            .is_some_and(|n| n.contains("stopped") && n.contains("--host-steps")),
        "{l:?}"
    );
}

/// A loop repeating the same launches whose iterations are costly to follow (the work around
/// each launch runs as known) is counted once it has spent half the steps left when it began,
/// after fewer identical iterations than usual: followed further it would stop the reading on
/// the budget, and the launch after it would never be read.
#[test]
fn a_costly_repetition_loop_is_counted_before_it_exhausts_the_budget() {
    let dir = std::env::temp_dir().join(format!("kerncast-costly-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("repeat.cu");
    std::fs::write(
        &file,
        "__global__ void k(float *a, int n) {}
__global__ void after(float *a) {}
         int main() {
  float *a = 0;
  for (int r = 0; r < 1000; r++) {
             int s = 0;
    for (int i = 0; i < 300; i++) s += i % 7;
             k<<<4, 32>>>(a, s > 0 ? 1 : 0);
  }
  after<<<8, 64>>>(a);
}
",
    )
    .unwrap();
    let tools = Toolchain::discover();
    let mut opts = Options {
        toolchain: tools.clone(),
        ..Options::default()
    };
    opts.budget.steps = 200_000;
    let r = read(&Program::from_files(&[file], &[], &tools), &opts).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let counts: Vec<(String, u64, Option<u64>)> = r
        .launches
        .iter()
        .map(|l| (l.name.clone(), l.count, l.grid[0].as_u64()))
        .collect();
    assert_eq!(
        counts,
        [
            ("k".to_string(), 1000, Some(4)),
            ("after".to_string(), 1, Some(8))
        ]
    );
    assert!(r.launches.iter().all(|l| l.count_note.is_none()), "{r:?}");
}

/// A size read from a file is unknown, and named after the variable it was read into, so the
/// user can give it: with `n=4096` given, the launch is 16 blocks and its argument 4096.
#[test]
fn a_size_read_from_a_file_is_a_name_the_user_can_give() {
    let dir = std::env::temp_dir().join(format!("kerncast-file-param-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("sizes.cu");
    std::fs::write(
        &file,
        "#include <cstdio>\n__global__ void k(float *x, int n) {}\n\
         int main() {\n  int n = 1024;\n  FILE *f = fopen(\"sizes.txt\", \"r\");\n  fscanf(f, \"%d\", &n);\n\
         \x20 k<<<n / 256, 256>>>(0, n);\n}\n",
    )
    .unwrap();
    let tools = Toolchain::discover();
    let program = Program::from_files(&[file], &[], &tools);
    let unknown = read(
        &program,
        &Options {
            toolchain: tools.clone(),
            ..Options::default()
        },
    )
    .unwrap();
    let l = &unknown.launches[0];
    assert_eq!(l.grid[0].as_u64(), None, "{l:?}");
    assert!(
        l.unknowns()
            .iter()
            .any(|(what, why)| what == "n" && why.contains("`n`")),
        "{:?}",
        l.unknowns()
    );
    let mut opts = Options {
        toolchain: tools,
        ..Options::default()
    };
    opts.params.insert("n".into(), 4096.0);
    let given = read(&program, &opts).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let l = &given.launches[0];
    assert_eq!(l.grid[0].as_u64(), Some(16), "{l:?}");
    assert_eq!(
        l.args.get("n").and_then(|v| v.as_u64()),
        Some(4096),
        "{l:?}"
    );
}
