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

/// Each corpus kernel's counts with every parameter at a size that leaves partial warps and
/// blocks (37, 38, …), on a small grid whose blocks are not all alike, and those values.
fn corpus() -> Vec<(
    std::path::PathBuf,
    String,
    KernelStats,
    BTreeMap<String, i128>,
)> {
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
            let mut env: BTreeMap<String, i128> =
                [("nctaid_x", 3), ("nctaid_y", 2), ("nctaid_z", 1)]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect();
            for (i, sym) in s.params.keys().enumerate() {
                env.insert(sym.clone(), 37 + i as i128);
            }
            out.push((path.clone(), f.name.clone(), s, env));
        }
    }
    out
}

#[test]
fn walking_warps_counts_the_segments_isl_counts() {
    let (mut compared, mut accesses) = (0, 0);
    for (path, kernel, s, env) in corpus() {
        for r in s.accesses.iter().filter(|r| r.space == Space::Global) {
            accesses += 1;
            for seg in [32, 128] {
                let walked = reuse::segments_walked(r, &s.defs, s.block, &env, seg, 1 << 22);
                let (Some(w), Some(i)) = (walked, isl_count(r, &s, &env, seg)) else {
                    continue;
                };
                assert_eq!(
                    w,
                    i,
                    "{} `{kernel}`: {seg}-byte segments of a global {} (walked vs isl)",
                    path.display(),
                    r.dir
                );
                compared += 1;
            }
        }
    }
    // most global accesses of the corpus are affine and walkable (1502 of 1684 counts when
    // this was written): the comparison is not vacuous
    assert!(
        compared * 100 >= 2 * accesses * 85,
        "compared only {compared} of {} counts",
        2 * accesses
    );
}

#[test]
fn a_compiled_address_gets_the_stride_class_its_named_evaluation_gets() {
    use crate::classify::stride::{walked_class_compiled, walked_class_named};
    let (mut compared, mut sites) = (0, 0);
    for (path, kernel, s, env) in corpus() {
        for m in &s.mem_sites {
            let Some(addr) = &m.addr else { continue };
            sites += 1;
            let Some(fast) = walked_class_compiled(m, addr, &s.defs, s.block, &env) else {
                continue;
            };
            let named = walked_class_named(m, addr, &s.defs, s.block, &env);
            assert_eq!(
                fast,
                named,
                "{} `{kernel}`: class of the {} {} at {addr}",
                path.display(),
                m.space,
                m.dir
            );
            compared += 1;
        }
    }
    assert!(
        compared * 100 >= sites * 85,
        "compared only {compared} of {sites} sites"
    );
}
