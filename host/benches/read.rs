//! Host reading speed (issue 47): a 5,000-line CUDA host program read from source (libclang's
//! parse with the CUDA runtime headers, the lowering, the interpretation of `main`), and the
//! same read with the CUDA prelude parsed whole instead of loaded precompiled.

use criterion::{criterion_group, criterion_main, Criterion};
use kerncast_host::{Options, Program, Toolchain};
use std::fmt::Write;
use std::path::PathBuf;

/// A host program of about `lines` lines: stages that each size a grid from the command
/// line and a struct, run a host loop, and launch kernels in counted loops, as real benchmark
/// drivers do.
fn program(lines: usize) -> String {
    let mut s = String::from(
        "#include <cstdio>\n#include <cstdlib>\n#include <vector>\n#include <cuda_runtime.h>\n\
         struct Cfg { int n; int block; int reps; };\n",
    );
    let stages = lines / 40;
    for i in 0..stages {
        let _ = write!(
            s,
            "__global__ void k{i}(float* x, const float* y, int n, float a) {{\n  int t = blockIdx.x * blockDim.x + threadIdx.x;\n  if (t < n) x[t] = a * x[t] + y[t];\n}}\n\
             static int grid_of_{i}(int n, int b) {{ return (n + b - 1) / b; }}\n\
             double stage{i}(const Cfg& c, float* d_x, float* d_y) {{\n  std::vector<float> h(64);\n  double acc = 0;\n  for (int j = 0; j < 64; j++) {{\n    h[j] = j * 0.5f;\n    acc += h[j];\n  }}\n  int n = c.n + {i};\n  int b = c.block;\n  if (n % 2 == 0) {{\n    b = b * 2;\n  }} else {{\n    b = b / 2 > 32 ? b / 2 : 32;\n  }}\n  dim3 grid(grid_of_{i}(n, b));\n  dim3 block(b);\n  for (int r = 0; r < c.reps; r++) {{\n    k{i}<<<grid, block>>>(d_x, d_y, n, 2.0f);\n  }}\n  switch ({i} % 3) {{\n    case 0: acc += 1; break;\n    case 1: acc += 2; break;\n    default: acc += 3; break;\n  }}\n  for (int j = 0; j < 8; j++) {{\n    int m = n >> j;\n    if (m < 1024) break;\n    k{i}<<<grid_of_{i}(m, 256), 256>>>(d_x, d_y, m, 1.0f);\n  }}\n  cudaDeviceSynchronize();\n  return acc;\n}}\n\n\n"
        );
    }
    s.push_str("int main(int argc, char** argv) {\n  Cfg c;\n  c.n = argc > 1 ? atoi(argv[1]) : 1 << 20;\n  c.block = 256;\n  c.reps = 10;\n  float *d_x, *d_y;\n  cudaMalloc(&d_x, c.n * sizeof(float) * 2);\n  cudaMalloc(&d_y, c.n * sizeof(float) * 2);\n  double total = 0;\n");
    for i in 0..stages {
        let _ = writeln!(s, "  total += stage{i}(c, d_x, d_y);");
    }
    s.push_str("  printf(\"%f\\n\", total);\n  return 0;\n}\n");
    s
}

fn bench(c: &mut Criterion) {
    let tools = Toolchain::discover();
    if tools.cuda_path.is_none() {
        eprintln!("host_read: no CUDA 12 headers (run `cargo xtask bootstrap`); skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("kerncast-host-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file: PathBuf = dir.join("driver.cu");
    let text = program(5000);
    if std::fs::write(&file, &text).is_err() {
        eprintln!("host_read: cannot write {}", file.display());
        return;
    }
    eprintln!("host_read: {} lines", text.lines().count());
    let program = Program::from_files(std::slice::from_ref(&file), &[], &tools);
    let whole = Options {
        toolchain: tools,
        ..Options::default()
    };
    // as kerncast reads programs: the CUDA prelude precompiled once (the first iteration
    // builds it), then loaded
    let precompiled = Options {
        prelude_cache: Some(dir.join("preludes")),
        ..whole.clone()
    };
    let mut g = c.benchmark_group("host_read");
    g.sample_size(10);
    g.bench_function("5k-line CUDA host program", |b| {
        b.iter(|| kerncast_host::read(&program, &precompiled).map(|r| r.launches.len()))
    });
    g.bench_function("5k-line CUDA host program, prelude parsed whole", |b| {
        b.iter(|| kerncast_host::read(&program, &whole).map(|r| r.launches.len()))
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
