//! Shared by emu_corpus.rs and emu_oracle.rs: the corpus kernels with small workloads derived
//! from their annotations, and how to run them in the emulator. (A folder module, so cargo does
//! not build it as a test target of its own.)

#![allow(dead_code)]

pub use kerncast_passes::emu::{self, KernelArg};
pub use kerncast_passes::ptx::{Module, PtxType};
pub use kerncast_passes::stats::{BoundStats, Feature, Launch};
use std::collections::BTreeMap;
use std::path::Path;

/// One corpus kernel with its small workloads.
pub struct Case {
    /// `clang/saxpy.ptx`.
    pub file: String,
    pub kernel: String,
    pub module: Module,
    /// Source parameter names in order (PTX names when the source is unknown).
    pub params: Vec<String>,
    pub workloads: Vec<SmallWorkload>,
    /// Workloads left out for exceeding [`MAX_THREADS`] (name, threads).
    pub skipped: Vec<(String, u64)>,
}

pub struct SmallWorkload {
    pub name: String,
    pub launch: Launch,
    pub params: BTreeMap<String, i64>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Fill {
    Zero,
    Random,
}

/// Candidate problem sizes (not multiples of the tile sizes, to reach the tails); each kernel
/// gets the three largest whose launch stays within [`MAX_THREADS`].
pub const SIZES: [i64; 5] = [5, 8, 12, 20, 33];
/// Launch size cap, so the debug-build suite stays fast. Kernels with a fixed large grid get
/// fewer workloads; [`Case::skipped`] lists what was left out.
pub const MAX_THREADS: u64 = 20_000;

/// Every kernel of every PTX file under tests/ptx with a workload annotation in its source.
pub fn corpus_cases() -> Vec<Case> {
    corpus_cases_in(|_| true)
}

/// The corpus cases of the PTX files whose path under tests/ptx (`clang/saxpy.ptx`) passes `keep`.
pub fn corpus_cases_in(keep: impl Fn(&str) -> bool) -> Vec<Case> {
    let root = kerncast_tests::workspace_root();
    let mut out = Vec::new();
    for p in kerncast_tests::ptx_files() {
        let rel = p
            .strip_prefix(root.join("tests/ptx"))
            .unwrap_or(Path::new(""))
            .display()
            .to_string();
        if !keep(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(&p).expect("read PTX");
        // as kerncast analyses it: device-function calls inlined
        let module = kerncast_passes::inline::inline_calls(
            &Module::parse(&text).expect("corpus PTX parses"),
        )
        .module;
        let stem = p
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let src = ["cu", "cl"]
            .iter()
            .map(|e| root.join("tests/kernels").join(format!("{stem}.{e}")))
            .find(|s| s.exists());
        let Some(src) = src else { continue };
        let src_text = std::fs::read_to_string(&src).expect("read source");
        let Ok(sks) = kerncast::annotations::scan(&src_text) else {
            continue;
        };
        for f in module.kernels() {
            let plain = kerncast::pipeline::demangle(&f.name);
            let Some(sk) = sks.iter().find(|s| s.name == f.name || s.name == plain) else {
                continue;
            };
            let Some(spec) = sk.workloads.first() else {
                continue;
            };
            let mut workloads = Vec::new();
            let mut skipped = Vec::new();
            for size in SIZES.iter().rev().copied() {
                if workloads.len() == 3 {
                    break;
                }
                let overrides = shrink(spec, size);
                if let Ok(w) = spec.resolve_with(&overrides) {
                    let threads = w.grid.iter().product::<u64>() * w.block.iter().product::<u64>();
                    if threads > MAX_THREADS {
                        skipped.push((w.name.clone(), threads));
                        continue;
                    }
                    workloads.push(SmallWorkload {
                        name: w.name.clone(),
                        launch: Launch {
                            grid: w.grid,
                            block: w.block,
                        },
                        params: w.params,
                    });
                }
            }
            // A fixed grid too large for every size (grid=(256) with a grid-stride loop): the same
            // sizes on the largest grid along x that fits. Both counters see the same launch, so
            // any grid is as good a comparison; the kernel's own grid is listed as skipped.
            if workloads.is_empty() {
                for size in SIZES.iter().rev().copied() {
                    if workloads.len() == 3 {
                        break;
                    }
                    let Ok(w) = spec.resolve_with(&shrink(spec, size)) else {
                        continue;
                    };
                    let per_column = w.grid[1] * w.grid[2] * w.block.iter().product::<u64>();
                    let gx = (MAX_THREADS / per_column.max(1)).min(w.grid[0]);
                    if gx == 0 {
                        continue;
                    }
                    workloads.push(SmallWorkload {
                        name: format!("{} on grid ({gx}, {}, {})", w.name, w.grid[1], w.grid[2]),
                        launch: Launch {
                            grid: [gx, w.grid[1], w.grid[2]],
                            block: w.block,
                        },
                        params: w.params,
                    });
                }
            }
            let params = (0..f.params.len())
                .map(|i| {
                    sk.params
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| f.params[i].name.clone())
                })
                .collect();
            out.push(Case {
                file: rel.clone(),
                kernel: f.name.clone(),
                module: module.clone(),
                params,
                workloads,
                skipped,
            });
        }
    }
    out
}

/// Overrides that set every parameter annotated with a large value (a problem size) to `size`.
fn shrink(spec: &kerncast::workload::WorkloadSpec, size: i64) -> BTreeMap<String, i64> {
    spec.params
        .iter()
        .filter_map(|(k, e)| {
            let v = e
                .eval(&BTreeMap::new(), kerncast::workload::Div::Floor)
                .ok();
            (v.is_none_or(|v| v >= 64)).then(|| (k.clone(), size))
        })
        .collect()
}

fn lcg(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 33
}

/// Kernel arguments for a workload: scalars from the workload, buffers of 64 KiB + 8·size³ bytes.
pub fn args_for(c: &Case, w: &SmallWorkload, fill: Fill) -> Vec<KernelArg> {
    let f = c
        .module
        .kernels()
        .find(|k| k.name == c.kernel)
        .expect("kernel");
    let big = SIZES.iter().max().copied().unwrap_or(64) as usize;
    let bytes = (1 << 16) + 8 * big * big * big;
    let mut seed = 42u64;
    f.params
        .iter()
        .zip(&c.params)
        .map(|(p, name)| match w.params.get(name) {
            Some(v) => match p.ty {
                PtxType::F32 => KernelArg::F32(*v as f32),
                PtxType::F64 => KernelArg::F64(*v as f64),
                PtxType::S64 | PtxType::U64 | PtxType::B64 => KernelArg::S64(*v),
                _ => KernelArg::S32(*v as i32),
            },
            None if p.ty.bits() == 64 => KernelArg::Buffer(match fill {
                Fill::Zero => vec![0; bytes],
                Fill::Random => (0..bytes).map(|_| (lcg(&mut seed) % 7) as u8).collect(),
            }),
            None => match p.ty {
                PtxType::F32 => KernelArg::F32(1.5),
                PtxType::F64 => KernelArg::F64(1.5),
                _ => KernelArg::S32(3),
            },
        })
        .collect()
}

/// Run one case; the emulator's counts.
pub fn run_case(c: &Case, w: &SmallWorkload, fill: Fill) -> Result<BoundStats, String> {
    let opts = emu::Options {
        dynamic_shared: 16 * 1024,
        max_steps: 20_000_000,
        ..emu::Options::default()
    };
    emu::run_with(
        &c.module,
        &c.kernel,
        &w.launch,
        &args_for(c, w, fill),
        &opts,
    )
    .map(|r| r.stats)
    .map_err(|e| e.to_string())
}
