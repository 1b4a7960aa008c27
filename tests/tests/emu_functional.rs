//! Functional tests of the PTX emulator: kernels compiled by nvcc (tests/tests/emu_fixtures/)
//! run on small inputs, outputs checked against Rust references. This proves the semantics the
//! counting oracle relies on.

use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::ptx::Module;
use kerncast_passes::stats::Launch;

fn fixtures() -> Module {
    let p = kerncast_tests::workspace_root().join("tests/tests/emu_fixtures/kernels.ptx");
    let text = std::fs::read_to_string(&p).expect("fixture PTX");
    // as kerncast analyses it: device-function calls inlined
    kerncast_passes::inline::inline_calls(&Module::parse(&text).expect("fixture PTX parses")).module
}

fn launch(grid: [u64; 3], block: [u64; 3]) -> Launch {
    Launch { grid, block }
}

#[test]
fn saxpy() {
    let m = fixtures();
    let n = 200usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 100.0 - i as f32).collect();
    let r = emu::run(
        &m,
        "saxpy",
        &launch([4, 1, 1], [64, 1, 1]),
        &[
            KernelArg::S32(n as i32),
            KernelArg::F32(3.0),
            KernelArg::f32s(&x),
            KernelArg::f32s(&y),
        ],
    )
    .unwrap();
    let want: Vec<f32> = (0..n).map(|i| 3.0f32.mul_add(x[i], y[i])).collect();
    assert_eq!(r.f32s(3), want);
}

/// Deterministic pseudo-random values (no extra dependency).
fn lcg(seed: u64, n: usize) -> Vec<u32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) as u32
        })
        .collect()
}

fn small_floats(seed: u64, n: usize) -> Vec<f32> {
    lcg(seed, n)
        .iter()
        .map(|v| (*v % 1000) as f32 / 250.0 - 2.0)
        .collect()
}

#[test]
fn matmul_naive_and_tiled() {
    let m = fixtures();
    let n = 32usize;
    let a = small_floats(1, n * n);
    let b = small_floats(2, n * n);
    // Sequential k order, fused multiply-add as nvcc emits it.
    let mut want = vec![0f32; n * n];
    for r in 0..n {
        for c in 0..n {
            let mut acc = 0f32;
            for k in 0..n {
                acc = a[r * n + k].mul_add(b[k * n + c], acc);
            }
            want[r * n + c] = acc;
        }
    }
    for kernel in ["matmul_naive", "matmul_tiled"] {
        let args = [
            KernelArg::S32(n as i32),
            KernelArg::f32s(&a),
            KernelArg::f32s(&b),
            KernelArg::f32s(&vec![0.0; n * n]),
        ];
        let r = emu::run(&m, kernel, &launch([2, 2, 1], [16, 16, 1]), &args).unwrap();
        assert_eq!(r.f32s(3), want, "{kernel}");
    }
}

#[test]
fn transpose() {
    let m = fixtures();
    let n = 40usize; // not a multiple of the tile: exercises the guards
    let a = small_floats(3, n * n);
    let args = [
        KernelArg::S32(n as i32),
        KernelArg::f32s(&a),
        KernelArg::f32s(&vec![0.0; n * n]),
    ];
    let r = emu::run(&m, "transpose", &launch([3, 3, 1], [16, 16, 1]), &args).unwrap();
    let want: Vec<f32> = (0..n * n).map(|i| a[(i % n) * n + i / n]).collect();
    assert_eq!(r.f32s(2), want);
}

#[test]
fn reduction_with_shared_memory_and_shuffles() {
    let m = fixtures();
    let n = 700usize;
    let x: Vec<f32> = lcg(4, n).iter().map(|v| (*v % 64) as f32).collect();
    let args = [
        KernelArg::S32(n as i32),
        KernelArg::f32s(&x),
        KernelArg::f32s(&[0.0; 3]),
    ];
    let r = emu::run(&m, "reduce_sum", &launch([3, 1, 1], [256, 1, 1]), &args).unwrap();
    // Small integers: every summation order is exact.
    let want: Vec<f32> = (0..3)
        .map(|b| x.iter().skip(b * 256).take(256).sum())
        .collect();
    assert_eq!(r.f32s(2), want);
}

/// OpenCL `__local` arguments get their own bytes of the block's shared memory: two of them,
/// found from the PTX alone, hold a sum and a count without overwriting each other.
#[test]
fn opencl_local_arguments() {
    let p = kerncast_tests::workspace_root().join("tests/tests/emu_fixtures/local_args.ptx");
    let m = Module::parse(&std::fs::read_to_string(&p).expect("fixture PTX")).unwrap();
    let f = m.kernels().next().unwrap();
    assert_eq!(emu::local_args::local_pointer_params(f), vec![2, 3]);
    let n = 300usize;
    let x: Vec<f32> = lcg(9, n).iter().map(|v| (*v % 64) as f32 - 20.0).collect();
    let args = [
        KernelArg::f32s(&x),
        KernelArg::f32s(&[0.0; 4]),
        KernelArg::Local(128 * 4),
        KernelArg::Local(4),
        KernelArg::S32(n as i32),
    ];
    let r = emu::run(&m, "local_sum", &launch([2, 1, 1], [128, 1, 1]), &args).unwrap();
    let mut want = Vec::new();
    for b in 0..2 {
        let part: Vec<f32> = x.iter().skip(b * 128).take(128).copied().collect();
        want.push(part.iter().sum());
        want.push(part.iter().filter(|v| **v > 0.0).count() as f32);
    }
    assert_eq!(r.f32s(1), want);
}

#[test]
fn histogram_with_atomics() {
    let m = fixtures();
    let n = 500usize;
    let nbins = 7usize;
    let data = lcg(5, n);
    let args = [
        KernelArg::S32(n as i32),
        KernelArg::u32s(&data),
        KernelArg::u32s(&vec![0; nbins]),
        KernelArg::S32(nbins as i32),
    ];
    let r = emu::run(&m, "histogram", &launch([4, 1, 1], [128, 1, 1]), &args).unwrap();
    let mut want = vec![0u32; nbins];
    for d in &data {
        want[(*d % nbins as u32) as usize] += 1;
    }
    assert_eq!(r.u32s(2), want);
}

#[test]
fn block_scan() {
    let m = fixtures();
    let n = 300usize;
    let x: Vec<i32> = lcg(6, n).iter().map(|v| (*v % 100) as i32 - 50).collect();
    let args = [
        KernelArg::S32(n as i32),
        KernelArg::i32s(&x),
        KernelArg::i32s(&vec![0; n]),
    ];
    let r = emu::run(&m, "scan_block", &launch([3, 1, 1], [128, 1, 1]), &args).unwrap();
    let mut want = vec![0i32; n];
    for (i, w) in want.iter_mut().enumerate() {
        let start = i / 128 * 128;
        *w = x[start..=i].iter().sum();
    }
    assert_eq!(r.i32s(2), want);
}

#[test]
fn stencil_f64() {
    let m = fixtures();
    let n = 20usize;
    let a: Vec<f64> = small_floats(7, n * n).iter().map(|v| *v as f64).collect();
    let args = [
        KernelArg::S32(n as i32),
        KernelArg::f64s(&a),
        KernelArg::f64s(&vec![0.0; n * n]),
    ];
    let r = emu::run(&m, "stencil5", &launch([3, 3, 1], [8, 8, 1]), &args).unwrap();
    let got = r.f64s(2);
    for y in 0..n {
        for x in 0..n {
            let c = y * n + x;
            let want = if x > 0 && y > 0 && x < n - 1 && y < n - 1 {
                let s = a[c - 1] + a[c + 1] + a[c - n] + a[c + n];
                0.5 * a[c] + 0.125 * s
            } else {
                0.0
            };
            assert!(
                (got[c] - want).abs() <= 1e-12 * want.abs().max(1.0),
                "({x},{y})"
            );
        }
    }
}

#[test]
fn spmv_csr_data_dependent_loop() {
    let m = fixtures();
    let rows = 50usize;
    let mut rowptr = vec![0i32];
    let mut cols = Vec::new();
    let mut vals = Vec::new();
    for r in 0..rows {
        for k in 0..(r % 5) {
            cols.push(((r * 7 + k * 3) % rows) as i32);
            vals.push((k + 1) as f32);
        }
        rowptr.push(cols.len() as i32);
    }
    let x: Vec<f32> = (0..rows).map(|i| i as f32).collect();
    let args = [
        KernelArg::S32(rows as i32),
        KernelArg::i32s(&rowptr),
        KernelArg::i32s(&cols),
        KernelArg::f32s(&vals),
        KernelArg::f32s(&x),
        KernelArg::f32s(&vec![0.0; rows]),
    ];
    let r = emu::run(&m, "spmv_csr", &launch([2, 1, 1], [32, 1, 1]), &args).unwrap();
    let want: Vec<f32> = (0..rows)
        .map(|r| {
            (rowptr[r]..rowptr[r + 1])
                .map(|j| vals[j as usize] * x[cols[j as usize] as usize])
                .fold(0.0, |acc, v| acc + v)
        })
        .collect();
    assert_eq!(r.f32s(5), want);
}

#[test]
fn votes() {
    let m = fixtures();
    let n = 50usize;
    let x: Vec<i32> = (0..64).map(|i| if i % 3 == 0 { -1 } else { 1 }).collect();
    let args = [
        KernelArg::S32(n as i32),
        KernelArg::i32s(&x),
        KernelArg::u32s(&[7; 6]),
    ];
    let r = emu::run(&m, "vote_ballot", &launch([1, 1, 1], [64, 1, 1]), &args).unwrap();
    let mut want = Vec::new();
    for w in 0..2 {
        let pred = |i: usize| i < n && x[i] > 0;
        let ballot = (0..32)
            .filter(|l| pred(w * 32 + l))
            .fold(0u32, |m, l| m | 1 << l);
        want.extend([ballot, (ballot == u32::MAX) as u32, (ballot != 0) as u32]);
    }
    assert_eq!(r.u32s(2), want);
}

#[test]
fn integer_mix() {
    let m = fixtures();
    let n = 256usize;
    let mut a: Vec<i32> = lcg(8, n).iter().map(|v| *v as i32).collect();
    a[0] = 0;
    a[1] = -1;
    a[2] = i32::MIN;
    a[3] = 7;
    let args = [
        KernelArg::S32(n as i32),
        KernelArg::i32s(&a),
        KernelArg::i32s(&vec![0; n]),
    ];
    let r = emu::run(&m, "int_mix", &launch([2, 1, 1], [128, 1, 1]), &args).unwrap();
    let prmt = |x: u32, y: u32, s: u32| {
        let b = ((y as u64) << 32) | x as u64;
        (0..4).fold(0u32, |acc, i| {
            acc | ((((b >> (8 * ((s >> (4 * i)) & 7))) & 0xff) as u32) << (8 * i))
        })
    };
    let want: Vec<i32> = a
        .iter()
        .map(|&v| {
            let u = v as u32;
            let r = (u.count_ones() as i32)
                .wrapping_add((v.leading_zeros() as i32).wrapping_mul(3))
                .wrapping_add((u.reverse_bits() >> 20) as i32)
                .wrapping_add(v.wrapping_div(7))
                .wrapping_sub(v.wrapping_rem(5))
                .wrapping_add(v.min(100))
                .wrapping_sub(v.max(-100))
                .wrapping_add(v.wrapping_abs())
                .wrapping_add((((v as i64) * 123456789i64) >> 33) as i32)
                .wrapping_add((((v as i64) * 0x12345i64) >> 32) as i32)
                .wrapping_add(((u >> 3) & 0x1f) as i32);
            r.wrapping_add(prmt(u, 0x01020304, 0x5140) as i32)
        })
        .collect();
    assert_eq!(r.i32s(2), want);
}

#[test]
fn float_mix() {
    let m = fixtures();
    let n = 100usize;
    let a = small_floats(9, n);
    let args = [
        KernelArg::S32(n as i32),
        KernelArg::f32s(&a),
        KernelArg::f32s(&vec![0.0; n]),
        KernelArg::f64s(&vec![0.0; n]),
    ];
    let r = emu::run(&m, "float_mix", &launch([1, 1, 1], [128, 1, 1]), &args).unwrap();
    let (out, dout) = (r.f32s(2), r.f64s(3));
    for i in 0..n {
        let v = a[i];
        let want = v.abs().sqrt()
            + 1.0 / (v + 3.0)
            + (v * 0.1).exp()
            + 1.0 / (v.abs() + 1.0).sqrt()
            + v.min(0.5);
        assert!(
            (out[i] - want).abs() <= 1e-4 * want.abs().max(1.0),
            "{i}: {} vs {want}",
            out[i]
        );
        let d = v as f64;
        let dw = d * d / (d + 7.0) + (d * d + 1.0).sqrt() + ((v * 3.7) as i32) as f64;
        assert!(
            (dout[i] - dw).abs() <= 1e-12 * dw.abs().max(1.0),
            "{i}: {} vs {dw}",
            dout[i]
        );
    }
}

/// libdevice's `sin` in double precision, its Payne-Hanek reduction for large arguments
/// included, against Rust's: within 2 units in the last place (CUDA documents 2 ulp).
#[test]
fn sin_f64_including_the_large_argument_path() {
    let m = fixtures();
    let x: Vec<f64> = vec![
        0.0, 0.5, -1.25, 3.0, 100.0, 1e5, -7.5e6, 1e9, 3.3e15, -1e17, 6.02e23, 1e300,
    ];
    let n = x.len();
    let r = emu::run(
        &m,
        "sin_f64",
        &launch([1, 1, 1], [32, 1, 1]),
        &[
            KernelArg::S32(n as i32),
            KernelArg::f64s(&x),
            KernelArg::f64s(&vec![0.0; n]),
        ],
    )
    .unwrap();
    // the large arguments went through the reduction, which keeps its words in local memory
    let local_stores: f64 = r
        .stats
        .features
        .iter()
        .filter(|(k, _)| k.to_string().starts_with("mem.local.store"))
        .map(|(_, v)| *v)
        .sum();
    assert!(local_stores > 0.0, "the slow path ran");
    let got = r.f64s(2);
    for (k, xi) in x.iter().enumerate() {
        let want = xi.sin();
        let ulp = (want.abs().max(f64::MIN_POSITIVE) * f64::EPSILON).max(f64::MIN_POSITIVE);
        assert!(
            (got[k] - want).abs() <= 2.0 * ulp,
            "sin({xi}) = {} emulated, {want} in Rust",
            got[k]
        );
    }
}
