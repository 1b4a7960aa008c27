//! The analysis at one workload's values (`analyze_for_workload`, what `predict` uses where the
//! symbolic count of every workload is costly) against the symbolic analysis bound to the
//! same workload, on the corpus kernels.

use super::walk_tests::corpus_at;
use super::*;

#[test]
fn counting_at_a_workload_s_values_counts_what_binding_the_symbolic_counts_does() {
    let mut compared = 0;
    for (path, kernel, s, env) in corpus_at([3, 2, 1], 37) {
        let m = Module::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let grid = ["nctaid_x", "nctaid_y", "nctaid_z"].map(|d| env[d] as u64);
        let w = Workload {
            grid,
            block: s.block,
            params: s
                .params
                .keys()
                .filter_map(|p| Some((p.clone(), *env.get(p)? as i64)))
                .collect(),
            hints: BTreeMap::new(),
            reuse: false,
        };
        let (Ok(symbolic), Ok(at)) = (s.bind(&w), analyze_for_workload(&m, &kernel, &w)) else {
            continue;
        };
        let at = at.bind(&w).expect("binds at its own workload");
        assert_eq!(
            at.features,
            symbolic.features,
            "{} `{kernel}` at {w:?}",
            path.display()
        );
        compared += 1;
    }
    assert!(compared >= 40, "compared only {compared} kernels");
}
