//! Property test of the symbolic counter: random affine loop nests (depth ≤ 4, min/max bounds,
//! triangles, non-unit and negative steps, tiles, affine and modular guards) become isl sets the
//! way the domain pass writes them (strided loops as normalised counters); the parametric count,
//! evaluated at 6 parameter points, must equal brute-force enumeration of the C loop nest and
//! `isl_set_count_val` at the same points.

use kerncast_passes::poly::isl::{Ctx, DimType, Set};
use kerncast_passes::poly::{count, poly::rat};
use proptest::prelude::*;

/// c + cn·n + cm·m + Σ outer_k·i_k
#[derive(Clone, Debug)]
struct Aff {
    c: i64,
    cn: i64,
    cm: i64,
    outer: Vec<i64>,
}

#[derive(Clone, Debug)]
struct Loop {
    /// i starts at max(lo) (forward) or min(hi) - 1 (backward)
    lo: Vec<Aff>,
    /// exclusive upper bounds, min of
    hi: Vec<Aff>,
    /// ±1, ±2, ±3
    step: i64,
}

#[derive(Clone, Debug)]
enum Guard {
    /// aff >= 0
    Ge(Aff),
    /// (i_var + r) % m == 0
    Mod { var: usize, m: i64, r: i64 },
}

#[derive(Clone, Debug)]
struct Nest {
    loops: Vec<Loop>,
    guards: Vec<Guard>,
}

const POINTS: [(i64, i64); 6] = [(0, 2), (1, 3), (3, 1), (4, 4), (6, 2), (8, 5)];

impl Aff {
    fn eval(&self, n: i64, m: i64, iv: &[i64]) -> i64 {
        self.c
            + self.cn * n
            + self.cm * m
            + self.outer.iter().zip(iv).map(|(a, b)| a * b).sum::<i64>()
    }

    fn isl(&self, exprs: &[String]) -> String {
        let mut s = format!("{}", self.c);
        if self.cn != 0 {
            s += &format!(" + {} * n", self.cn);
        }
        if self.cm != 0 {
            s += &format!(" + {} * m", self.cm);
        }
        for (k, c) in self.outer.iter().enumerate() {
            if *c != 0 {
                s += &format!(" + {} * ({})", c, exprs[k]);
            }
        }
        format!("({s})")
    }
}

fn aff(depth: usize) -> impl Strategy<Value = Aff> {
    (
        -3i64..=4,
        0i64..=1,
        0i64..=1,
        proptest::collection::vec(-1i64..=1, depth),
    )
        .prop_map(|(c, cn, cm, outer)| Aff { c, cn, cm, outer })
}

fn param_aff(depth: usize, c: i64, cn: i64, cm: i64) -> Aff {
    Aff {
        c,
        cn,
        cm,
        outer: vec![0; depth],
    }
}

fn loop_at(depth: usize) -> impl Strategy<Value = Loop> {
    let lo = proptest::collection::vec(aff(depth), 1..=2);
    let hi = proptest::collection::vec(aff(depth), 1..=2);
    let step = prop_oneof![Just(1i64), Just(1), Just(-1), Just(2), Just(3), Just(-2)];
    (lo, hi, step).prop_map(|(mut lo, mut hi, step)| {
        // a non-unit step starts from one affine expression (no max/min anchor); every bound is
        // affine in parameters and outer (bounded) indices, so the set is finite
        if step > 1 {
            lo.truncate(1);
        }
        if step < -1 {
            hi.truncate(1);
        }
        Loop { lo, hi, step }
    })
}

fn tile_pair(depth: usize) -> impl Strategy<Value = Vec<Loop>> {
    (2i64..=5).prop_map(move |t| {
        let mut inner_lo = param_aff(depth + 1, 0, 0, 0);
        inner_lo.outer[depth] = 1;
        let mut inner_hi = param_aff(depth + 1, t, 0, 0);
        inner_hi.outer[depth] = 1;
        vec![
            Loop {
                lo: vec![param_aff(depth, 0, 0, 0)],
                hi: vec![param_aff(depth, 0, 1, 0)],
                step: t,
            },
            Loop {
                lo: vec![inner_lo],
                hi: vec![inner_hi, param_aff(depth + 1, 0, 1, 0)],
                step: 1,
            },
        ]
    })
}

fn nest() -> impl Strategy<Value = Nest> {
    (1usize..=4, any::<bool>(), 0usize..=2).prop_flat_map(|(depth, tile, ng)| {
        let mut parts: Vec<BoxedStrategy<Vec<Loop>>> = Vec::new();
        let mut d = 0;
        while d < depth {
            if tile && d == 0 && depth >= 2 {
                parts.push(tile_pair(d).boxed());
                d += 2;
            } else {
                parts.push(loop_at(d).prop_map(|l| vec![l]).boxed());
                d += 1;
            }
        }
        let guard = prop_oneof![
            aff(depth).prop_map(Guard::Ge),
            (0..depth, 2i64..=3, 0i64..=2).prop_map(|(var, m, r)| Guard::Mod { var, m, r }),
        ];
        (parts, proptest::collection::vec(guard, ng)).prop_map(|(parts, guards)| {
            let mut loops: Vec<Loop> = parts.into_iter().flatten().collect();
            // at most two strided loops per nest: each one multiplies the residue classes the
            // counter walks through, and GPU kernels rarely nest more (keeps the test quick)
            let mut strided = 0;
            // likewise at most two min/max bounds per nest (each one doubles the bound cells)
            let mut minmax = 0;
            for l in &mut loops {
                for side in [&mut l.lo, &mut l.hi] {
                    if side.len() > 1 {
                        minmax += 1;
                        if minmax > 2 {
                            side.truncate(1);
                        }
                    }
                }
                if l.step.abs() > 1 {
                    strided += 1;
                    if strided > 2 {
                        l.step = l.step.signum();
                    }
                }
            }
            Nest { loops, guards }
        })
    })
}

impl Nest {
    /// Brute force: run the C loop nest.
    fn enumerate(&self, n: i64, m: i64) -> i64 {
        fn go(nest: &Nest, d: usize, iv: &mut Vec<i64>, n: i64, m: i64) -> i64 {
            if d == nest.loops.len() {
                let ok = nest.guards.iter().all(|g| match g {
                    Guard::Ge(a) => a.eval(n, m, iv) >= 0,
                    Guard::Mod { var, m: md, r } => (iv[*var] + r).rem_euclid(*md) == 0,
                });
                return ok as i64;
            }
            let l = &nest.loops[d];
            let lo = l.lo.iter().map(|a| a.eval(n, m, iv)).max().unwrap();
            let hi = l.hi.iter().map(|a| a.eval(n, m, iv)).min().unwrap();
            let mut total = 0;
            if l.step > 0 {
                let mut i = lo;
                while i < hi {
                    iv.push(i);
                    total += go(nest, d + 1, iv, n, m);
                    iv.pop();
                    i += l.step;
                }
            } else {
                let mut i = hi - 1;
                while i >= lo {
                    iv.push(i);
                    total += go(nest, d + 1, iv, n, m);
                    iv.pop();
                    i += l.step;
                }
            }
            total
        }
        go(self, 0, &mut Vec::new(), n, m)
    }

    /// The iteration domain as the domain pass writes it: unit loops by their index, strided
    /// loops by a normalised counter k (i = start + step·k).
    fn isl(&self) -> String {
        let mut dims = Vec::new();
        let mut exprs: Vec<String> = Vec::new();
        let mut cons = Vec::new();
        for (d, l) in self.loops.iter().enumerate() {
            let los: Vec<String> = l.lo.iter().map(|a| a.isl(&exprs)).collect();
            let his: Vec<String> = l.hi.iter().map(|a| a.isl(&exprs)).collect();
            let e = match l.step {
                1 | -1 => {
                    let v = format!("i{d}");
                    dims.push(v.clone());
                    v
                }
                s if s > 1 => {
                    let k = format!("k{d}");
                    dims.push(k.clone());
                    cons.push(format!("{k} >= 0"));
                    format!("{} + {s} * {k}", los[0])
                }
                s => {
                    let k = format!("k{d}");
                    dims.push(k.clone());
                    cons.push(format!("{k} >= 0"));
                    format!("{} - 1 - {} * {k}", his[0], -s)
                }
            };
            for lo in &los {
                cons.push(format!("{e} >= {lo}"));
            }
            for hi in &his {
                cons.push(format!("{e} < {hi}"));
            }
            exprs.push(e);
        }
        for (g, guard) in self.guards.iter().enumerate() {
            match guard {
                Guard::Ge(a) => cons.push(format!("{} >= 0", a.isl(&exprs))),
                Guard::Mod { var, m, r } => cons.push(format!(
                    "exists (g{g} : {} + {r} = {m} * g{g})",
                    exprs[*var]
                )),
            }
        }
        format!(
            "[n, m] -> {{ [{}] : {} }}",
            dims.join(", "),
            cons.join(" and ")
        )
    }
}

/// One batch of random nests; ten batches (1000 nests) run as separate tests so that each stays
/// well under 20 s in a debug build and the two CI cores share them.
fn check_nest(nest: &Nest) -> Result<(), TestCaseError> {
    let ctx = Ctx::new();
    let text = nest.isl();
    let set = Set::parse(&ctx, &text).expect("generated set parses");
    let q = count(&set).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
    for (n, m) in POINTS {
        let brute = nest.enumerate(n, m);
        let fixed = set
            .clone()
            .fix_si(DimType::isl_dim_param, 0, n)
            .and_then(|s| s.fix_si(DimType::isl_dim_param, 1, m))
            .expect("fix params");
        let (oracle, _) = fixed
            .count_val()
            .expect("isl count")
            .to_rational()
            .expect("fits");
        let sym = q
            .eval(&|v| match v {
                "n" => Some(n as i128),
                "m" => Some(m as i128),
                _ => None,
            })
            .expect("only n and m occur");
        prop_assert_eq!(
            oracle,
            brute,
            "isl vs brute force on {} at n={} m={}",
            text,
            n,
            m
        );
        prop_assert_eq!(
            sym,
            rat(brute as i128),
            "{} at n={} m={}: {}",
            text,
            n,
            m,
            q
        );
    }
    Ok(())
}

/// Cases per batch (10 batches). The default suite checks 250 nests; the full 1000-nest run of the
/// acceptance criterion is `KC_CASES=100` (about 45 CPU-minutes in a debug build, too long for CI).
fn cases() -> u32 {
    std::env::var("KC_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(25)
}

/// The nests are drawn from a fixed seed so that CI checks the same 250 nests every run (a
/// random draw once found a nest whose count took minutes in a debug build); `KC_SEED=<u64>`
/// draws others.
fn seed() -> proptest::test_runner::RngSeed {
    proptest::test_runner::RngSeed::Fixed(
        std::env::var("KC_SEED")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20261123),
    )
}

macro_rules! batches {
    ($($name:ident),*) => {
        proptest! {
            #![proptest_config(ProptestConfig {
                cases: cases(),
                failure_persistence: None,
                rng_seed: seed(),
                ..ProptestConfig::default()
            })]
            $(
                #[test]
                fn $name(nest in nest()) {
                    check_nest(&nest)?;
                }
            )*
        }
    };
}

batches!(batch0, batch1, batch2, batch3, batch4, batch5, batch6, batch7, batch8, batch9);
