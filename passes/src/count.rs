//! Static feature counts of one kernel: `analyze_kernel` runs affine recovery, builds iteration
//! domains and counts them exactly into quasi-polynomials per feature (`KernelStats`); `bind`
//! evaluates them for a workload into `stats::BoundStats`.
//!
//! Thread-granular counts count the points (ctaid, tid, loop counters) of an instruction's domain;
//! warp-granular ones the points (ctaid, warp, loop counters) for which some thread of the warp is
//! in the domain (an existential projection, exact in isl). The block size is fixed during the
//! analysis (so `ctaid.x * ntid.x` is affine); `bind` re-analyses when a workload uses another
//! block size. What is data dependent becomes a hint parameter, listed as an `Assumption`.

use crate::affine::{self, Val};
use crate::cfg::Cfg;
use crate::classify::{
    self, stride as lanes,
    warp::{class_of, from_coefficient},
};
use crate::cond::Cond;
use crate::domain_count::DomainCounter;
use crate::domains::{self, HintParam};
use crate::mem_sites::{AccessRecord, MemSite, WmmaTile};
use crate::named;
use crate::poly::isl::{Ctx, DimType, Set};
use crate::poly::poly::{rat, rat_to_f64};
use crate::poly::{self as poly_mod, CountError, LinExpr, Poly, QPoly, QPolySum};
use crate::ptx::{Function, Module, ParamField};
use crate::reuse;
use crate::stats::{
    Assumption, BlockExecs, BoundStats, Dir, Feature, Granularity, Launch, OpKind, Space,
    StrideClass,
};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Not;
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    #[error("kernel `{0}` not found in the module")]
    NoKernel(String),
    #[error("kernel `{kernel}`: counting failed for block {block}: {source}")]
    Count {
        kernel: String,
        block: String,
        source: CountError,
    },
    #[error("kernel `{kernel}`: parameter `{name}` has no value in the workload")]
    MissingParam { kernel: String, name: String },
}

/// Analysis options: the launch the counts are exact for.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub block: Option<[u64; 3]>,
    /// The grid size, when the counts need only hold for it: `%nctaid` become constants, so a
    /// grid-stride loop (`i += blockDim.x * gridDim.x`) gets a constant step and an exact trip
    /// count. `None` keeps the grid symbolic (`nctaid_*`), valid for every grid.
    pub grid: Option<[u64; 3]>,
}

/// A launch with numbers, for `KernelStats::bind`. Parameters are keyed by PTX parameter name,
/// by symbol (`p0`, `p1`, …) or by position (`"0"`, `"1"`, …).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Workload {
    pub grid: [u64; 3],
    pub block: [u64; 3],
    pub params: BTreeMap<String, i64>,
    pub hints: BTreeMap<String, f64>,
    /// Walk the addresses for the L2 reuse profile ([`BoundStats::reuse`], about 0.4 s); off,
    /// it is `None`.
    pub reuse: bool,
}

/// A memory feature whose stride class depends on parameter values (resolved by `bind`).
#[derive(Clone, Debug, Serialize)]
pub struct PendingMem {
    pub space: Space,
    pub dir: Dir,
    pub bits: u16,
    pub nc: bool,
    /// Byte coefficients of `tid_x`, `tid_y`, `tid_z` in the address.
    pub coef: [String; 3],
    #[serde(skip)]
    pub coef_poly: [Poly; 3],
    pub thread: QPoly,
    pub warp: QPoly,
}

/// Symbolic counts of one kernel.
#[derive(Clone, Debug, Serialize)]
pub struct KernelStats {
    pub kernel: String,
    /// The block size the counts are exact for.
    pub block: [u64; 3],
    /// Symbol → PTX parameter name.
    pub params: BTreeMap<String, String>,
    pub features: BTreeMap<String, QPoly>,
    #[serde(skip)]
    pub feature_keys: BTreeMap<Feature, QPoly>,
    pub pending_mem: Vec<PendingMem>,
    /// Every memory instruction: `bind` classes each at the workload's parameters, where a
    /// guard may leave one lane per warp (the symbolic `features` assume every coefficient
    /// observable).
    #[serde(skip)]
    pub mem_sites: Vec<MemSite>,
    /// Global and local accesses, for the sectors and lines of each warp access (`bind`).
    #[serde(skip)]
    pub accesses: Vec<AccessRecord>,
    /// Per CFG block: (thread executions, warp executions).
    pub block_execs: BTreeMap<usize, (QPoly, QPoly)>,
    /// Per CFG block, per position in it: the executions of a guarded instruction whose guard
    /// is decided (the threads whose predicate is on), where they differ from the block's.
    #[serde(default)]
    pub guarded_execs: BTreeMap<usize, BTreeMap<usize, (QPoly, QPoly)>>,
    #[serde(skip)]
    pub hints: Vec<HintParam>,
    pub assumptions: Vec<Assumption>,
    /// Static shared memory per block, bytes.
    pub shared_bytes: u64,
    /// The kernel's `.local` declarations, bytes per thread.
    #[serde(default)]
    pub local_bytes: u64,
    /// Dynamic (`extern __shared__`) arrays, sized by the launch: `dynamic_shared_bytes`.
    pub dynamic_shared: Vec<String>,
    #[serde(skip)]
    function: Option<Function>,
    /// Analysed with the kernel parameters as numbers (by `bind`).
    #[serde(skip)]
    specialized: bool,
    /// The grid the counts were specialised to ([`Options::grid`]); `bind` re-analyses for
    /// another one.
    #[serde(skip)]
    pub grid: Option<[u64; 3]>,
    /// The named min/max/select values that addresses may use ([`crate::named`]).
    #[serde(skip)]
    pub defs: std::sync::Arc<named::Defs>,
    /// Sector and line counts in closed form, shared by the workloads bound to these counts.
    #[serde(skip)]
    sector_forms: SectorForms,
    /// The reuse profiles of the workloads bound so far ([`reuse::ReuseMemo`]).
    #[serde(skip)]
    reuse_memo: reuse::ReuseMemo,
}

/// Counts of `kernel` in `module` for its declared block size (`.reqntid`), or 256×1×1 (listed
/// as an assumption) — `bind` re-analyses for the workload's block size.
pub fn analyze_kernel(module: &Module, kernel: &str) -> Result<KernelStats, AnalyzeError> {
    analyze_kernel_with(module, kernel, &Options::default())
}

pub fn analyze_kernel_with(
    module: &Module,
    kernel: &str,
    opts: &Options,
) -> Result<KernelStats, AnalyzeError> {
    let f = module
        .function(kernel)
        .ok_or_else(|| AnalyzeError::NoKernel(kernel.to_string()))?;
    analyze_function(module, f, opts)
}

/// Counts of `kernel` for the one workload `w`: its parameter values are numbers from the
/// start (and its grid, where the kernel reads the grid size), as `bind` analyses again when
/// a symbolic count leaves something open. Where the symbolic count of every workload at once
/// is costly (loop bounds with a min and a max of parameters split it into hundreds of
/// pieces), this one is cheap: `banded_matvec` takes 48 ms here against 3.8 s symbolically,
/// with the same counts.
pub fn analyze_for_workload(
    module: &Module,
    kernel: &str,
    w: &Workload,
) -> Result<KernelStats, AnalyzeError> {
    let f = module
        .function(kernel)
        .ok_or_else(|| AnalyzeError::NoKernel(kernel.to_string()))?;
    let vals = param_values(&param_symbols(f, &f.param_fields()), w);
    let opts = Options {
        block: Some(w.block),
        grid: reads_grid_size(f).then_some(w.grid),
    };
    let stats = affine::with_param_values(vals, || analyze_function(module, f, &opts))?;
    Ok(KernelStats {
        specialized: true,
        ..stats
    })
}

/// [`crate::unroll::fold`] for the guarded instructions: an unrolled copy of a block keeps its
/// instructions in order, so a position names the same instruction in the original block.
fn fold_guarded(
    origin: &[usize],
    per_block: BTreeMap<usize, BTreeMap<usize, (QPoly, QPoly)>>,
) -> BTreeMap<usize, BTreeMap<usize, (QPoly, QPoly)>> {
    let mut out: BTreeMap<usize, BTreeMap<usize, (QPoly, QPoly)>> = BTreeMap::new();
    for (b, insts) in per_block {
        let o = origin.get(b).copied().unwrap_or(b);
        let into = out.entry(o).or_default();
        for (k, (t, w)) in insts {
            match into.get_mut(&k) {
                Some((t0, w0)) => {
                    *t0 = t0.add(&t);
                    *w0 = w0.add(&w);
                }
                None => {
                    into.insert(k, (t, w));
                }
            }
        }
    }
    out
}

/// Each parameter's symbol (`p<i>`, a by-value struct's field `p<i>_<offset>`) and its name
/// (the field's as `name+offset`).
fn param_symbols(f: &Function, fields: &[ParamField]) -> BTreeMap<String, String> {
    f.params
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("p{i}"), p.name.clone()))
        .chain(fields.iter().map(|fd| {
            (
                affine::param_field_symbol(fd.param, fd.offset),
                format!("{}+{}", f.params[fd.param].name, fd.offset),
            )
        }))
        .collect()
}

/// The values `w` gives the parameters `params` (symbol → name), by symbol: a workload names
/// a parameter by its name, its symbol or its position.
fn param_values(params: &BTreeMap<String, String>, w: &Workload) -> BTreeMap<String, i128> {
    params
        .iter()
        .filter_map(|(sym, name)| {
            let idx = sym.trim_start_matches('p');
            let v = w
                .params
                .get(name)
                .or_else(|| w.params.get(sym))
                .or_else(|| w.params.get(idx))?;
            Some((sym.clone(), *v as i128))
        })
        .collect()
}

fn file_line(module: &Module, cfg: &Cfg, b: usize) -> Option<String> {
    // line 0 is code the compiler made up (nvcc's `.loc 1 0 5`), no place a user can find
    let i = cfg
        .blocks
        .get(b)?
        .insts
        .iter()
        .find_map(|i| i.loc.as_ref().filter(|l| l.line > 0))?;
    let name = i
        .file_name
        .as_deref()
        .map(String::from)
        .or_else(|| module.file_name(i.file_index).map(String::from))
        .unwrap_or_else(|| format!("file{}", i.file_index));
    let short = name.rsplit('/').next().unwrap_or(&name).to_string();
    Some(format!("{short}:{}", i.line))
}

/// The pointer parameters shared-memory addresses are based on: OpenCL's `__local` kernel
/// arguments, whose bytes the host sets (`clSetKernelArg(k, i, bytes, NULL)`), as CUDA's
/// dynamic shared memory.
fn local_memory_args(sites: &[MemSite], params: &BTreeMap<String, String>) -> Vec<String> {
    let mut vars = BTreeSet::new();
    for s in sites.iter().filter(|s| s.space == Space::Shared) {
        if let Some(a) = &s.addr {
            a.vars(&mut vars);
        }
    }
    params
        .iter()
        .filter(|(sym, name)| vars.contains(*sym) || vars.contains(*name))
        .map(|(_, name)| name.clone())
        .collect()
}

/// The hint that sizes a launch's dynamic shared memory per block (bytes).
pub const DYNAMIC_SHARED_BYTES: &str = "dynamic_shared_bytes";

/// What is assumed of a kernel's dynamic shared arrays `names` when the workload does not
/// size them: none of it, for occupancy (the hint replaces the default as any other).
pub fn dynamic_shared_assumption(names: &[String]) -> Assumption {
    Assumption {
        hint_key: DYNAMIC_SHARED_BYTES.into(),
        what: format!(
            "bytes of dynamic shared memory per block ({}: `extern __shared__` arrays or OpenCL `__local` arguments, which the launch sizes); they limit the blocks per SM",
            names.join(", ")
        ),
        default: 0.0,
        from_user: false,
        at: None,
    }
}

pub fn analyze_function(
    module: &Module,
    f: &Function,
    opts: &Options,
) -> Result<KernelStats, AnalyzeError> {
    crate::poly::isl::begin_analysis();
    affine::with_grid(opts.grid, || {
        named::scoped(|| analyze_launch(module, f, opts))
    })
}

/// Whether `f` reads the grid size: its counts may then need a fixed grid to be exact
/// ([`Options::grid`]).
pub fn reads_grid_size(f: &Function) -> bool {
    f.instructions().any(|i| {
        i.operands.iter().any(|o| {
            matches!(
                o,
                crate::ptx::Operand::SpecialReg(crate::ptx::SReg::Nctaid(_))
            )
        })
    })
}

/// The largest kernel the symbolic counter takes, as basic blocks × instructions: its value
/// analysis joins every block's registers at every join, so its work grows with the product.
/// A kernel beyond it (a hash permutation of 24 000 blocks and 96 000 instructions once its
/// device functions are linked and inlined: hours) is counted by the emulator instead. No
/// other kernel of gpuFLOPBench's 255 programs reaches it (their realcode rows are unchanged).
pub const MAX_BLOCKS_TIMES_INSTS: u64 = 200_000_000;

fn analyze_launch(
    module: &Module,
    f: &Function,
    opts: &Options,
) -> Result<KernelStats, AnalyzeError> {
    let mut assumptions = Vec::new();
    let shared = module.kernel_shared(f);
    let block = match (opts.block, f.perf_values("reqntid")) {
        (Some(b), _) => b,
        (None, Some(v)) if !v.is_empty() => [
            v[0],
            v.get(1).copied().unwrap_or(1),
            v.get(2).copied().unwrap_or(1),
        ],
        _ => {
            assumptions.push(Assumption {
                hint_key: "block".into(),
                what: "block size for the symbolic counts (addresses and guards are affine only for a fixed block size)".into(),
                default: 256.0,
                from_user: false,
                at: None,
            });
            [256, 1, 1]
        }
    };
    let whole = Cfg::build(f);
    let insts = f.instructions().count();
    if (whole.blocks.len() as u64).saturating_mul(insts as u64) > MAX_BLOCKS_TIMES_INSTS {
        return Err(AnalyzeError::Count {
            kernel: f.name.clone(),
            block: whole.blocks[0].name(),
            source: CountError::TooLarge {
                blocks: whole.blocks.len(),
                insts,
                bound: MAX_BLOCKS_TIMES_INSTS,
            },
        });
    }
    // Loops with a constant trip count that no induction variable describes are unrolled;
    // `origin` folds the copies' per-block counts back onto the blocks of `Cfg::build`.
    let (cfg, origin, vals) = crate::unroll::constant_trip_loops_with_values(f, whole, block);
    let doms = domains::build(&cfg, &vals, &|b| file_line(module, &cfg, b));
    if let Some(b) = doms.too_many_ways {
        return Err(AnalyzeError::Count {
            kernel: f.name.clone(),
            block: cfg.blocks[b].name(),
            source: CountError::TooManyPaths(domains::MAX_WAYS),
        });
    }
    let taint = crate::taint::Taint::new(&cfg);
    let fields = f.param_fields();
    let mut counter = DomainCounter::new(block).with_params(&f.params, &fields);
    let err = |b: usize, e: CountError| AnalyzeError::Count {
        kernel: f.name.clone(),
        block: cfg.blocks[b].name(),
        source: e,
    };
    let mut sums: BTreeMap<Feature, QPolySum> = BTreeMap::new();
    let mut add_times = |k: Feature, q: &QPoly, times: i128| {
        sums.entry(k).or_default().add_scaled(q, &rat(times));
    };
    let nblocks = Poly::var("nctaid_x")
        .mul(&Poly::var("nctaid_y"))
        .mul(&Poly::var("nctaid_z"));
    let tpb = block.iter().product::<u64>();
    add_times(Feature::Blocks, &QPoly::from_poly(nblocks.clone()), 1);
    add_times(
        Feature::Threads,
        &QPoly::from_poly(nblocks.scale(&rat(tpb as i128))),
        1,
    );
    add_times(
        Feature::Warps,
        &QPoly::from_poly(nblocks.scale(&rat(tpb.div_ceil(32) as i128))),
        1,
    );
    let mut pending_mem = Vec::new();
    let mut mem_sites = Vec::new();
    let mut accesses: Vec<AccessRecord> = Vec::new();
    let mut block_execs = BTreeMap::new();
    let mut guarded_execs: BTreeMap<usize, BTreeMap<usize, (QPoly, QPoly)>> = BTreeMap::new();
    for (b, bb) in cfg.blocks.iter().enumerate() {
        if !cfg.reachable(b) {
            continue;
        }
        let d = &doms.blocks[b];
        let block_parts =
            count_groups(&mut counter, &d.counters, &d.groups).map_err(|e| err(b, e))?;
        let (bt, bw) = totals(&block_parts);
        block_execs.insert(b, (bt.clone(), bw.clone()));
        // Instructions that run wherever the block runs share its counts: they only add to a
        // multiplicity per feature, and the block's counts are added once per feature below
        // (counts of independent guards multiply into thousands of pieces, too many to copy and
        // add per instruction).
        let mut per_block: BTreeMap<Feature, i128> = BTreeMap::new();
        let mut env = vals.entry[b].clone();
        for (k, inst) in bb.insts.iter().enumerate() {
            let guard = inst
                .pred
                .as_ref()
                .filter(|_| !classify::counts_when_guard_false(inst));
            // the instruction's own lane groups and counts, where a known guard restricts it
            let mut own: Option<(Parts, QPoly, QPoly)> = None;
            if let Some(g) = guard {
                let c = match env.get(&g.reg) {
                    Some(Val::Pred(c)) => Some(if g.negated {
                        c.clone().not()
                    } else {
                        c.clone()
                    }),
                    _ => None,
                };
                match c {
                    Some(c) => {
                        let gs: Vec<Cond> = d
                            .groups
                            .iter()
                            .map(|g| named::expand(&g.clone().and(c.clone())))
                            .collect();
                        let parts =
                            count_groups(&mut counter, &d.counters, &gs).map_err(|e| err(b, e))?;
                        let (t, w) = totals(&parts);
                        own = Some((parts, t, w));
                    }
                    None => {
                        let non_affine = !taint.reads_tainted(b, k, &g.reg);
                        let line = inst
                            .loc
                            .as_ref()
                            .map_or_else(|| format!("bb{b}"), |l| format!("line{}", l.line));
                        assumptions.push(Assumption {
                            hint_key: if non_affine {
                                format!("{}pred.{line}", domains::NON_AFFINE)
                            } else {
                                format!("pred.{line}")
                            },
                            what: if non_affine {
                                format!(
                                    "guard of `{}`, not affine in the launch and parameters but decided by them: counted as always true; exact once they are bound",
                                    inst.full_opcode()
                                )
                            } else {
                                format!(
                                    "data-dependent guard of `{}`: counted as always true",
                                    inst.full_opcode()
                                )
                            },
                            default: 1.0,
                            from_user: false,
                            at: inst.loc.as_ref().map(|l| format!("line {}", l.line)),
                        });
                    }
                }
            }
            let (parts, tq, wq) = match &own {
                Some((p, t, w)) => (p, t, w),
                None => (&block_parts, &bt, &bw),
            };
            // every guarded instruction, decided or not: the copies of an unrolled block may
            // decide its guard in some iterations only, and the fold sums them all
            if guard.is_some() {
                guarded_execs
                    .entry(b)
                    .or_default()
                    .insert(k, (tq.clone(), wq.clone()));
            }
            let mut features_of_inst: Vec<Feature> = Vec::new();
            if let Some((kind, ty)) = classify::op_feature(inst) {
                for gran in [Granularity::Thread, Granularity::Warp] {
                    features_of_inst.push(Feature::Op { kind, ty, gran });
                }
                if kind == OpKind::Other {
                    features_of_inst.push(Feature::Unknown {
                        opcode: inst.full_opcode(),
                    });
                }
                // A call left after inlining (no body in the module, indirect, recursive):
                // the callee's work is not counted, and that is shown, not dropped.
                if inst.opcode == "call" {
                    features_of_inst.push(Feature::Unknown {
                        opcode: format!("call:{}", crate::inline::callee_name(inst)),
                    });
                }
            }
            if let Some((space, dir, bits, nc)) = classify::mem_access(inst) {
                let addr = affine::address(f, inst, &env, block);
                // a named value that varies across lanes makes the address piecewise in the
                // thread index: classed lane by lane at `bind`
                let piecewise = addr.as_ref().is_some_and(|a| {
                    let mut vs = BTreeSet::new();
                    a.vars(&mut vs);
                    let syms: BTreeSet<String> =
                        vs.into_iter().filter(|v| named::is_symbol(v)).collect();
                    let mut deep = syms.clone();
                    named::close(&mut deep);
                    !syms.is_empty() && deep.iter().any(|v| v.starts_with("tid_"))
                });
                let coefs = if piecewise {
                    None
                } else {
                    lanes::lane_coefs(addr.as_ref(), block)
                };
                let tile = classify::wmma_tile(inst).map(|(rows, row_bytes)| WmmaTile {
                    rows,
                    row_bytes,
                    base: affine::wmma_base(f, inst, &env),
                    pitch: affine::wmma_pitch(f, inst, &env, block),
                });
                // one record per lane group: a warp accesses once per group it has lanes in
                for (icond, gt, gw) in parts {
                    if classify::counts_sectors(space) || space == Space::Shared {
                        accesses.push(AccessRecord {
                            counters: d.counters.clone(),
                            cond: icond.clone(),
                            addr: addr.clone(),
                            width: (bits as u64).div_ceil(8),
                            space,
                            dir,
                            warp: gw.clone(),
                            tile: tile.clone(),
                            inst: bb.first_inst + k,
                        });
                    }
                    mem_sites.push(MemSite {
                        inst: bb.first_inst + k,
                        space,
                        dir,
                        bits,
                        nc,
                        coefs: coefs.clone(),
                        counters: d.counters.clone(),
                        cond: icond.clone(),
                        addr: addr.clone(),
                        width: (bits as u64).div_ceil(8),
                        thread: gt.clone(),
                        warp: gw.clone(),
                    });
                }
                match stride(coefs.as_ref(), bits) {
                    Ok(stride) => {
                        for gran in [Granularity::Thread, Granularity::Warp] {
                            features_of_inst.push(Feature::Mem {
                                space,
                                dir,
                                bits,
                                stride,
                                nc,
                                gran,
                            });
                        }
                    }
                    Err(coef) => pending_mem.push(PendingMem {
                        space,
                        dir,
                        bits,
                        nc,
                        coef: coef.clone().map(|c| c.to_string()),
                        coef_poly: coef,
                        thread: tq.clone(),
                        warp: wq.clone(),
                    }),
                }
            }
            if classify::is_cta_barrier(inst) {
                for gran in [Granularity::Thread, Granularity::Warp] {
                    features_of_inst.push(Feature::Barrier { gran });
                }
            }
            if let Some((input, acc, fmas)) = classify::tensor_fmas(inst) {
                features_of_inst.push(Feature::TensorMma { input, acc, fmas });
            }
            for k in features_of_inst {
                if own.is_some() {
                    let q = if is_warp_granular(&k) { wq } else { tq };
                    add_times(k, q, 1);
                } else {
                    *per_block.entry(k).or_default() += 1;
                }
            }
            // replay the instruction so later predicates in the block see their values
            affine::transfer(f, inst, &mut env, block);
        }
        for (k, times) in per_block {
            let q = if is_warp_granular(&k) { &bw } else { &bt };
            add_times(k, q, times);
        }
    }
    for h in &doms.hints {
        assumptions.push(Assumption {
            hint_key: h.hint_key.clone(),
            what: h.what.clone(),
            default: h.default as f64,
            from_user: false,
            at: h.at.clone(),
        });
    }
    for w in &cfg.warnings {
        assumptions.push(Assumption {
            hint_key: "cfg".into(),
            what: w.clone(),
            default: 0.0,
            from_user: false,
            at: None,
        });
    }
    let mut features: BTreeMap<Feature, QPoly> =
        sums.into_iter().map(|(k, s)| (k, s.finish())).collect();
    features.retain(|_, q| !q.is_zero());
    let block_execs = crate::unroll::fold(&origin, block_execs);
    let guarded_execs = fold_guarded(&origin, guarded_execs);
    let params = param_symbols(f, &fields);
    let mut dynamic_shared = shared.dynamic;
    dynamic_shared.extend(local_memory_args(&mem_sites, &params));
    Ok(KernelStats {
        kernel: f.name.clone(),
        block,
        params,
        features: features
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        feature_keys: features,
        pending_mem,
        mem_sites,
        accesses,
        block_execs,
        guarded_execs,
        hints: doms.hints,
        assumptions,
        shared_bytes: shared.static_bytes,
        local_bytes: f
            .var_decls()
            .filter(|d| d.space == crate::ptx::StateSpace::Local)
            .map(|d| d.size_bytes().unwrap_or(0))
            .sum(),
        dynamic_shared,
        function: Some(f.clone()),
        specialized: false,
        grid: opts.grid,
        defs: std::sync::Arc::new(named::current()),
        sector_forms: SectorForms::default(),
        reuse_memo: reuse::ReuseMemo::default(),
    })
}

/// Thread and warp counts of each lane group of a domain (`BlockDomain::groups`).
/// The lane groups of a domain (its condition split into the groups a warp runs one after
/// another) with their thread and warp counts, shared by the records that keep them.
type Parts = Vec<(Cond, Arc<QPoly>, Arc<QPoly>)>;

fn count_groups(
    counter: &mut DomainCounter,
    counters: &[String],
    groups: &[Cond],
) -> Result<Parts, CountError> {
    groups
        .iter()
        .map(|g| {
            Ok((
                g.clone(),
                Arc::new(counter.count(counters, g, false)?),
                Arc::new(counter.count(counters, g, true)?),
            ))
        })
        .collect()
}

/// Thread and warp counts summed over lane groups.
fn totals(parts: &Parts) -> (QPoly, QPoly) {
    parts.iter().fold(
        (QPoly::default(), QPoly::default()),
        |(t, w), (_, gt, gw)| (t.add(gt), w.add(gw)),
    )
}

/// Whether a feature counts warp executions (else thread executions).
fn is_warp_granular(k: &Feature) -> bool {
    matches!(
        k,
        Feature::Op {
            gran: Granularity::Warp,
            ..
        } | Feature::Mem {
            gran: Granularity::Warp,
            ..
        } | Feature::TensorMma { .. }
            | Feature::Barrier {
                gran: Granularity::Warp
            }
    )
}

/// Stride class of an access from its address polynomial (the rule on `stats::StrideClass`,
/// every coefficient taken as observable); `Err(coefs)` when they depend on parameters.
fn stride(coefs: Option<&[Poly; 3]>, bits: u16) -> Result<StrideClass, [Poly; 3]> {
    let Some(coefs) = coefs else {
        return Ok(StrideClass::Unknown);
    };
    let width = (bits as u64).div_ceil(8);
    // A known non-zero x coefficient decides the class whatever y and z are (they only
    // separate `Uniform` from `Uncoalesced` when x does not move the address).
    let cx = lanes::integer_coefs(&[coefs[0].clone(), Poly::zero(), Poly::zero()], &|_| None);
    match (cx, lanes::integer_coefs(coefs, &|_| None)) {
        (_, Some(c)) => Ok(class_of(c, width)),
        (Some([x, _, _]), None) if x != 0 => Ok(from_coefficient(x, width)),
        _ => Err(coefs.clone()),
    }
}

/// Most (counter, thread) points the reuse profile walks: about 0.4 s in a release build.
/// Unoptimised builds (the tests) walk a sixteenth as many.
///
/// A smaller budget costs accuracy, not only time (tried 2026-12-07 for the `.cu` build-time
/// ratio, where the walk is most of the analysis of `l2_reread` or `dram_sweep`): at 2^18,
/// gpuFLOPBench's launches over 1 MB within 10 % of their measured DRAM bytes fell from 469 to
/// 452 of 734 (hellinger, eleven of hexciton's, resnet's `kernel_256_one_1024`, rtm8, whose
/// walks cut their loops shorter and extrapolate further), none gained; `softmax_row`'s L2 hit
/// rate moved 5.8 points at 2^18 and 2.9 at 2^19 (its three loops over a row, cut).
pub(crate) const REUSE_BUDGET: u64 = if cfg!(debug_assertions) {
    1 << 16
} else {
    1 << 20
};

/// Most (counter, thread) points `segments` walks to count an access's segments directly
/// (about 0.1 s a million in a release build); beyond it, isl counts them. isl's count is not
/// bounded by its operation budget where the set's coefficients are large: permute-cuda's
/// address, five divisions by sizes at 6.3 million points, ran for minutes inside isl's
/// lattice reduction and walks in about a second.
const SEGMENT_WALK_BUDGET: u64 = 1 << 23;

/// Most points `segments` counts one by one (about a second of isl scanning), so `bind` stays
/// quick at real problem sizes.
const POINT_COUNT_BUDGET: f64 = (1u64 << 20) as f64;

/// The coordinates `segments` counts in, chosen so the segment index does not span the grid.
/// Each block or loop index `v` whose address coefficient `a` is not a multiple of the segment
/// size is written `v = P·v_q + v_r` with `0 <= v_r < P` and `P = seg / gcd(a, seg)`, so that
/// `a·P` is; then the segment is counted relative to `Σ (a·P / seg)·v_q` (or `(a / seg)·v` when
/// `P = 1`). Both maps are unimodular on the integer points, so the count is unchanged, and
/// what is left of the address has only the thread index and small residues: a 3-D grid's
/// coefficients (32, 16384 and 2^22 bytes for an 8×8×4 block over 512×512×64) would otherwise
/// split the count into far more residue classes than it can take.
struct SegmentFrame {
    splits: Vec<Split>,
    /// Whole segments the indices step over (subtracted from the segment index).
    shift: LinExpr,
}

/// `index = p·q + r` with `0 <= r < p`.
struct Split {
    index: String,
    q: String,
    r: String,
    p: i128,
}

impl Split {
    fn value(&self) -> LinExpr {
        LinExpr::var(&self.q)
            .scale(self.p)
            .add(&LinExpr::var(&self.r))
    }
}

impl SegmentFrame {
    fn of(off: &LinExpr, seg: i128, is_index: impl Fn(&str) -> bool) -> SegmentFrame {
        let mut frame = SegmentFrame {
            splits: Vec::new(),
            shift: LinExpr::default(),
        };
        for (atom, &a) in &off.terms {
            let crate::poly::linexpr::Atom::Var(v) = atom else {
                continue;
            };
            if !is_index(v) {
                continue;
            }
            let p = seg / num_integer::Integer::gcd(&a, &seg);
            if p == 1 {
                frame.shift = frame.shift.add(&LinExpr::var(v).scale(a / seg));
                continue;
            }
            let split = Split {
                index: v.to_string(),
                q: format!("{v}_sq"),
                r: format!("{v}_sr"),
                p,
            };
            frame.shift = frame.shift.add(&LinExpr::var(&split.q).scale(a * p / seg));
            frame.splits.push(split);
        }
        frame
    }

    fn split(&self, v: &str) -> Option<&Split> {
        self.splits.iter().find(|s| s.index == v)
    }

    /// `c` in the frame's dimensions.
    fn rewrite(&self, c: Cond) -> Cond {
        self.splits
            .iter()
            .fold(c, |c, s| c.subst(&s.index, &s.value()))
    }

    /// Whether `name` is one of the dimensions the frame puts in place of a split index.
    fn introduces(&self, name: &str) -> bool {
        self.splits.iter().any(|s| s.q == name || s.r == name)
    }

    /// The set dimensions that stand for index `v`.
    fn dims(&self, v: &str) -> Vec<String> {
        match self.split(v) {
            Some(s) => vec![s.q.clone(), s.r.clone()],
            None => vec![v.to_string()],
        }
    }

    /// Index `v` in the frame's dimensions, as isl text.
    fn value(&self, v: &str) -> String {
        match self.split(v) {
            Some(s) => s.value().to_string(),
            None => v.to_string(),
        }
    }

    fn residue_ranges(&self) -> impl Iterator<Item = String> + '_ {
        self.splits
            .iter()
            .map(|s| format!("0 <= {} < {}", s.r, s.p))
    }
}

/// Distinct `seg`-byte segments touched per warp access, summed over the launch: the points
/// (ctaid, warp, counters, segment) for which some thread of the warp in the domain touches the
/// segment. Bases of buffers are taken as 256-byte aligned (as `cudaMalloc` and the emulator
/// allocate), so pointer parameters count as 0. `None` when the address is not affine once the
/// parameters are fixed.
///
/// The points are counted by walking the launch's warps where that stays within
/// [`SEGMENT_WALK_BUDGET`] (`reuse::segments_walked`), else by isl. Where the count is too
/// large to visit point by point, it is a quasi-polynomial. That closed
/// form is the same for every workload whose address keeps its coefficients (no parameter
/// multiplies an index): the second time an access is counted this way, it is counted once
/// with the parameters free and kept in `forms`, and each further workload evaluates it.
///
/// `state.memo` keeps the counts of one workload by set: copies of an access with the same
/// address and domain (an unrolled `out[i] = in[i]`) have the same segments, counted once.
fn segments(
    (i, r): (usize, &AccessRecord),
    defs: &named::Defs,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
    seg: u64,
    state: &mut SegmentCounting,
) -> Result<Option<f64>, CountError> {
    let Some(text) = segment_set(r, defs, block, env, seg, false) else {
        return Ok(None);
    };
    if let Some(n) = state.memo.get(&text) {
        return Ok(*n);
    }
    let n = segments_of_set((i, r), &text, defs, block, env, seg, state)?;
    state.memo.insert(text, n);
    Ok(n)
}

/// What [`segments`] keeps from one access to the next of a workload.
struct SegmentCounting<'a> {
    /// The kernel's closed forms, shared by its workloads.
    forms: &'a SectorForms,
    /// Counts by set text.
    memo: BTreeMap<String, Option<f64>>,
    /// The warp walks, one per domain.
    walks: reuse::SegmentWalks<'a>,
}

/// [`segments`] of the set `text` of access `r`.
fn segments_of_set(
    (i, r): (usize, &AccessRecord),
    text: &str,
    defs: &named::Defs,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
    seg: u64,
    state: &mut SegmentCounting,
) -> Result<Option<f64>, CountError> {
    let forms = state.forms;
    // isl's point count is exact whatever the set's shape; the quasi-polynomial count is
    // used only where visiting every point would be slow (its result for the 33×33
    // `transpose_naive` store, 605 sectors against 625 true, is reported as a counting bug).
    let est = r
        .warp
        .eval_map(env)
        .map(|v| rat_to_f64(&v))
        .unwrap_or(f64::INFINITY)
        * (32 * (r.width.div_ceil(seg) + 1)) as f64;
    // the same count as isl's below, walked warp by warp where that is cheap
    let mut walked = || state.walks.count(i, seg, SEGMENT_WALK_BUDGET);
    let ctx = Ctx::new();
    if est <= POINT_COUNT_BUDGET {
        if let Some(n) = walked() {
            return Ok(Some(n as f64));
        }
        let set = Set::parse(&ctx, text)?;
        let np = set.dim(DimType::isl_dim_param)?;
        let free = set.project_out(DimType::isl_dim_param, 0, np)?;
        let (n, d) = free.count_val()?.to_rational()?;
        return Ok(Some(n as f64 / d as f64));
    }
    let unset: Vec<String> = {
        let mut vs = BTreeSet::new();
        if let Some(a) = &r.addr {
            a.vars(&mut vs);
        }
        r.cond.vars(&mut vs);
        vs.into_iter()
            .filter(|v| !env.contains_key(v) && !named::is_symbol(v))
            .collect()
    };
    let key = (i, seg, unset);
    let known = forms.0.lock().ok().and_then(|m| m.get(&key).cloned());
    let closed = match known {
        Some(SectorForm::Closed(q)) => Some(q),
        Some(SectorForm::CountedOnce) => {
            let q = segment_set(r, defs, block, env, seg, true)
                .and_then(|t| Set::parse(&ctx, &t).ok())
                .and_then(|set| poly_mod::count(&set).ok());
            if let Ok(mut m) = forms.0.lock() {
                m.insert(
                    key.clone(),
                    q.clone()
                        .map_or(SectorForm::Unavailable, SectorForm::Closed),
                );
            }
            q
        }
        Some(SectorForm::Unavailable) => None,
        None => {
            if let Ok(mut m) = forms.0.lock() {
                m.insert(key.clone(), SectorForm::CountedOnce);
            }
            None
        }
    };
    if let Some(v) = closed.and_then(|q| q.eval_map(env)) {
        return Ok(Some(rat_to_f64(&v)));
    }
    if let Some(n) = walked() {
        return Ok(Some(n as f64));
    }
    let set = Set::parse(&ctx, text)?;
    let q = poly_mod::count(&set)?;
    Ok(q.eval_map(env).map(|v| rat_to_f64(&v)))
}

/// The closed forms of [`segments`] a kernel's workloads share, by (access, segment size, the
/// variables taken as 0).
#[derive(Clone, Debug, Default)]
pub struct SectorForms(Arc<std::sync::Mutex<BTreeMap<SectorFormKey, SectorForm>>>);

/// (access, segment size, the variables taken as 0).
type SectorFormKey = (usize, u64, Vec<String>);

#[derive(Clone, Debug)]
enum SectorForm {
    /// Counted once with the workload's values: the next workload counts the closed form.
    CountedOnce,
    Closed(QPoly),
    /// The address has a parameter times an index, or the free count failed.
    Unavailable,
}

/// The isl set whose points [`segments`] counts, as text; with `free`, the workload's values
/// stay parameters (only the variables it does not set, the buffers, are 0), and `None` also
/// where that leaves a parameter multiplying an index.
fn segment_set(
    r: &AccessRecord,
    defs: &named::Defs,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
    seg: u64,
    free: bool,
) -> Option<String> {
    let addr = r.addr.as_ref()?;
    let is_dim = |v: &str| {
        v.starts_with("tid_") || v.starts_with("ctaid_") || r.counters.iter().any(|k| k == v)
    };
    let mut vars = BTreeSet::new();
    addr.vars(&mut vars);
    let mut a = addr.clone();
    for v in vars.iter().filter(|v| !is_dim(v) && !named::is_symbol(v)) {
        let val = match (env.get(v.as_str()), free) {
            (Some(_), true) => continue,
            (val, _) => val.copied().unwrap_or(0),
        };
        a = a.subst(v, &crate::poly::LinExpr::constant(val));
    }
    let off = affine::as_lin(&a)?;
    let frame = SegmentFrame::of(&off, seg as i128, |v| is_dim(v) && !v.starts_with("tid_"));
    let segv = frame.shift.add(&LinExpr::var("seg")).scale(seg as i128);
    // the domain and the segment's bounds on the address, with named values put back
    let cond = frame.rewrite(
        defs.expand(
            &r.cond
                .clone()
                .and(Cond::Ge(off.add_const(r.width as i128 - 1).sub(&segv)))
                .and(Cond::Ge(segv.add_const(seg as i128 - 1).sub(&off))),
        ),
    );
    let mut cvars = BTreeSet::new();
    cond.vars(&mut cvars);
    cvars.remove("seg");
    let is_dim = |v: &str| is_dim(v) || frame.introduces(v);
    let mut fixed = Vec::new();
    for v in cvars.iter().filter(|v| !is_dim(v)) {
        match (env.get(v.as_str()), free) {
            (Some(_), true) => {}
            (val, _) => fixed.push(format!("{v} = {}", val.copied().unwrap_or(0))),
        }
    }
    if !free {
        for d in ["x", "y", "z"] {
            fixed.push(format!(
                "nctaid_{d} = {}",
                env.get(&format!("nctaid_{d}")).copied().unwrap_or(1)
            ));
        }
    }
    let mut params: BTreeSet<String> = cvars.iter().filter(|v| !is_dim(v)).cloned().collect();
    params.extend(
        ["nctaid_x", "nctaid_y", "nctaid_z"]
            .iter()
            .map(|s| s.to_string()),
    );
    let [nx, ny, nz] = block;
    let mut dims = Vec::new();
    let mut ranges = Vec::new();
    for d in ["x", "y", "z"] {
        let c = format!("ctaid_{d}");
        ranges.push(format!("0 <= {} < nctaid_{d}", frame.value(&c)));
        dims.extend(frame.dims(&c));
    }
    dims.push("warp".to_string());
    for k in &r.counters {
        dims.extend(frame.dims(k));
    }
    dims.push("seg".to_string());
    ranges.extend(frame.residue_ranges());
    if fixed.is_empty() {
        fixed.push("0 = 0".into());
    }
    Some(format!(
        "[{}] -> {{ [{}] : {} and {} and exists (tid_x, tid_y, tid_z : 0 <= tid_x < {nx} and 0 <= tid_y < {ny} and 0 <= tid_z < {nz} and {} and 32 warp <= tid_x + {nx} tid_y + {} tid_z <= 32 warp + 31) }}",
        params.into_iter().collect::<Vec<_>>().join(", "),
        dims.join(", "),
        fixed.join(" and "),
        ranges.join(" and "),
        cond.to_isl(),
        nx * ny,
    ))
}

/// Most (ctaid, counters, tid) points `wavefronts` visits for one access, and most distinct
/// warps it evaluates (32 address evaluations each, the cost that dominates): beyond either the
/// count is left out and listed as an assumption rather than slowing `bind` down. Visiting a
/// point whose warp repeats one already evaluated is cheap, hence the larger first budget.
const WAVEFRONT_BUDGET: u64 = 1 << 22;
const WAVEFRONT_WARP_BUDGET: usize = 1 << 15;

/// Shared-memory wavefronts of one access over the launch (`classify::warp::shared_wavefronts`
/// per warp access), with the parameters fixed, by visiting the warp executions of its domain.
/// Shared arrays are taken at 4-byte aligned bases (`sym_*` = 0): a whole-word shift of every
/// lane's address permutes the banks and leaves the count unchanged.
fn wavefronts(
    r: &AccessRecord,
    defs: &named::Defs,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
) -> Result<u64, String> {
    let addr = r
        .addr
        .as_ref()
        .ok_or("the address is not a polynomial in the thread index")?;
    let mut total = 0u64;
    let mut bad: Option<String> = None;
    let mut acc = Vec::with_capacity(32);
    // A warp's count depends only on its lanes' threads and on the values of the variables the
    // address reads: warps that repeat both (every block, for an address of the thread index
    // alone) are counted once.
    let mut deps = BTreeSet::new();
    addr.vars(&mut deps);
    defs.close(&mut deps);
    // FxHash: SipHash of the 32-lane keys was a third of lfib4-cuda's counting
    let mut memo: rustc_hash::FxHashMap<(Vec<i128>, Vec<domains::Lane>), u64> =
        rustc_hash::FxHashMap::default();
    let mut over = false;
    domains::for_each_warp(
        &r.counters,
        &r.cond,
        block,
        env,
        WAVEFRONT_BUDGET,
        &deps,
        &mut |point, lanes, blocks| {
            let key = (
                deps.iter().filter_map(|v| point.get(v).copied()).collect(),
                lanes.to_vec(),
            );
            if let Some(n) = memo.get(&key) {
                total += n * blocks;
                return;
            }
            if memo.len() >= WAVEFRONT_WARP_BUDGET {
                over = true;
                return;
            }
            acc.clear();
            for (lane, tid) in lanes {
                match lanes::eval_addr(addr, defs, *tid, point, env) {
                    Some(a) => acc.push(classify::warp::LaneAccess {
                        lane: *lane,
                        tid: *tid,
                        addr: a,
                    }),
                    None => {
                        bad.get_or_insert_with(|| format!("address {addr} has no value"));
                    }
                }
            }
            let n = classify::warp::shared_wavefronts(&acc, r.width);
            memo.insert(key, n);
            total += n * blocks;
        },
    )
    .map_err(|e| match e {
        domains::EnumerateError::Unbound(Some(v)) => format!("`{v}` has no value"),
        domains::EnumerateError::Unbound(None) => "a loop counter is unbounded".into(),
        domains::EnumerateError::TooLarge(n) => {
            format!("{n} points to visit, over the budget of {WAVEFRONT_BUDGET}")
        }
        domains::EnumerateError::Isl(e) => e.to_string(),
    })?;
    if over {
        return Err(format!(
            "more than {WAVEFRONT_WARP_BUDGET} distinct warp accesses to evaluate, over the budget"
        ));
    }
    match bad {
        Some(b) => Err(b),
        None => Ok(total),
    }
}

impl KernelStats {
    /// Parameter values by symbol (`p0` …) from a workload.
    fn env(&self, w: &Workload) -> Result<BTreeMap<String, i128>, AnalyzeError> {
        let mut env = BTreeMap::new();
        for (i, d) in ["x", "y", "z"].iter().enumerate() {
            env.insert(format!("nctaid_{d}"), w.grid[i] as i128);
        }
        env.extend(param_values(&self.params, w));
        for h in &self.hints {
            let v = w
                .hints
                .get(&h.hint_key)
                .map_or(h.default, |v| v.round() as i64);
            env.insert(h.param.clone(), v as i128);
        }
        Ok(env)
    }

    /// What parameter values may resolve: addresses that are not polynomials, and what the
    /// domains assumed about control flow that is not affine in the parameters.
    fn open_to_values(&self) -> usize {
        self.mem_sites.iter().filter(|m| m.addr.is_none()).count()
            + self
                .assumptions
                .iter()
                .filter(|a| a.hint_key.starts_with(domains::NON_AFFINE))
                .count()
    }

    /// Whether the kernel reads the grid size and these counts keep it symbolic: analysing
    /// with [`Options::grid`] may then resolve what is assumed here (grid-stride loops).
    pub fn reads_grid_size(&self) -> bool {
        self.grid.is_none() && self.function.as_ref().is_some_and(reads_grid_size)
    }

    /// Evaluate for one workload (re-analysing when its block size, or the grid the counts
    /// were specialised to, differs).
    pub fn bind(&self, w: &Workload) -> Result<BoundStats, AnalyzeError> {
        crate::poly::isl::begin_analysis();
        // a grid-specialised analysis stays specialised, to the workload's grid
        let launch = Options {
            block: Some(w.block),
            grid: self.grid.map(|_| w.grid),
        };
        if w.block != self.block || self.grid.is_some_and(|g| g != w.grid) {
            if let Some(f) = &self.function {
                let m = Module::default();
                let again = analyze_function(&m, f, &launch)?;
                return again.bind(w);
            }
        }
        let env = self.env(w)?;
        if !self.specialized && self.open_to_values() > 0 {
            // Some address is not a polynomial with symbolic parameters, or some control flow
            // is not affine in them (a product with a parameter or the grid size); either may
            // be once the workload's parameter values, and grid, are numbers.
            if let Some(f) = &self.function {
                let vals = self
                    .params
                    .keys()
                    .filter_map(|p| env.get(p).map(|v| (p.clone(), *v)))
                    .collect();
                let at = Options {
                    grid: (self.grid.is_some() || reads_grid_size(f)).then_some(w.grid),
                    ..launch.clone()
                };
                let again = affine::with_param_values(vals, || {
                    analyze_function(&Module::default(), f, &at)
                })?;
                if again.open_to_values() < self.open_to_values() {
                    return KernelStats {
                        specialized: true,
                        ..again
                    }
                    .bind(w);
                }
            }
        }
        // The reuse walk reads only the accesses and the launch, so it runs on a thread of its
        // own beside the counts below: on two cores the launch's walks overlap. A profile
        // known without a walk (remembered from an earlier workload) costs no thread.
        let planned = w.reuse.then(|| self.plan_reuse(&env));
        std::thread::scope(|s| {
            let walk = planned.map(|p| match p {
                reuse::Planned::Done(r) => Ok(r),
                reuse::Planned::Walk(walk) => Err(walk_on_thread(s, walk)),
            });
            let counts = self.bind_counts(w, &env);
            let reuse = walk.map(|r| {
                r.unwrap_or_else(|h| match h {
                    Some(h) => h
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                    // no thread: the whole profile here
                    None => self.plan_reuse(&env).run(),
                })
            });
            counts.map(|stats| BoundStats { reuse, ..stats })
        })
    }

    /// The reuse profile of the launch at `env`, up to its walk ([`reuse::plan_profile`]).
    fn plan_reuse<'a>(&'a self, env: &'a BTreeMap<String, i128>) -> reuse::Planned<'a> {
        reuse::plan_profile(
            &self.accesses,
            &self.defs,
            self.block,
            env,
            REUSE_BUDGET,
            Some(&self.reuse_memo),
        )
    }

    /// Everything [`KernelStats::bind`] gives at `env` but the reuse profile.
    fn bind_counts(
        &self,
        w: &Workload,
        env: &BTreeMap<String, i128>,
    ) -> Result<BoundStats, AnalyzeError> {
        let missing = |q: &QPoly| -> Result<f64, AnalyzeError> {
            q.eval_map(env).map(|r| rat_to_f64(&r)).ok_or_else(|| {
                let name = q
                    .params()
                    .into_iter()
                    .find(|p| !env.contains_key(p))
                    .unwrap_or_default();
                AnalyzeError::MissingParam {
                    kernel: self.kernel.clone(),
                    name: self.params.get(&name).cloned().unwrap_or(name),
                }
            })
        };
        let mut features = BTreeMap::new();
        for (k, q) in &self.feature_keys {
            if matches!(k, Feature::Mem { .. }) {
                continue;
            }
            let v = missing(q)?;
            if v != 0.0 {
                features.insert(k.clone(), v);
            }
        }
        let mut assumptions = self.assumptions.clone();
        let classes = crate::unroll::site_classes(&self.mem_sites, &self.defs, self.block, env);
        for (m, class) in self.mem_sites.iter().zip(classes) {
            let (t, wv) = (missing(&m.thread)?, missing(&m.warp)?);
            if t == 0.0 && wv == 0.0 {
                continue;
            }
            let stride = class.unwrap_or_else(|why| {
                assumptions.push(Assumption {
                    hint_key: "stride".into(),
                    what: format!(
                        "lane stride of a {} {} access unresolved: {why}",
                        m.space, m.dir
                    ),
                    default: 0.0,
                    from_user: false,
                    at: None,
                });
                StrideClass::Unknown
            });
            for (g, v) in [(Granularity::Thread, t), (Granularity::Warp, wv)] {
                if v != 0.0 {
                    *features
                        .entry(Feature::Mem {
                            space: m.space,
                            dir: m.dir,
                            bits: m.bits,
                            stride,
                            nc: m.nc,
                            gran: g,
                        })
                        .or_insert(0.0) += v;
                }
            }
        }
        for r in self.accesses.iter().filter(|r| r.space == Space::Shared) {
            match wavefronts(r, &self.defs, self.block, env) {
                Ok(v) => {
                    if v != 0 {
                        *features
                            .entry(Feature::SharedWavefronts { dir: r.dir })
                            .or_insert(0.0) += v as f64;
                    }
                }
                Err(why) => assumptions.push(Assumption {
                    hint_key: "wavefronts".into(),
                    what: format!("wavefronts of a shared-memory {} not counted: {why}", r.dir),
                    default: 0.0,
                    from_user: false,
                    at: None,
                }),
            }
        }
        let mut any_tile = false;
        let mut segment_state = SegmentCounting {
            forms: &self.sector_forms,
            memo: BTreeMap::new(),
            walks: reuse::SegmentWalks::new(&self.accesses, &self.defs, self.block, env),
        };
        for (i, r) in self
            .accesses
            .iter()
            .enumerate()
            .filter(|(_, r)| classify::counts_sectors(r.space))
        {
            let cerr = |e: CountError| AnalyzeError::Count {
                kernel: self.kernel.clone(),
                block: "sectors".into(),
                source: e,
            };
            let (sec, lin) = match r.tile.as_ref().map(|t| (t.rows, t.row_bytes)) {
                // Each row of a tile is taken to start a sector (the ISA guarantees only 16-byte
                // alignment of the base and of ldm, where a row may touch one sector more):
                // listed as an assumption below.
                Some((rows, row_bytes)) => {
                    let warps = missing(&r.warp)?;
                    let per = |seg: u32| Some(warps * rows as f64 * row_bytes.div_ceil(seg) as f64);
                    any_tile = true;
                    (per(32), per(128))
                }
                None => {
                    let mut count = |seg| {
                        segments((i, r), &self.defs, self.block, env, seg, &mut segment_state)
                            .map_err(cerr)
                    };
                    if r.space == Space::Local {
                        // interleaved (classify::warp): a line per distinct word of the
                        // lanes' frames, a sector per word and group of 8 lanes; every lane
                        // of the block's first warp is taken to access, so a warp a condition
                        // thins out counts the sectors of a full one (the emulator sees lanes)
                        let words = count(4)?;
                        let lanes = self.block.iter().product::<u64>().min(32);
                        (words.map(|w| w * lanes.div_ceil(8) as f64), words)
                    } else {
                        (count(32)?, count(128)?)
                    }
                }
            };
            match (sec, lin) {
                (Some(s), Some(l)) => {
                    for (k, v) in [
                        (Feature::Sectors { space: r.space, dir: r.dir }, s),
                        (Feature::Lines { space: r.space, dir: r.dir }, l),
                    ] {
                        if v != 0.0 {
                            *features.entry(k).or_insert(0.0) += v;
                        }
                    }
                }
                _ => assumptions.push(Assumption {
                    hint_key: "sectors".into(),
                    what: format!(
                        "sectors and lines of a {} {} access whose address is not affine: not counted",
                        r.space, r.dir
                    ),
                    default: 0.0,
                    from_user: false,
                    at: None,
                }),
            }
        }
        if any_tile {
            assumptions.push(Assumption {
                hint_key: "wmma.rows_aligned".into(),
                what: "wmma tiles: each row taken as starting a 32-byte sector (tile base and ldm multiples of 32 bytes); sectors and lines counted per row".into(),
                default: 1.0,
                from_user: false,
                at: None,
            });
        }
        let dynamic_bytes = w.hints.get(DYNAMIC_SHARED_BYTES).copied();
        if !self.dynamic_shared.is_empty() {
            assumptions.push(dynamic_shared_assumption(&self.dynamic_shared));
        }
        let mut block_execs = BTreeMap::new();
        for (b, (t, wq)) in &self.block_execs {
            block_execs.insert(
                *b,
                BlockExecs {
                    threads: missing(t)?,
                    warps: missing(wq)?,
                },
            );
        }
        let mut guarded_execs: BTreeMap<usize, BTreeMap<usize, BlockExecs>> = BTreeMap::new();
        for (b, insts) in &self.guarded_execs {
            for (k, (t, wq)) in insts {
                guarded_execs.entry(*b).or_default().insert(
                    *k,
                    BlockExecs {
                        threads: missing(t)?,
                        warps: missing(wq)?,
                    },
                );
            }
        }
        for a in assumptions.iter_mut().filter(|a| a.settable()) {
            if let Some(v) = w.hints.get(&a.hint_key) {
                a.default = *v;
                a.from_user = true;
            }
            if a.hint_key == "block" {
                a.from_user = true;
                a.default = w.block[0] as f64;
            }
        }
        Ok(BoundStats {
            kernel: self.kernel.clone(),
            launch: Some(Launch {
                grid: w.grid,
                block: w.block,
            }),
            regs_per_thread: None,
            shared_bytes_per_block: Some(self.shared_bytes + dynamic_bytes.unwrap_or(0.0) as u64),
            local_bytes_per_thread: Some(self.local_bytes),
            features,
            block_execs,
            guarded_execs,
            assumptions,
            reuse: None,
        })
    }

    /// Closed forms, one line per feature, for `kerncast count --symbolic`.
    pub fn symbolic_text(&self) -> String {
        let mut s = format!(
            "kernel {}  (block {}x{}x{}; grid nctaid_x x nctaid_y x nctaid_z)\n",
            self.kernel, self.block[0], self.block[1], self.block[2]
        );
        if !self.params.is_empty() {
            s += "parameters:";
            for (k, v) in &self.params {
                s += &format!(" {k}={v}");
            }
            s += "\n";
        }
        for (k, q) in &self.features {
            s += &format!("{k} = {q}\n");
        }
        for p in &self.pending_mem {
            s += &format!(
                "mem.{:?}.{:?}.b{} (lane stride {} bytes) thread = {}\n",
                p.space, p.dir, p.bits, p.coef[0], p.thread
            );
        }
        for a in &self.assumptions {
            s += &format!(
                "assumption {}: {} (default {})\n",
                a.hint_key, a.what, a.default
            );
        }
        s
    }
}

/// `walk` run on a thread of `s` under this thread's budgets; `None` where no thread starts.
fn walk_on_thread<'s>(
    s: &'s std::thread::Scope<'s, '_>,
    walk: reuse::ProfileWalk<'s>,
) -> Option<std::thread::ScopedJoinHandle<'s, reuse::Reuse>> {
    let budgets = crate::budget::get();
    std::thread::Builder::new()
        .name("kerncast-reuse-walk".into())
        .spawn_scoped(s, move || {
            crate::poly::isl::begin_analysis();
            crate::budget::scoped(budgets, || walk.run())
        })
        .ok()
}

#[cfg(test)]
mod at_workload_tests;
#[cfg(test)]
mod walk_tests;
