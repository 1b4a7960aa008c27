//! Binding one kernel's counts to many workloads (issue 50, "count once, evaluate many") keeps
//! what earlier workloads computed: closed forms of the sector counts and reuse profiles whose
//! walks saw the same warps. Those memos must change no figure: every nvcc corpus kernel, bound
//! to its annotated workload and to one with twice the grid and twice every parameter, in turns
//! on one analysis, gives exactly what a fresh analysis gives for each, and what the analysis
//! at each workload's own values gives (how a kernel's first workload is counted).

use kerncast_passes::count::{self, Options, Workload};
use kerncast_tests::bench::predict_cases;
use std::collections::BTreeMap;

/// The workload of `kerncast predict` arguments, parameters by position, with the reuse walk.
fn workload(args: &[String], f: &kerncast_passes::ptx::Function) -> Workload {
    let mut w = Workload {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        params: BTreeMap::new(),
        hints: BTreeMap::new(),
        reuse: true,
    };
    let dims = |s: &str| {
        let v: Vec<u64> = s.split(',').map(|x| x.parse().expect("a number")).collect();
        [v[0], v[1], v[2]]
    };
    for pair in args.windows(2) {
        let (flag, value) = (pair[0].as_str(), pair[1].as_str());
        let kv = || value.split_once('=').expect("NAME=VALUE");
        match flag {
            "--grid" => w.grid = dims(value),
            "--block" => w.block = dims(value),
            "--param" => {
                let (name, v) = kv();
                if let (Some(i), Ok(v)) = (f.params.iter().position(|p| p.name == name), v.parse())
                {
                    w.params.insert(i.to_string(), v);
                }
            }
            "--hint" => {
                let (k, v) = kv();
                if let Ok(v) = v.parse() {
                    w.hints.insert(k.to_string(), v);
                }
            }
            _ => {}
        }
    }
    w
}

#[test]
fn binding_in_turns_gives_what_a_fresh_analysis_gives() {
    let mut checked = 0;
    for case in predict_cases()
        .into_iter()
        .filter(|c| c.id.starts_with("nvcc/"))
    {
        let text = std::fs::read_to_string(&case.ptx).expect("PTX reads");
        let module = kerncast_passes::inline::inline_calls(
            &kerncast_passes::ptx::Module::parse(&text).expect("PTX parses"),
        )
        .module;
        let kernel = &case.args[1];
        let f = module.function(kernel).expect("the kernel is in its PTX");
        let w = workload(&case.args, f);
        let mut twice = w.clone();
        twice.grid[0] *= 2;
        for v in twice.params.values_mut() {
            *v *= 2;
        }
        let opts = Options {
            block: Some(w.block),
            grid: None,
        };
        let Ok(shared) = count::analyze_kernel_with(&module, kernel, &opts) else {
            continue;
        };
        let fresh = |w: &Workload| {
            let ks = count::analyze_kernel_with(&module, kernel, &opts).expect("analyses again");
            format!("{:?}", ks.bind(w))
        };
        let (first, second) = (fresh(&w), fresh(&twice));
        for (turn, (w, want)) in [(&w, &first), (&twice, &second)]
            .into_iter()
            .cycle()
            .take(4)
            .enumerate()
        {
            let got = format!("{:?}", shared.bind(w));
            assert!(
                got == *want,
                "{}: turn {turn} bound on the shared analysis differs from a fresh one\n\
                 shared: {got}\nfresh:  {want}",
                case.id
            );
        }
        // A kernel's first workload is counted at its own values (`analyze_for_workload`),
        // where the parameters are numbers from the start: the same figures.
        for (w, want) in [(&w, &first), (&twice, &second)] {
            let at_values = count::analyze_for_workload(&module, kernel, w)
                .expect("counts at the workload's values");
            let got = format!("{:?}", at_values.bind(w));
            assert!(
                got == *want,
                "{}: counted at the workload's values differs from the symbolic count\n\
                 at values: {got}\nsymbolic:  {want}",
                case.id
            );
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} kernels checked");
}
