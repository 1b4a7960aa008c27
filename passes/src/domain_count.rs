//! Exact counts of one basic block's (or guarded instruction's) domain, at thread or warp
//! granularity, as quasi-polynomials in the launch and kernel parameters. `count::analyze_function`
//! asks for every block and every guarded instruction, so this is where analysis time goes.
//!
//! A domain is the box of the launch (`0 <= ctaid_d < nctaid_d`, `0 <= tid_d < ntid_d`) and the
//! loop counters, cut by a condition. isl's cost grows steeply with the number of dimensions,
//! and most dimensions of a GPU domain are independent of each other: `ctaid_y` of a 1-D guard,
//! the loop counter of one tile loop and the thread row of another. So the condition's top-level
//! conjunction is split into groups of dimensions that share no conjunct; the domain is the
//! Cartesian product of its groups for every parameter value, and its count the product of
//! theirs. A dimension in no conjunct counts its box (`nctaid_d`, `ntid_d`) without isl; every
//! other group is counted by `poly::count` and cached by its text, since one guard recurs in
//! every block under it. At warp granularity the thread dimensions and the warp are one group
//! (`32 warp <= linear tid < 32 warp + 32` ties them; only the row dimensions when a warp holds
//! whole rows), counted with the threads projected out.
//!
//! Counts are exact for kernel parameters in the signed range of their PTX width (a 32-bit
//! parameter in [-2^31, 2^31)): the affine pass models registers as exact integers compared
//! with their signed comparisons, so a value outside that range is not modelled anyway, and
//! within it the sign-bit floors of unroll masks (`floor((i + 1)/2^31)`) are constants. Grid
//! sizes are at least 1, as every launch has them.

use crate::cond::Cond;
use crate::poly::isl::{Ctx, Set};
use crate::poly::poly::rat;
use crate::poly::{self as poly_mod, Constraint, CountError, LinExpr, Poly, QPoly};
use crate::ptx::{ParamField, PtxType, VarDecl};
use rustc_hash::FxHashMap as HashMap;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Not;

const TIDS: [&str; 3] = ["tid_x", "tid_y", "tid_z"];
const CTAIDS: [&str; 3] = ["ctaid_x", "ctaid_y", "ctaid_z"];
const NCTAIDS: [&str; 3] = ["nctaid_x", "nctaid_y", "nctaid_z"];
/// The pseudo-dimension of warp-granular counts: the warp's index inside its block.
const WARP: &str = "warp";

pub(crate) struct DomainCounter {
    ctx: Ctx,
    block: [u64; 3],
    /// group text -> its count
    cache: HashMap<String, QPoly>,
    /// (loop counters, domain, at warp granularity) -> its count: a block's instructions under
    /// one guard ask for the same domain, and the product of its groups is not free
    domains: HashMap<(Vec<String>, Cond, bool), QPoly>,
    /// parameter list -> the context set over it
    contexts: HashMap<Vec<String>, Set>,
    /// Bit width of each kernel parameter symbol (`p0` …) with an integer type.
    param_bits: HashMap<String, u32>,
}

/// Dimensions that share conjuncts, and those conjuncts.
#[derive(Default)]
struct Group {
    dims: BTreeSet<String>,
    conjuncts: Vec<Cond>,
}

impl DomainCounter {
    pub(crate) fn new(block: [u64; 3]) -> DomainCounter {
        DomainCounter {
            ctx: Ctx::new(),
            block,
            cache: HashMap::default(),
            domains: HashMap::default(),
            contexts: HashMap::default(),
            param_bits: HashMap::default(),
        }
    }

    /// Count within the value ranges of the kernel parameters `params` (in PTX order).
    /// An aggregate's fields (`fields`) lie in the ranges of the types the body reads them as.
    pub(crate) fn with_params(
        mut self,
        params: &[VarDecl],
        fields: &[ParamField],
    ) -> DomainCounter {
        let integer = |t: PtxType| !t.is_float() && (8..=64).contains(&t.bits());
        self.param_bits = params
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.is_aggregate() && integer(p.ty))
            .map(|(i, p)| (format!("p{i}"), p.ty.bits()))
            .chain(fields.iter().filter(|f| integer(f.ty)).map(|f| {
                (
                    crate::affine::symbols::param_field_symbol(f.param, f.offset),
                    f.ty.bits(),
                )
            }))
            .collect();
        self
    }

    /// What is known of `params`: kernel parameters lie in their value ranges, grid sizes are
    /// at least 1.
    fn context(&mut self, params: &[String]) -> Result<Set, CountError> {
        if let Some(s) = self.contexts.get(params) {
            return Ok(s.clone());
        }
        let bounds: Vec<String> = params
            .iter()
            .filter_map(|p| {
                if NCTAIDS.contains(&p.as_str()) {
                    return Some(format!("{p} >= 1"));
                }
                let b = self.param_bits.get(p)?;
                let h = 1i128 << (b - 1);
                Some(format!("{} <= {p} < {h}", -h))
            })
            .collect();
        let text = format!(
            "[{}] -> {{ : {} }}",
            params.join(", "),
            if bounds.is_empty() {
                "true".to_string()
            } else {
                bounds.join(" and ")
            }
        );
        let s = Set::parse(&self.ctx, &text)?;
        self.contexts.insert(params.to_vec(), s.clone());
        Ok(s)
    }

    /// Count a domain at thread or warp granularity.
    pub(crate) fn count(
        &mut self,
        counters: &[String],
        cond: &Cond,
        warp: bool,
    ) -> Result<QPoly, CountError> {
        let key = (counters.to_vec(), cond.clone(), warp);
        if let Some(q) = self.domains.get(&key) {
            return Ok(q.clone());
        }
        let q = self.count_uncached(counters, cond, warp)?;
        self.domains.insert(key, q.clone());
        Ok(q)
    }

    fn count_uncached(
        &mut self,
        counters: &[String],
        cond: &Cond,
        warp: bool,
    ) -> Result<QPoly, CountError> {
        // a block dimension of extent 1 has tid 0
        let mut cond = cond.clone();
        for (t, n) in TIDS.iter().zip(self.block) {
            if n == 1 {
                cond = cond.subst(t, &LinExpr::constant(0));
            }
        }
        let varying: Vec<&str> = TIDS
            .iter()
            .zip(self.block)
            .filter(|(_, n)| *n > 1)
            .map(|(t, _)| *t)
            .collect();
        let mut dims: Vec<String> = CTAIDS.iter().map(|s| s.to_string()).collect();
        if warp {
            dims.push(WARP.into());
        }
        dims.extend(varying.iter().map(|s| s.to_string()));
        dims.extend(counters.iter().cloned());
        let mut conjuncts = Vec::new();
        flatten_and(&cond, &mut conjuncts);
        self.count_conjuncts(counters, &dims, conjuncts, warp, &varying)
    }

    /// The count of the launch points where every conjunct holds.
    fn count_conjuncts(
        &mut self,
        counters: &[String],
        dims: &[String],
        conjuncts: Vec<Cond>,
        warp: bool,
        varying: &[&str],
    ) -> Result<QPoly, CountError> {
        // A disjunction ¬B that links otherwise independent groups (a stencil's boundary
        // `i = 0 or i = n - 1 or j = 0 or j = n - 1`) keeps the whole domain in one group of
        // isl's costliest kind; with B a conjunction, #(R ∧ ¬B) = #R − #(R ∧ B) and both sides
        // factor (R is finite: the disjunction names no loop counter). Warp counts are not cardinalities of these sets (a warp may have threads on
        // both sides), so they keep the disjunction.
        if warp {
            if let Some(terms) = self.warp_inclusion_exclusion(dims, &conjuncts, varying) {
                let mut total = QPoly::zero();
                for (sign, term) in terms {
                    let q = self.count_conjuncts(counters, dims, term, warp, varying)?;
                    total = total.add(&q.scale(&rat(sign)));
                }
                return Ok(total);
            }
        } else {
            if let Some(i) = self.coupling_disjunction(dims, &conjuncts, varying) {
                let mut rest = conjuncts;
                let negated = rest.remove(i).not();
                let mut with_b = rest.clone();
                flatten_and(&negated, &mut with_b);
                let all = self.count_conjuncts(counters, dims, rest, warp, varying)?;
                let inside = self.count_conjuncts(counters, dims, with_b, warp, varying)?;
                return Ok(all.add(&inside.scale(&rat(-1))));
            }
        }
        let groups = self.groups(dims, &conjuncts, warp, varying);
        let mut total: Option<QPoly> = None;
        for g in groups {
            let q = self.count_group(&g, counters, warp, varying)?;
            if q.is_zero() {
                return Ok(QPoly::zero());
            }
            total = Some(match total {
                None => q,
                // the conjoined guards of two factors' pieces may contradict each other
                Some(t) if t.pieces.len() > 1 && q.pieces.len() > 1 => {
                    t.mul(&q).feasible(&launched())
                }
                Some(t) => t.mul(&q),
            });
        }
        Ok(total.unwrap_or_else(|| QPoly::constant(1)))
    }

    /// The condition's conjuncts grouped by the dimensions they share (`warp` joins the varying
    /// thread dimensions); every dimension lands in exactly one group.
    fn groups(
        &self,
        dims: &[String],
        conjuncts: &[Cond],
        warp: bool,
        varying: &[&str],
    ) -> Vec<Group> {
        let index: BTreeMap<&str, usize> = dims
            .iter()
            .enumerate()
            .map(|(i, d)| (d.as_str(), i))
            .collect();
        let mut root: Vec<usize> = (0..dims.len()).collect();
        fn find(root: &mut [usize], k: usize) -> usize {
            let mut r = k;
            while root[r] != r {
                r = root[r];
            }
            root[k] = r;
            r
        }
        fn join(root: &mut [usize], a: usize, b: usize) {
            let (a, b) = (find(root, a), find(root, b));
            root[b] = a;
        }
        if warp {
            for t in varying {
                if *t != "tid_x" || !self.warp_holds_whole_rows() {
                    join(&mut root, index[WARP], index[t]);
                }
            }
        }
        let mut owner: Vec<Option<usize>> = Vec::new();
        for c in conjuncts {
            let mut vars = BTreeSet::new();
            c.vars(&mut vars);
            let used: Vec<usize> = vars
                .iter()
                .filter_map(|v| index.get(v.as_str()))
                .copied()
                .collect();
            for w in used.windows(2) {
                join(&mut root, w[0], w[1]);
            }
            owner.push(used.first().copied());
        }
        let mut by_root: BTreeMap<usize, Group> = BTreeMap::new();
        for (k, d) in dims.iter().enumerate() {
            let r = find(&mut root, k);
            by_root.entry(r).or_default().dims.insert(d.clone());
        }
        // parameter-only conjuncts (`n > 0`) form a group without dimensions: 1 where they hold
        let mut params_only = Group::default();
        for (c, o) in conjuncts.iter().cloned().zip(owner) {
            match o {
                Some(k) => {
                    let r = find(&mut root, k);
                    // every dimension's root got its group above
                    by_root.entry(r).or_default().conjuncts.push(c);
                }
                None => params_only.conjuncts.push(c),
            }
        }
        let mut out: Vec<Group> = Vec::new();
        if !params_only.conjuncts.is_empty() {
            out.push(params_only);
        }
        out.extend(by_root.into_values());
        out
    }

    /// At warp granularity, a coupling disjunction whose disjuncts each lie in one group of
    /// the other conjuncts, as `D_1 or … or D_k` per group: the warps with a thread in
    /// `R and (D_1 or … or D_k)` by inclusion–exclusion, `Σ_S (−1)^{|S|+1} W(R and ⋀_{g∈S} D_g)`.
    /// Each group's threads are projected within its group, so the warps with a thread in
    /// `R and D_g` for every g of S are those with a thread in `R and ⋀ D_g`, and every term
    /// factors. Returns the signed conjunct lists.
    fn warp_inclusion_exclusion(
        &self,
        dims: &[String],
        conjuncts: &[Cond],
        varying: &[&str],
    ) -> Option<Vec<(i128, Vec<Cond>)>> {
        for i in 0..conjuncts.len() {
            let mut disjuncts = Vec::new();
            flatten_or(&conjuncts[i], &mut disjuncts);
            if disjuncts.len() < 2 || mentions_counter(&conjuncts[i], dims) {
                continue;
            }
            let rest: Vec<Cond> = conjuncts
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != i)
                .map(|(_, c)| c.clone())
                .collect();
            let groups = self.groups(dims, &rest, true, varying);
            // the group each disjunct lies in (all of its dimensions in one group)
            let mut per_group: BTreeMap<usize, Cond> = BTreeMap::new();
            let mut fits = true;
            for d in disjuncts {
                let mut vars = BTreeSet::new();
                d.vars(&mut vars);
                let mut owners = groups
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| g.dims.iter().any(|x| vars.contains(x)))
                    .map(|(k, _)| k);
                // exactly one group owns the disjunct's variables
                let (Some(g), None) = (owners.next(), owners.next()) else {
                    fits = false;
                    break;
                };
                let e = per_group.entry(g).or_insert(Cond::True.not());
                *e = e.clone().or(d);
            }
            if !fits || per_group.len() < 2 {
                continue;
            }
            let parts: Vec<Cond> = per_group.into_values().collect();
            let mut terms = Vec::new();
            for subset in 1u32..(1 << parts.len()) {
                let mut term = rest.clone();
                for (k, p) in parts.iter().enumerate() {
                    if subset & (1 << k) != 0 {
                        term.push(p.clone());
                    }
                }
                let sign = if subset.count_ones() % 2 == 1 { 1 } else { -1 };
                terms.push((sign, term));
            }
            return Some(terms);
        }
        None
    }

    /// A conjunct that is a disjunction (`a or b`, `not (a and b)`) whose dimensions lie in
    /// two or more of the groups the other conjuncts form.
    fn coupling_disjunction(
        &self,
        dims: &[String],
        conjuncts: &[Cond],
        varying: &[&str],
    ) -> Option<usize> {
        (0..conjuncts.len()).find(|&i| {
            let is_disjunction = match &conjuncts[i] {
                Cond::Or(..) => true,
                Cond::Not(inner) => matches!(**inner, Cond::And(..)),
                _ => false,
            };
            if !is_disjunction || mentions_counter(&conjuncts[i], dims) {
                return false;
            }
            let others: Vec<Cond> = conjuncts
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != i)
                .map(|(_, c)| c.clone())
                .collect();
            let groups = self.groups(dims, &others, false, varying);
            let mut vars = BTreeSet::new();
            conjuncts[i].vars(&mut vars);
            let touched = groups
                .iter()
                .filter(|g| g.dims.iter().any(|d| vars.contains(d)))
                .count();
            touched >= 2
        })
    }

    fn count_group(
        &mut self,
        g: &Group,
        counters: &[String],
        warp: bool,
        varying: &[&str],
    ) -> Result<QPoly, CountError> {
        if g.conjuncts.is_empty() {
            if let Some(q) = self.box_count(g, warp) {
                return Ok(q);
            }
        }
        // at warp granularity the threads are projected out, never counted
        let counted: Vec<&str> = CTAIDS
            .iter()
            .copied()
            .chain(warp.then_some(WARP))
            .chain(if warp { &[][..] } else { varying }.iter().copied())
            .chain(counters.iter().map(String::as_str))
            .filter(|d| g.dims.contains(*d))
            .collect();
        let projected: Vec<&str> = if warp {
            varying
                .iter()
                .copied()
                .filter(|t| g.dims.contains(*t))
                .collect()
        } else {
            Vec::new()
        };
        let mut params: BTreeSet<String> = BTreeSet::new();
        for c in &g.conjuncts {
            let mut vars = BTreeSet::new();
            c.vars(&mut vars);
            params.extend(
                vars.into_iter()
                    .filter(|v| !g.dims.contains(v) && !TIDS.contains(&v.as_str())),
            );
        }
        let mut outside: Vec<String> = Vec::new();
        for (c, n) in CTAIDS.iter().zip(NCTAIDS) {
            if g.dims.contains(*c) {
                params.insert(n.to_string());
                outside.push(format!("0 <= {c} < {n}"));
            }
        }
        if g.dims.contains(WARP) {
            let warps = self.block.iter().product::<u64>().div_ceil(32);
            outside.push(format!("0 <= {WARP} < {warps}"));
        }
        let mut inside: Vec<String> = TIDS
            .iter()
            .zip(self.block)
            .filter(|(t, _)| g.dims.contains(**t))
            .map(|(t, n)| format!("0 <= {t} < {n}"))
            .collect();
        inside.extend(g.conjuncts.iter().map(Cond::to_isl));
        if g.dims.contains(WARP) && !projected.is_empty() {
            inside.push(self.warp_constraint(&projected));
        }
        let body = if projected.is_empty() {
            outside.extend(inside);
            outside
        } else {
            outside.push(format!(
                "exists ({} : {})",
                projected.join(", "),
                inside.join(" and ")
            ));
            outside
        };
        let params: Vec<String> = params.into_iter().collect();
        let text = format!(
            "[{}] -> {{ [{}] : {} }}",
            params.join(", "),
            counted.join(", "),
            conj_or_true(&body)
        );
        if let Some(q) = self.cache.get(&text) {
            return Ok(q.clone());
        }
        if let Some(q) = self.native_count(g, &counted, &projected) {
            if NATIVE_CHECK.with(|c| c.get()) {
                let set = Set::parse(&self.ctx, &text)?;
                let context = self.context(&params)?;
                let by_isl = poly_mod::count::count_in(&set, &context)?;
                check_native(&q, &by_isl, &text);
                NATIVE_CHECKED.with(|n| n.set(n.get() + 1));
            }
            self.cache.insert(text, q.clone());
            return Ok(q);
        }
        let set = Set::parse(&self.ctx, &text)?;
        let context = self.context(&params)?;
        let q = poly_mod::count::count_in(&set, &context)?;
        self.cache.insert(text, q.clone());
        Ok(q)
    }

    /// The group's count without isl ([`poly_mod::native`]), when its shape allows: the
    /// condition as disjoint conjunctions, each summed over the counted dimensions; at warp
    /// granularity a single conjunction, its threads projected out first.
    fn native_count(&self, g: &Group, counted: &[&str], projected: &[&str]) -> Option<QPoly> {
        let mut boxes: Vec<Constraint> = Vec::new();
        for (c, n) in CTAIDS.iter().zip(NCTAIDS) {
            if g.dims.contains(*c) {
                boxes.push(ge(LinExpr::var(c)));
                boxes.push(ge(LinExpr::var(n).sub(&LinExpr::var(c)).add_const(-1)));
            }
        }
        for (t, n) in TIDS.iter().zip(self.block) {
            if g.dims.contains(*t) {
                boxes.push(ge(LinExpr::var(t)));
                boxes.push(ge(LinExpr::var(t).scale(-1).add_const(n as i128 - 1)));
            }
        }
        if g.dims.contains(WARP) {
            let warps = self.block.iter().product::<u64>().div_ceil(32) as i128;
            boxes.push(ge(LinExpr::var(WARP)));
            boxes.push(ge(LinExpr::var(WARP).scale(-1).add_const(warps - 1)));
            if !projected.is_empty() {
                boxes.extend(self.warp_constraints(projected));
            }
        }
        let mut terms = vec![Vec::new()];
        for c in &g.conjuncts {
            terms = crate::cond::conjoin(&terms, &c.dnf(true, MAX_TERMS)?, MAX_TERMS)?;
        }
        if !projected.is_empty() && terms.len() > 1 {
            return None; // the projections of disjoint terms may overlap
        }
        let vars: Vec<String> = counted.iter().map(|s| s.to_string()).collect();
        let mut total = QPoly::zero();
        for term in terms {
            let mut cons: Vec<Constraint> = boxes.iter().cloned().chain(term).collect();
            for t in projected {
                cons = poly_mod::native::project(t, &cons)?;
            }
            total = total.add(&poly_mod::native::sum(&vars, &cons, &Poly::one())?);
        }
        Some(total.pruned(&launched()))
    }

    /// [`DomainCounter::warp_constraint`] as constraints.
    fn warp_constraints(&self, projected: &[&str]) -> Vec<Constraint> {
        let [nx, ny, _] = self.block;
        let w = LinExpr::var(WARP);
        let weighted = |dims: &[(&str, u64)]| {
            dims.iter()
                .filter(|(t, _)| projected.contains(t))
                .fold(LinExpr::default(), |e, (t, k)| {
                    e.add(&LinExpr::var(t).scale(*k as i128))
                })
        };
        let (index, per) = if !projected.contains(&"tid_x") && self.warp_holds_whole_rows() {
            (weighted(&[("tid_y", 1), ("tid_z", ny)]), (32 / nx) as i128)
        } else {
            (
                weighted(&[("tid_x", 1), ("tid_y", nx), ("tid_z", nx * ny)]),
                32,
            )
        };
        // per·warp <= index <= per·warp + per − 1
        vec![
            ge(index.sub(&w.scale(per))),
            ge(w.scale(per).add_const(per - 1).sub(&index)),
        ]
    }

    /// Whether a warp holds whole rows of the block (`ntid_x` divides 32): then which warp a
    /// thread is in does not depend on `tid_x`, and `tid_x` needs no group with the warp.
    fn warp_holds_whole_rows(&self) -> bool {
        32 % self.block[0] == 0
    }

    /// The constraint tying the warp index to the projected thread dimensions: in general
    /// `32 warp <= tid_x + nx tid_y + nx ny tid_z <= 32 warp + 31`; when a warp holds whole rows
    /// and `tid_x` is not among them, `R warp <= tid_y + ny tid_z <= R warp + R − 1` with
    /// R = 32 / nx rows per warp (equivalent, as 0 <= tid_x < nx).
    fn warp_constraint(&self, projected: &[&str]) -> String {
        let [nx, ny, _] = self.block;
        if !projected.contains(&"tid_x") && self.warp_holds_whole_rows() {
            let rows = 32 / nx;
            let row: Vec<String> = [("tid_y", 1), ("tid_z", ny)]
                .iter()
                .filter(|(t, _)| projected.contains(t))
                .map(|(t, k)| format!("{k} {t}"))
                .collect();
            let row = row.join(" + ");
            return format!("{rows} {WARP} <= {row} <= {rows} {WARP} + {}", rows - 1);
        }
        let linear: Vec<String> = [("tid_x", 1), ("tid_y", nx), ("tid_z", nx * ny)]
            .iter()
            .filter(|(t, _)| projected.contains(t))
            .map(|(t, k)| format!("{k} {t}"))
            .collect();
        format!("32 {WARP} <= {} <= 32 {WARP} + 31", linear.join(" + "))
    }

    /// The count of a group without conditions, when it is the box of the launch: a grid
    /// dimension (`nctaid_d`, at least 1), a thread dimension (`ntid_d`), or the warps of a block.
    fn box_count(&self, g: &Group, warp: bool) -> Option<QPoly> {
        let mut p = Poly::one();
        for d in &g.dims {
            if let Some(k) = CTAIDS.iter().position(|c| c == d) {
                p = p.mul(&Poly::var(NCTAIDS[k]));
            } else if let Some(k) = TIDS.iter().position(|t| t == d) {
                // at warp granularity the threads are projected out: a non-empty box is one
                if !warp {
                    p = p.scale(&rat(self.block[k] as i128));
                }
            } else if d == WARP {
                let warps = self.block.iter().product::<u64>().div_ceil(32);
                p = p.scale(&rat(warps as i128));
            } else {
                // a loop counter without bounds: isl reports it as unbounded
                return None;
            }
        }
        Some(QPoly::from_poly(p))
    }
}

/// Disjoint conjunctions a condition may expand to before the native count gives way to isl.
const MAX_TERMS: usize = 32;

thread_local! {
    /// When set, every native count is compared with isl's (tests).
    static NATIVE_CHECK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Native counts compared since the check was last switched.
    static NATIVE_CHECKED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Compare every native count with isl's on this thread (a test of the native counter over a
/// whole corpus); a difference panics, naming the domain. Returns how many counts were
/// compared since the last call.
#[doc(hidden)]
pub fn check_native_counts(on: bool) -> usize {
    NATIVE_CHECK.with(|c| c.set(on));
    NATIVE_CHECKED.with(|n| n.replace(0))
}

/// The two counts agree at parameter points spread over the ranges GPU launches take.
fn check_native(native: &QPoly, by_isl: &QPoly, domain: &str) {
    let mut names: BTreeSet<String> = native.params();
    names.extend(by_isl.params());
    let mut seed = 7u64;
    for _ in 0..64 {
        let vals: BTreeMap<String, i128> = names
            .iter()
            .map(|n| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let r = (seed >> 33) as i128;
                let v = if NCTAIDS.contains(&n.as_str()) {
                    1 + r % 6
                } else {
                    r % 2100 - 50
                };
                (n.clone(), v)
            })
            .collect();
        let (a, b) = (native.eval_map(&vals), by_isl.eval_map(&vals));
        assert_eq!(
            a, b,
            "native and isl counts differ at {vals:?} for {domain}:\nnative {native}\nisl {by_isl}"
        );
    }
}

/// `nctaid_d >= 1`: every launch has a block in each dimension.
fn launched() -> Vec<Constraint> {
    NCTAIDS
        .iter()
        .map(|n| ge(LinExpr::var(n).add_const(-1)))
        .collect()
}

fn ge(expr: LinExpr) -> Constraint {
    Constraint { expr, eq: false }
}

fn conj_or_true(conj: &[String]) -> String {
    if conj.is_empty() {
        "true".into()
    } else {
        conj.join(" and ")
    }
}

/// Whether `c` involves a loop counter (a dimension other than the launch's). A disjunction
/// may be what bounds a counter (`k = 0 or k <= n - 1`): without it the rest of the domain is
/// infinite, so the rules that drop it apply only to launch dimensions, which the box bounds.
fn mentions_counter(c: &Cond, dims: &[String]) -> bool {
    let mut vars = BTreeSet::new();
    c.vars(&mut vars);
    dims.iter().any(|d| {
        vars.contains(d)
            && !CTAIDS.contains(&d.as_str())
            && !TIDS.contains(&d.as_str())
            && d != WARP
    })
}

/// The top-level disjuncts of `c` (`not (a and b)` is `not a or not b`).
fn flatten_or(c: &Cond, out: &mut Vec<Cond>) {
    match c {
        Cond::Or(a, b) => {
            flatten_or(a, out);
            flatten_or(b, out);
        }
        Cond::Not(inner) => match &**inner {
            Cond::And(a, b) => {
                flatten_or(&Cond::Not(a.clone()), out);
                flatten_or(&Cond::Not(b.clone()), out);
            }
            Cond::Not(x) => flatten_or(x, out),
            _ => out.push(c.clone()),
        },
        _ => out.push(c.clone()),
    }
}

/// The top-level conjuncts of `c` (`True` contributes none).
fn flatten_and(c: &Cond, out: &mut Vec<Cond>) {
    match c {
        Cond::And(a, b) => {
            flatten_and(a, out);
            flatten_and(b, out);
        }
        Cond::True => {}
        Cond::Not(inner) => match &**inner {
            // not (a or b) = not a and not b
            Cond::Or(a, b) => {
                flatten_and(&Cond::Not(a.clone()), out);
                flatten_and(&Cond::Not(b.clone()), out);
            }
            Cond::Not(x) => flatten_and(x, out),
            _ => out.push(c.clone()),
        },
        _ => out.push(c.clone()),
    }
}
