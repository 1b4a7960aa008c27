//! The warp walk of `reuse::segments_walked` against isl's point count of the same set, on
//! the global accesses of the corpus kernels.

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

/// Every parameter at a size that leaves partial warps and blocks (37, 38, …), on a small grid
/// whose blocks are not all alike.
#[test]
fn walking_warps_counts_the_segments_isl_counts() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ptx/clang");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the corpus PTX")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    let (mut compared, mut accesses) = (0, 0);
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
                        "{} `{}`: {}-byte segments of a global {} (walked vs isl)",
                        path.display(),
                        f.name,
                        seg,
                        r.dir
                    );
                    compared += 1;
                }
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
