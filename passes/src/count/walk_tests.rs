//! The fast warp walks against the general counts they stand in for, on the corpus kernels:
//! `reuse::segments_walked` against isl's point count of the same set, and the stride class of
//! a compiled address against the one evaluated through named values.

use super::*;

/// isl's count of `segment_set`'s points, as `segments` takes it for a small launch.
fn isl_count(
    r: &AccessRecord,
    s: &KernelStats,
    env: &BTreeMap<String, i128>,
    seg: u64,
) -> Option<u64> {
    let text = segment_set(r, &s.defs, s.block, env, seg, false)?;
    let ctx = Ctx::new();
    let set = Set::parse(&ctx, &text).ok()?;
    let np = set.dim(DimType::isl_dim_param).ok()?;
    let free = set.project_out(DimType::isl_dim_param, 0, np).ok()?;
    let (n, d) = free.count_val().ok()?.to_rational().ok()?;
    assert_eq!(d, 1, "a point count is an integer");
    Some(n as u64)
}

/// A corpus kernel: its file, name, counts, and the values it is bound to.
pub(super) type Bound = (
    std::path::PathBuf,
    String,
    KernelStats,
    BTreeMap<String, i128>,
);

/// Each corpus kernel's counts with every parameter at a size that leaves partial warps and
/// blocks (37, 38, …), on a small grid whose blocks are not all alike, and those values.
fn corpus() -> Vec<Bound> {
    corpus_at([3, 2, 1], 37)
}

/// The corpus kernels on `grid`, parameters at `size`, `size + 1`, ….
pub(super) fn corpus_at(grid: [i128; 3], size: i128) -> Vec<Bound> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ptx/clang");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the corpus PTX")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let Ok(m) = Module::parse(&std::fs::read_to_string(&path).unwrap()) else {
            continue;
        };
        for f in m.kernels() {
            let Ok(s) = analyze_function(&m, f, &Options::default()) else {
                continue;
            };
            let mut env: BTreeMap<String, i128> = ["nctaid_x", "nctaid_y", "nctaid_z"]
                .into_iter()
                .zip(grid)
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            for (i, sym) in s.params.keys().enumerate() {
                env.insert(sym.clone(), size + i as i128);
            }
            out.push((path.clone(), f.name.clone(), s, env));
        }
    }
    out
}

#[test]
fn walking_warps_counts_the_segments_isl_counts() {
    let (mut compared, mut accesses, mut named_compared) = (0, 0, 0);
    for (path, kernel, s, env) in corpus() {
        for r in s.accesses.iter().filter(|r| r.space == Space::Global) {
            accesses += 1;
            // an address through a min, max or select (`A[i * n + min(j, n - 1)]`)
            let named = r.addr.as_ref().is_some_and(|a| {
                let mut vs = BTreeSet::new();
                a.vars(&mut vs);
                vs.iter().any(|v| named::is_symbol(v))
            });
            for seg in [32, 128] {
                let Some(i) = isl_count(r, &s, &env, seg) else {
                    continue;
                };
                // every block walked, and (a budget of a block or two) one block per class
                for budget in [1 << 22, 1 << 9] {
                    let Some(w) = reuse::segments_walked(r, &s.defs, s.block, &env, seg, budget)
                    else {
                        continue;
                    };
                    assert_eq!(
                        w,
                        i,
                        "{} `{kernel}`: {seg}-byte segments of a global {} (walked within \
                         {budget} points vs isl)",
                        path.display(),
                        r.dir
                    );
                    compared += 1;
                    named_compared += usize::from(named);
                }
            }
        }
    }
    // most global accesses of the corpus are walkable (1586 of 1684 counts when this was
    // written, 22 of them through named values): the comparison is not vacuous
    assert!(
        compared * 100 >= 2 * accesses * 85,
        "compared only {compared} of {} counts",
        2 * accesses
    );
    assert!(
        named_compared >= 20,
        "compared only {named_compared} counts of addresses through named values"
    );
}

/// One walk for all the accesses under a domain counts, for each of them, what its own walk
/// counts (whole grids, and a budget that forces one block per class of offsets).
#[test]
fn walking_a_domain_s_accesses_together_counts_what_each_walk_counts() {
    let (mut compared, mut together) = (0, 0);
    for (path, kernel, s, env) in corpus_at([40, 3, 1], 37) {
        let mut groups: BTreeMap<(&[String], &Cond), Vec<&AccessRecord>> = BTreeMap::new();
        for r in &s.accesses {
            groups.entry((&r.counters, &r.cond)).or_default().push(r);
        }
        for rs in groups.values() {
            for budget in [1 << 22, 1 << 12] {
                let both = reuse::segments_walked_together(rs, &s.defs, s.block, &env, budget);
                for (r, b) in rs.iter().zip(&both) {
                    let Some(b) = b else { continue };
                    for (seg, n) in [(32, b[0]), (128, b[1])] {
                        let own = reuse::segments_walked(r, &s.defs, s.block, &env, seg, budget);
                        if let Some(own) = own {
                            assert_eq!(
                                n,
                                own,
                                "{} `{kernel}`: {seg}-byte segments of a global {} walked \
                                 with {} others (budget {budget})",
                                path.display(),
                                r.dir,
                                rs.len() - 1
                            );
                            compared += 1;
                            together += usize::from(rs.len() > 1);
                        }
                    }
                }
            }
        }
    }
    assert!(
        compared >= 1000 && together >= 500,
        "compared {compared} counts, {together} of them walked with other accesses"
    );
}

/// Both compiled paths class every corpus site they take as the named evaluation does: the
/// affine one most sites, the program one also those with named values, floors or products.
#[test]
fn a_compiled_address_gets_the_stride_class_its_named_evaluation_gets() {
    use crate::classify::stride::{walked_class_named, walked_class_on, Path};
    let (mut affine, mut program, mut beyond_affine, mut sites) = (0, 0, 0, 0);
    for (path, kernel, s, env) in corpus() {
        for m in &s.mem_sites {
            let Some(addr) = &m.addr else { continue };
            sites += 1;
            let fast = walked_class_on(Path::Affine, m, addr, &s.defs, s.block, &env);
            let programmed = walked_class_on(Path::Program, m, addr, &s.defs, s.block, &env);
            if fast.is_none() && programmed.is_none() {
                continue;
            }
            let named = walked_class_named(m, addr, &s.defs, s.block, &env);
            for (how, class) in [("affine", &fast), ("program", &programmed)] {
                if let Some(class) = class {
                    assert_eq!(
                        class,
                        &named,
                        "{} `{kernel}`: {how} class of the {} {} at {addr}",
                        path.display(),
                        m.space,
                        m.dir
                    );
                }
            }
            affine += usize::from(fast.is_some());
            program += usize::from(programmed.is_some());
            beyond_affine += usize::from(fast.is_none());
        }
    }
    assert!(
        affine * 100 >= sites * 85 && program * 100 >= sites * 90 && beyond_affine >= 10,
        "of {sites} sites, {affine} compared on the affine path and {program} on the program \
         path, {beyond_affine} of those beyond the affine path"
    );
}

/// Accesses whose addresses differ by a constant share one class walk and each still gets the
/// class its own address gets through the named evaluation (an out-of-range offset included).
#[test]
fn accesses_a_constant_apart_share_a_class_walk_and_keep_their_own_class() {
    use crate::classify::stride::{walked_class, walked_class_named, ShapeMemo};
    let (mut walked, mut shared, mut copies) = (0, 0, 0);
    for (path, kernel, s, env) in corpus() {
        let mut memo = ShapeMemo::default();
        for m in s.mem_sites.iter().filter(|m| m.coefs.is_none()) {
            let Some(addr) = &m.addr else { continue };
            // the same access moved past the top of the address space: no value there
            let far = addr.add(&Poly::constant(crate::poly::poly::rat(i128::from(
                u64::MAX,
            ))));
            for (moved, a) in [(false, addr), (true, &far)] {
                let before = memo.len();
                let class = walked_class(m, a, &s.defs, s.block, &env, &mut memo);
                let named = walked_class_named(m, a, &s.defs, s.block, &env);
                assert_eq!(class, named, "{} `{kernel}`: class at {a}", path.display());
                walked += 1;
                shared += usize::from(memo.len() == before);
                copies += usize::from(memo.len() == before && !moved);
            }
        }
    }
    assert!(
        walked >= 20 && shared * 2 >= walked && copies >= 4,
        "{walked} walked classes, {shared} of them from a walk already made, {copies} of \
         those for a copy in the kernel"
    );
}

/// The reuse walk evaluates an address a constant from an earlier one of its group as that
/// one's lanes moved: the profile is the one evaluating every address gives.
#[test]
fn a_profile_with_shared_lanes_is_the_profile_of_every_address_evaluated() {
    let mut shared = 0;
    for (path, kernel, s, env) in corpus() {
        let plan = || reuse::plan_profile(&s.accesses, &s.defs, s.block, &env, 1 << 16, None);
        let (reuse::Planned::Walk(with), reuse::Planned::Walk(without)) = (plan(), plan()) else {
            continue;
        };
        shared += with.shared_lanes();
        let without = without.each_address_its_own();
        assert_eq!(with.run(), without.run(), "{} `{kernel}`", path.display());
    }
    assert!(shared >= 4, "{shared} accesses took an earlier one's lanes");
}

/// On a grid of mostly full blocks, one block per class of block offsets (a budget of a few
/// blocks) counts what walking every block counts.
#[test]
fn one_block_per_offset_class_counts_what_every_block_counts() {
    let (mut compared, mut accesses) = (0, 0);
    // every third kernel: walking every block of this grid is the slow side
    for (path, kernel, s, env) in corpus_at([6, 4, 1], 512).into_iter().step_by(3) {
        for r in s.accesses.iter().filter(|r| r.space == Space::Global) {
            accesses += 1;
            for seg in [32, 128] {
                let every = reuse::segments_walked(r, &s.defs, s.block, &env, seg, 1 << 24);
                let classed = reuse::segments_walked(r, &s.defs, s.block, &env, seg, 1 << 12);
                let (Some(every), Some(classed)) = (every, classed) else {
                    continue;
                };
                assert_eq!(
                    classed,
                    every,
                    "{} `{kernel}`: {seg}-byte segments of a global {}",
                    path.display(),
                    r.dir
                );
                compared += 1;
            }
        }
    }
    // 144 of 488 counts when this was written (the others' grids are partly outside the sizes,
    // or their walk over every block is over its budget)
    assert!(
        compared >= 100,
        "compared only {compared} of {} counts",
        2 * accesses
    );
}
