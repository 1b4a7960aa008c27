//! Quasi-affine forms and conditions compiled for evaluation at many points of a walk.
//!
//! The walks over a launch's warps (`domains::WarpWalk`, the L2 reuse profile) evaluate the
//! same guard and the same addresses at up to millions of (block, loop counters, thread)
//! points. Evaluated from the symbolic forms, every lane looks its variables up by name and
//! recurses through boxed trees. Compiled here once per walk, a variable is an index into the
//! point's values (its *slot*) or a thread index, and each form is split into the part the
//! point alone decides and the part each lane adds: the lane part of a form that reads only
//! the thread index is a table over the block's threads, so a lane costs an addition and a
//! comparison. Results are those of [`LinExpr::eval`] and [`Cond::eval`], exactly.

use crate::cond::Cond;
use crate::poly::linexpr::{Atom, LinExpr};

/// Where a variable's value comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Var {
    /// The point's value at this index.
    Slot(usize),
    /// `tid_x`, `tid_y` or `tid_z`.
    Tid(usize),
}

/// The variable `name` resolves to, for a walk whose point has `slots` (in order) besides the
/// thread index.
pub fn resolver(slots: &[String]) -> impl Fn(&str) -> Option<Var> + '_ {
    move |name: &str| match name {
        "tid_x" => Some(Var::Tid(0)),
        "tid_y" => Some(Var::Tid(1)),
        "tid_z" => Some(Var::Tid(2)),
        v => slots.iter().position(|s| s == v).map(Var::Slot),
    }
}

#[derive(Clone, Debug)]
enum Term {
    Var(Var),
    Floor(Box<Lin>, i128),
}

/// `Σ c·term + constant` with every variable resolved.
#[derive(Clone, Debug, Default)]
pub struct Lin {
    terms: Vec<(Term, i128)>,
    constant: i128,
}

impl Lin {
    /// `e` compiled; `None` when some variable does not resolve.
    pub fn compile(e: &LinExpr, resolve: &dyn Fn(&str) -> Option<Var>) -> Option<Lin> {
        let mut out = Lin {
            terms: Vec::with_capacity(e.terms.len()),
            constant: e.constant,
        };
        for (atom, c) in &e.terms {
            let t = match atom {
                Atom::Var(v) => Term::Var(resolve(v)?),
                Atom::Floor(inner, m) => Term::Floor(Box::new(Lin::compile(inner, resolve)?), *m),
            };
            out.terms.push((t, *c));
        }
        Some(out)
    }

    pub fn eval(&self, point: &[i128], tid: [u64; 3]) -> i128 {
        self.terms
            .iter()
            .fold(self.constant, |acc, (t, c)| acc + c * t.eval(point, tid))
    }

    pub fn reads_tid(&self) -> bool {
        self.terms.iter().any(|(t, _)| t.reads_tid())
    }

    /// How much the form grows per unit of slot `i`, where it reads the slot only outside
    /// floors (it is then linear in it); `None` where a floor reads it.
    fn slot_coef(&self, i: usize) -> Option<i128> {
        let mut c = 0i128;
        for (t, k) in &self.terms {
            match t {
                Term::Var(Var::Slot(j)) if *j == i => c = c.checked_add(*k)?,
                Term::Var(_) => {}
                Term::Floor(l, _) => {
                    if l.reads_slot(i) {
                        return None;
                    }
                }
            }
        }
        Some(c)
    }

    fn reads_slot(&self, i: usize) -> bool {
        self.terms.iter().any(|(t, _)| match t {
            Term::Var(v) => *v == Var::Slot(i),
            Term::Floor(l, _) => l.reads_slot(i),
        })
    }

    fn reads_point(&self) -> bool {
        self.terms.iter().any(|(t, _)| t.reads_point())
    }

    /// (the terms that do not read the thread index, with the constant; the terms that do).
    pub fn split(self) -> (Lin, Lin) {
        let (lane, point): (Vec<_>, Vec<_>) =
            self.terms.into_iter().partition(|(t, _)| t.reads_tid());
        (
            Lin {
                terms: point,
                constant: self.constant,
            },
            Lin {
                terms: lane,
                constant: 0,
            },
        )
    }
}

impl Term {
    fn eval(&self, point: &[i128], tid: [u64; 3]) -> i128 {
        match self {
            Term::Var(Var::Slot(i)) => point[*i],
            Term::Var(Var::Tid(i)) => tid[*i] as i128,
            Term::Floor(l, m) => floor_div(l.eval(point, tid), *m),
        }
    }

    fn reads_tid(&self) -> bool {
        match self {
            Term::Var(v) => matches!(v, Var::Tid(_)),
            Term::Floor(l, _) => l.reads_tid(),
        }
    }

    fn reads_point(&self) -> bool {
        match self {
            Term::Var(v) => matches!(v, Var::Slot(_)),
            Term::Floor(l, _) => l.reads_point(),
        }
    }
}

/// `v.div_euclid(m)`, in 64 bits where both fit: a 128-bit division is a library call several
/// times slower, and walks divide at every lane of every point.
fn floor_div(v: i128, m: i128) -> i128 {
    match (i64::try_from(v), i64::try_from(m)) {
        (Ok(a), Ok(b)) if b != -1 => i128::from(a.div_euclid(b)),
        _ => v.div_euclid(m),
    }
}

/// The thread index of thread `t` of a block of `block` threads (x fastest).
pub fn tid_of(t: u64, block: [u64; 3]) -> [u64; 3] {
    [
        t % block[0],
        t / block[0] % block[1],
        t / (block[0] * block[1]),
    ]
}

/// A form as the point part, evaluated once per point, plus the lane part: a table over the
/// block's threads where it reads only the thread index, else evaluated lane by lane.
#[derive(Clone, Debug)]
pub struct SplitForm {
    point: Lin,
    lane: Lane,
}

#[derive(Clone, Debug)]
enum Lane {
    /// The lane part of every thread of the block, and of each whole warp whether its 32
    /// values step evenly: (first value, step).
    Table(LaneTable),
    /// A lane part whose floors read the point too, where each floor's argument splits into a
    /// point part and a part that reads only the thread index.
    Floors(FloorLane),
    /// Evaluated lane by lane.
    Evaluated(Lin),
}

/// A lane part `Σ c·tid + Σ k·floor((p(point) + t(tid)) / m)`: clang's 32-bit wrap of a
/// global index, `floor((128·ctaid + tid + 1) / 2^31)`, is one. A floor is monotone in its
/// argument, so where it takes the same value at the least and the greatest `t` of a warp's
/// lanes it takes it at every lane: the warp's lane values are then a table's plus a constant,
/// and a guard's mask is found as for a lane part that reads only the thread index.
#[derive(Clone, Debug)]
struct FloorLane {
    /// The terms outside the floors, over the block's threads, and each whole warp's
    /// (first value, step) where its values step evenly.
    plain: LaneTable,
    floors: Vec<FloorTerm>,
    /// The whole lane part, for the warps where some floor changes across the lanes.
    whole: Lin,
}

#[derive(Clone, Debug)]
struct FloorTerm {
    coef: i128,
    point: Lin,
    divisor: i128,
    /// The least and the greatest `t` over each warp's threads (the last warp's that exist).
    warp_range: Vec<(i128, i128)>,
}

impl FloorLane {
    /// `lane` in this form, where it has one.
    fn new(lane: &Lin, block: [u64; 3]) -> Option<FloorLane> {
        let mut plain = Lin::default();
        let mut floors = Vec::new();
        for (t, c) in &lane.terms {
            match t {
                Term::Floor(inner, m) if inner.reads_point() => {
                    let (point, within) = inner.as_ref().clone().split();
                    if within.reads_point() {
                        return None;
                    }
                    let warp_range = over_threads(&within, block)
                        .chunks(32)
                        .map(|w| {
                            let lo = w.iter().min().copied().unwrap_or(0);
                            (lo, w.iter().max().copied().unwrap_or(0))
                        })
                        .collect();
                    floors.push(FloorTerm {
                        coef: *c,
                        point,
                        divisor: *m,
                        warp_range,
                    });
                }
                _ => plain.terms.push((t.clone(), *c)),
            }
        }
        if plain.reads_point() || floors.is_empty() {
            return None;
        }
        Some(FloorLane {
            plain: LaneTable::new(&plain, block),
            floors,
            whole: lane.clone(),
        })
    }

    /// What the floors add at every lane of warp `w` at `point`, where none changes across
    /// the warp's lanes.
    fn warp_offset(&self, point: &[i128], w: u64) -> Option<i128> {
        let w = usize::try_from(w).ok()?;
        let mut sum = 0i128;
        for f in &self.floors {
            let (lo, hi) = *f.warp_range.get(w)?;
            let p = f.point.eval(point, [0; 3]);
            let q = floor_div(p.checked_add(lo)?, f.divisor);
            if floor_div(p.checked_add(hi)?, f.divisor) != q {
                return None;
            }
            sum = sum.checked_add(f.coef.checked_mul(q)?)?;
        }
        Some(sum)
    }
}

impl SplitForm {
    pub fn new(l: Lin, block: [u64; 3]) -> SplitForm {
        let (point, lane) = l.split();
        let lane = if lane.reads_point() {
            match FloorLane::new(&lane, block) {
                Some(f) => Lane::Floors(f),
                None => Lane::Evaluated(lane),
            }
        } else {
            Lane::Table(LaneTable::new(&lane, block))
        };
        SplitForm { point, lane }
    }

    /// The least and the greatest lane part over the block's threads, where it reads only
    /// the thread index.
    fn lane_extremes(&self) -> Option<(i128, i128)> {
        match &self.lane {
            Lane::Table(tab) => Some((*tab.values.iter().min()?, *tab.values.iter().max()?)),
            Lane::Floors(_) | Lane::Evaluated(_) => None,
        }
    }

    /// [`Self::lane_extremes`] at `point`, of a lane part that reads the point too, where it
    /// does not read slot `i`: the same over every value of that slot.
    fn lane_extremes_at(&self, point: &[i128], i: usize, block: [u64; 3]) -> Option<(i128, i128)> {
        let lin = match &self.lane {
            Lane::Table(..) => return self.lane_extremes(),
            Lane::Floors(f) => &f.whole,
            Lane::Evaluated(lin) => lin,
        };
        if lin.reads_slot(i) {
            return None;
        }
        let threads = block.iter().product::<u64>();
        (0..threads)
            .map(|t| lin.eval(point, tid_of(t, block)))
            .fold(None, |m, v| match m {
                None => Some((v, v)),
                Some((a, b)) => Some((v.min(a), v.max(b))),
            })
    }

    /// The point part at `point`.
    pub fn base(&self, point: &[i128]) -> i128 {
        self.point.eval(point, [0; 3])
    }

    /// The value for the thread of index `tid`, given the point part `base`.
    pub fn at(&self, base: i128, point: &[i128], tid: [u64; 3], block: [u64; 3]) -> i128 {
        base + match &self.lane {
            Lane::Table(tab) => tab.values[thread_index(tid, block) as usize],
            Lane::Floors(f) => f.whole.eval(point, tid),
            Lane::Evaluated(lin) => lin.eval(point, tid),
        }
    }

    /// Where `lanes` are consecutive lanes of a warp whose 32 values step evenly (the whole
    /// warp, or the run a guard that cuts it at the edge of the data leaves): (the first active
    /// lane's value, the step, how many lanes) at `point`, given its point part `base`. A walk
    /// takes such lanes' sectors as one range or progression, not lane by lane.
    pub fn lanes_progression(
        &self,
        base: i128,
        point: &[i128],
        lanes: &[crate::domains::Lane],
        block: [u64; 3],
    ) -> Option<(i128, i128, u32)> {
        let (w, first, last) = consecutive_lanes(lanes, block)?;
        let (v, step) = self.warp_steps(point, w)?;
        Some((base + v + i128::from(first) * step, step, last - first + 1))
    }

    /// Where `lanes` are consecutive lanes of a warp whose values step evenly only in runs
    /// ([`LaneTable`]'s pieces): `f(first value, step, lanes)` for each run, clipped to the
    /// active lanes, at `point` given its point part `base`; false (and no call) where the
    /// warp has no such runs.
    pub fn for_lane_pieces(
        &self,
        base: i128,
        point: &[i128],
        lanes: &[crate::domains::Lane],
        block: [u64; 3],
        mut f: impl FnMut(i128, i128, u32),
    ) -> bool {
        let Some((w, first, last)) = consecutive_lanes(lanes, block) else {
            return false;
        };
        let w = w as usize;
        let (table, offset) = match &self.lane {
            Lane::Table(tab) => (tab, Some(0)),
            Lane::Floors(fl) => (&fl.plain, fl.warp_offset(point, w as u64)),
            Lane::Evaluated(_) => return false,
        };
        let (Some(Some(pieces)), Some(offset)) = (table.pieces.get(w), offset) else {
            return false;
        };
        for p in pieces {
            // the piece's lanes that are active
            let from = p.lane.max(first);
            let to = (p.lane + p.n - 1).min(last);
            if from <= to {
                let skip = i128::from(from - p.lane);
                f(
                    base + offset + p.first + skip * p.step,
                    p.step,
                    to - from + 1,
                );
            }
        }
        true
    }

    /// (the value of the first thread, the step) where the 32 threads of warp `w` of the
    /// block (threads 32·w …) step evenly at `point`, given a point part of 0.
    fn warp_steps(&self, point: &[i128], w: u64) -> Option<(i128, i128)> {
        match &self.lane {
            Lane::Table(tab) => *tab.steps.get(usize::try_from(w).ok()?)?,
            Lane::Floors(f) => {
                let (v, step) = (*f.plain.steps.get(usize::try_from(w).ok()?)?)?;
                Some((v + f.warp_offset(point, w)?, step))
            }
            Lane::Evaluated(_) => None,
        }
    }

    /// `f(l, value)` for lanes `l` in `0..n` of the warp whose first thread is `first`, given
    /// the point part `base`.
    pub fn for_lanes(
        &self,
        base: i128,
        point: &[i128],
        first: u64,
        n: u64,
        block: [u64; 3],
        mut f: impl FnMut(u64, i128),
    ) {
        match &self.lane {
            Lane::Table(tab) => {
                let lanes = &tab.values[first as usize..(first + n) as usize];
                for (l, v) in lanes.iter().enumerate() {
                    f(l as u64, base + v);
                }
            }
            Lane::Floors(fl) => match fl.warp_offset(point, first / 32) {
                Some(o) if first.is_multiple_of(32) => {
                    let lanes = &fl.plain.values[first as usize..(first + n) as usize];
                    for (l, v) in lanes.iter().enumerate() {
                        f(l as u64, base + o + v);
                    }
                }
                _ => {
                    for l in 0..n {
                        f(l, base + fl.whole.eval(point, tid_of(first + l, block)));
                    }
                }
            },
            Lane::Evaluated(lin) => {
                for l in 0..n {
                    f(l, base + lin.eval(point, tid_of(first + l, block)));
                }
            }
        }
    }
}

/// Where `lanes` are consecutive lanes of one warp: (the warp's index in the block, its first
/// and last lane).
fn consecutive_lanes(lanes: &[crate::domains::Lane], block: [u64; 3]) -> Option<(u64, u32, u32)> {
    let (first, last) = (lanes.first()?, lanes.last()?);
    let n = last.0.checked_sub(first.0)? + 1;
    if lanes.len() != n as usize || last.0 > 31 {
        return None;
    }
    let thread = thread_index(first.1, block).checked_sub(u64::from(first.0))?;
    thread
        .is_multiple_of(32)
        .then_some((thread / 32, first.0, last.0))
}

/// The block-linear index of the thread `tid` (x fastest), the inverse of `tid_of`.
fn thread_index(tid: [u64; 3], block: [u64; 3]) -> u64 {
    tid[0] + block[0] * (tid[1] + block[1] * tid[2])
}

/// The values of `lin`, which reads only the thread index, at each of the block's threads.
fn over_threads(lin: &Lin, block: [u64; 3]) -> Vec<i128> {
    let threads = block.iter().product::<u64>();
    (0..threads)
        .map(|t| lin.eval(&[], tid_of(t, block)))
        .collect()
}

/// [`over_threads`], and each whole warp's (first value, step) where its values step evenly.
/// A lane part over the block's threads, and for each whole warp how its 32 values step.
#[derive(Clone, Debug)]
struct LaneTable {
    values: Vec<i128>,
    /// (first value, step) where the warp's values step evenly.
    steps: Vec<Option<(i128, i128)>>,
    /// Where they do not, the runs of lanes that do, in lane order: a warp of a 16 × 16 block
    /// is two rows of 16 lanes, each stepping by the row's stride, the next a row further on.
    pieces: Vec<Option<Vec<Piece>>>,
}

/// Lanes `lane .. lane + n` of a warp whose values are `first + k·step` (k from 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Piece {
    pub lane: u32,
    pub n: u32,
    pub first: i128,
    pub step: i128,
}

/// A warp whose lanes break into more runs than this is walked lane by lane.
const MOST_PIECES: usize = 8;

impl LaneTable {
    fn new(lin: &Lin, block: [u64; 3]) -> LaneTable {
        let values = over_threads(lin, block);
        let steps: Vec<_> = values.chunks_exact(32).map(progression).collect();
        let pieces = values
            .chunks_exact(32)
            .zip(&steps)
            .map(|(w, s)| s.is_none().then(|| pieces(w)).flatten())
            .collect();
        LaneTable {
            values,
            steps,
            pieces,
        }
    }
}

/// The runs of lanes of one warp that step evenly, longest first from each lane on; `None`
/// where there are more than [`MOST_PIECES`].
fn pieces(values: &[i128]) -> Option<Vec<Piece>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < values.len() {
        let first = values[at];
        let step = values.get(at + 1).map_or(0, |v| v - first);
        let mut n = 1;
        while at + n < values.len() && values[at + n] - values[at + n - 1] == step {
            n += 1;
        }
        if out.len() == MOST_PIECES {
            return None;
        }
        out.push(Piece {
            lane: at as u32,
            n: n as u32,
            first,
            step: if n == 1 { 0 } else { step },
        });
        at += n;
    }
    Some(out)
}

/// (first value, step) of values that step evenly.
fn progression(values: &[i128]) -> Option<(i128, i128)> {
    let first = *values.first()?;
    let step = values.get(1).map_or(0, |v| v - first);
    values
        .windows(2)
        .all(|w| w[1] - w[0] == step)
        .then_some((first, step))
}

/// The lanes `l` of a warp where `first + l·step` is zero (`eq`) or at least zero, as a mask:
/// a run of lanes from either end (one lane for a zero), found by division instead of lane by
/// lane.
fn progression_mask(first: i128, step: i128, eq: bool) -> u32 {
    let lanes = |from: i128, to: i128| -> u32 {
        // lanes from..=to, clipped to the warp
        let (from, to) = (from.max(0), to.min(31));
        if from > to {
            return 0;
        }
        let upto = |k: i128| {
            if k >= 31 {
                u32::MAX
            } else {
                (1u32 << (k + 1)) - 1
            }
        };
        upto(to) & !(if from == 0 { 0 } else { upto(from - 1) })
    };
    match (eq, step.signum()) {
        (_, 0) if (eq && first == 0) || (!eq && first >= 0) => u32::MAX,
        (_, 0) => 0,
        (true, _) if first % step == 0 => lanes(-first / step, -first / step),
        (true, _) => 0,
        // first + l·step >= 0: l >= ceil(-first / step), or l <= floor(first / -step)
        (false, 1) => lanes(
            (-first).div_euclid(step) + i128::from((-first).rem_euclid(step) != 0),
            31,
        ),
        (false, _) => lanes(0, first.div_euclid(-step)),
    }
}

/// What a comparison asks of a form's value.
#[derive(Clone, Copy)]
enum Sense {
    NonNegative,
    Negative,
    NonPositive,
}

#[derive(Clone, Debug)]
enum Node {
    Ge(usize),
    Eq(usize),
    Not(Box<Node>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    True,
}

/// A condition compiled for a block shape: which lanes of a warp hold at a point, as a mask.
#[derive(Clone, Debug)]
pub struct CondProgram {
    node: Node,
    forms: Vec<SplitForm>,
    block: [u64; 3],
    /// Each form's least and greatest lane part over the block, where it reads only the
    /// thread index: what bounds a counter ([`CondProgram::slot_range`]).
    extremes: Vec<Option<(i128, i128)>>,
}

impl CondProgram {
    /// `c` compiled for blocks of `block` threads; `None` when some variable does not resolve.
    pub fn compile(
        c: &Cond,
        block: [u64; 3],
        resolve: &dyn Fn(&str) -> Option<Var>,
    ) -> Option<CondProgram> {
        let mut forms = Vec::new();
        let node = Self::node(c, block, resolve, &mut forms)?;
        let extremes = forms.iter().map(SplitForm::lane_extremes).collect();
        Some(CondProgram {
            node,
            forms,
            block,
            extremes,
        })
    }

    /// The values of slot `i` in `lo..=hi` where some thread of the block may meet the
    /// condition, the other slots at `point`'s values (slot `i` there at `lo`); empty where
    /// the first is past the second. Each comparison linear in the slot bounds it at the
    /// block's lane part most in its favour; a conjunction keeps what all its parts allow, a
    /// disjunction what any does. Outside the range no lane holds, so a walk skips those
    /// values without changing what it visits.
    pub fn slot_range(&self, point: &[i128], i: usize, lo: i128, hi: i128) -> (i128, i128) {
        self.node_range(&self.node, point, i, (lo, hi))
    }

    fn node_range(&self, n: &Node, point: &[i128], i: usize, all: (i128, i128)) -> (i128, i128) {
        let meet = |a: (i128, i128), b: (i128, i128)| (a.0.max(b.0), a.1.min(b.1));
        match n {
            Node::Ge(f) => self.test_range(*f, Sense::NonNegative, point, i, all),
            Node::Not(x) => match **x {
                Node::Ge(f) => self.test_range(f, Sense::Negative, point, i, all),
                _ => all,
            },
            // zero somewhere: at least zero at the greatest lane, at most zero at the least
            Node::Eq(f) => meet(
                self.test_range(*f, Sense::NonNegative, point, i, all),
                self.test_range(*f, Sense::NonPositive, point, i, all),
            ),
            Node::And(a, b) => {
                let r = self.node_range(a, point, i, all);
                if r.0 > r.1 {
                    return r;
                }
                meet(r, self.node_range(b, point, i, all))
            }
            Node::Or(a, b) => {
                let (x, y) = (
                    self.node_range(a, point, i, all),
                    self.node_range(b, point, i, all),
                );
                match (x.0 > x.1, y.0 > y.1) {
                    (true, _) => y,
                    (_, true) => x,
                    _ => (x.0.min(y.0), x.1.max(y.1)),
                }
            }
            Node::True => all,
        }
    }

    /// The values of slot `i` in `all` (it is at `all.0` in `point`) where form `f` meets
    /// `sense` at some lane; `all` where the form reads the slot in a floor.
    fn test_range(
        &self,
        f: usize,
        sense: Sense,
        point: &[i128],
        i: usize,
        all: (i128, i128),
    ) -> (i128, i128) {
        let form = &self.forms[f];
        let Some(a) = form.point.slot_coef(i) else {
            return all;
        };
        // a lane part that reads the point costs an evaluation per thread: worth it where
        // the sweep would visit as many warps
        let threads = self.block.iter().product::<u64>();
        let sweep = (all.1 - all.0 + 1).saturating_mul(i128::from(threads.div_ceil(32)));
        let extremes = match self.extremes[f] {
            Some(e) => Some(e),
            None if sweep >= i128::from(threads) => form.lane_extremes_at(point, i, self.block),
            None => None,
        };
        let Some((least, most)) = extremes else {
            return all;
        };
        let base = form.base(point);
        // as `top + a·d >= 0` at slot i = all.0 + d, at the lane most in its favour
        // (`v < 0` is `-v - 1 >= 0`, `v <= 0` is `-v >= 0`)
        let (top, a) = match sense {
            Sense::NonNegative => (base.checked_add(most), a),
            Sense::Negative => (base.checked_add(least).map(|v| -v - 1), -a),
            Sense::NonPositive => (base.checked_add(least).map(|v| -v), -a),
        };
        let Some(top) = top else {
            return all;
        };
        let lo = all.0;
        match a.signum() {
            0 if top < 0 => (lo, lo - 1),
            0 => all,
            // d >= ceil(-top / a)
            1 => {
                let d = (-top).div_euclid(a) + i128::from((-top).rem_euclid(a) != 0);
                (all.0.max(lo.saturating_add(d)), all.1)
            }
            // d <= floor(top / -a)
            _ => (all.0, all.1.min(lo.saturating_add(top.div_euclid(-a)))),
        }
    }

    fn node(
        c: &Cond,
        block: [u64; 3],
        resolve: &dyn Fn(&str) -> Option<Var>,
        forms: &mut Vec<SplitForm>,
    ) -> Option<Node> {
        let mut leaf = |e: &LinExpr| -> Option<usize> {
            forms.push(SplitForm::new(Lin::compile(e, resolve)?, block));
            Some(forms.len() - 1)
        };
        Some(match c {
            Cond::Ge(e) => Node::Ge(leaf(e)?),
            Cond::Eq(e) => Node::Eq(leaf(e)?),
            Cond::Not(x) => Node::Not(Box::new(Self::node(x, block, resolve, forms)?)),
            Cond::And(a, b) => Node::And(
                Box::new(Self::node(a, block, resolve, forms)?),
                Box::new(Self::node(b, block, resolve, forms)?),
            ),
            Cond::Or(a, b) => Node::Or(
                Box::new(Self::node(a, block, resolve, forms)?),
                Box::new(Self::node(b, block, resolve, forms)?),
            ),
            Cond::True => Node::True,
        })
    }

    /// The point parts of every form at `point` (into `bases`), once per point.
    pub fn bases(&self, point: &[i128], bases: &mut Vec<i128>) {
        bases.clear();
        bases.extend(self.forms.iter().map(|f| f.base(point)));
    }

    /// Bit `l` set for each lane `l` of warp `w` (threads 32·w …) where the condition holds,
    /// given the point's `bases`; lanes past the block's last thread are clear.
    pub fn warp_mask(&self, point: &[i128], bases: &[i128], w: u64) -> u32 {
        let threads = self.block.iter().product::<u64>();
        let first = 32 * w;
        let n = threads.saturating_sub(first).min(32);
        let valid = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
        let leaf = |i: usize, eq: bool| -> u32 {
            if let Some((v, step)) = self.forms[i].warp_steps(point, w) {
                return progression_mask(bases[i] + v, step, eq);
            }
            let mut m = 0u32;
            self.forms[i].for_lanes(bases[i], point, first, n, self.block, |l, v| {
                if (eq && v == 0) || (!eq && v >= 0) {
                    m |= 1 << l;
                }
            });
            m
        };
        fn go(n: &Node, leaf: &dyn Fn(usize, bool) -> u32, valid: u32) -> u32 {
            match n {
                Node::Ge(i) => leaf(*i, false),
                Node::Eq(i) => leaf(*i, true),
                Node::Not(x) => !go(x, leaf, valid) & valid,
                Node::And(a, b) => {
                    let m = go(a, leaf, valid);
                    if m == 0 {
                        0
                    } else {
                        m & go(b, leaf, valid)
                    }
                }
                Node::Or(a, b) => {
                    let m = go(a, leaf, valid);
                    if m == valid {
                        m
                    } else {
                        m | go(b, leaf, valid)
                    }
                }
                Node::True => valid,
            }
        }
        go(&self.node, &leaf, valid) & valid
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::ops::Not;

    fn v(n: &str) -> LinExpr {
        LinExpr::var(n)
    }

    /// `Cond::eval` of `c` at the point `[ctaid_x, k, n]` and the thread `tid`.
    fn holds(c: &Cond, point: [i128; 3], tid: [u64; 3]) -> bool {
        let env: BTreeMap<&str, i128> = [
            ("ctaid_x", point[0]),
            ("k", point[1]),
            ("n", point[2]),
            ("tid_x", tid[0] as i128),
            ("tid_y", tid[1] as i128),
            ("tid_z", tid[2] as i128),
        ]
        .into();
        c.eval(&|s| env.get(s).copied()).unwrap()
    }

    /// Every lane's truth from the mask equals `Cond::eval` at that lane, for a guard with a
    /// floor that mixes the thread and the point, a disequality and a disjunction.
    #[test]
    fn masks_agree_with_cond_eval() {
        let block = [8, 5, 2];
        let x = v("ctaid_x").scale(8).add(&v("tid_x"));
        let mixed = x.add(&v("k").scale(3)).floor_div(4);
        let c = Cond::Ge(v("n").sub(&x).add_const(-1))
            .and(Cond::Eq(mixed.sub(&v("tid_y"))).not())
            .and(Cond::Ge(v("tid_z").add_const(-1)).or(Cond::Ge(v("k").add_const(-2))));
        let slots: Vec<String> = ["ctaid_x", "k", "n"].map(String::from).to_vec();
        let prog = CondProgram::compile(&c, block, &resolver(&slots)).unwrap();
        let mut bases = Vec::new();
        for (cx, k, n) in [(0, 0, 5), (1, 3, 13), (2, 1, 100), (3, 2, 0)] {
            let point = [cx, k, n];
            prog.bases(&point, &mut bases);
            for w in 0..3 {
                let m = prog.warp_mask(&point, &bases, w);
                for l in 0..32u64 {
                    let t = 32 * w + l;
                    let want = t < 80 && holds(&c, point, tid_of(t, block));
                    assert_eq!(m >> l & 1 == 1, want, "point {point:?} thread {t}");
                }
            }
        }
    }

    /// A guard with a floor of the point and the thread together, as clang's 32-bit wrap of a
    /// global index (`x - 2^s·floor((x + 1) / 2^s) < n`, with a small `s` so that the floor
    /// changes inside some warps): every lane's truth from the mask, through the warps where
    /// the floor is one value and those where it is not, equals `Cond::eval`, for a block whose
    /// last warp is partial. Also the lane values `for_lanes` gives, and the progression
    /// `lanes_progression` gives for a whole warp, lane by lane.
    #[test]
    fn floors_of_point_and_thread_give_the_lanes_cond_eval_gives() {
        let block = [40, 2, 1];
        let x = v("ctaid_x")
            .scale(80)
            .add(&v("tid_y").scale(40))
            .add(&v("tid_x"));
        let wrap = x.add_const(1).floor_div(64);
        let wrapped = x.sub(&wrap.scale(64));
        let c = Cond::Ge(v("n").sub(&wrapped).add_const(-1)).and(
            Cond::Eq(wrap.sub(&v("k")))
                .not()
                .or(Cond::Ge(v("tid_x").add_const(-20))),
        );
        let slots: Vec<String> = ["ctaid_x", "k", "n"].map(String::from).to_vec();
        let prog = CondProgram::compile(&c, block, &resolver(&slots)).unwrap();
        assert!(
            prog.forms.iter().any(|f| matches!(f.lane, Lane::Floors(_))),
            "the floor is taken apart"
        );
        let mut bases = Vec::new();
        let mut whole_warps = 0;
        let mut progressions = 0;
        for cx in 0..12 {
            for (k, n) in [(0, 30), (1, 63), (2, 10), (0, 64)] {
                let point = [cx, k, n];
                prog.bases(&point, &mut bases);
                for w in 0..3u64 {
                    whole_warps += usize::from(
                        prog.forms
                            .iter()
                            .filter_map(|f| match &f.lane {
                                Lane::Floors(fl) => Some(fl.warp_offset(&point, w).is_some()),
                                _ => None,
                            })
                            .all(|b| b),
                    );
                    let m = prog.warp_mask(&point, &bases, w);
                    for l in 0..32u64 {
                        let t = 32 * w + l;
                        let want = t < 80 && holds(&c, point, tid_of(t, block));
                        assert_eq!(m >> l & 1 == 1, want, "point {point:?} thread {t}");
                    }
                    for (f, base) in prog.forms.iter().zip(&bases) {
                        let n_lanes = 80u64.saturating_sub(32 * w).min(32);
                        let value =
                            |l: u64| base + f.at(0, &point, tid_of(32 * w + l, block), block);
                        f.for_lanes(*base, &point, 32 * w, n_lanes, block, |l, got| {
                            assert_eq!(got, value(l), "lane {l}");
                        });
                        let lanes: Vec<crate::domains::Lane> = (0..n_lanes)
                            .map(|l| (l as u32, tid_of(32 * w + l, block)))
                            .collect();
                        if let Some((first, step, n)) =
                            f.lanes_progression(*base, &point, &lanes, block)
                        {
                            progressions += usize::from(matches!(f.lane, Lane::Floors(_)));
                            assert_eq!(u64::from(n), n_lanes);
                            for l in 0..n_lanes {
                                assert_eq!(first + step * l as i128, value(l), "lane {l}");
                            }
                        }
                    }
                }
            }
        }
        // both kinds of warp were met: the floor one value across it, and not
        assert!(whole_warps > 0 && whole_warps < 12 * 4 * 3, "{whole_warps}");
        assert!(progressions > 0, "a floor's warp gave its progression");
    }

    /// The range `slot_range` gives for counter `k` (slot 2) at `ctaid_x = cx`, `n`, over
    /// -5..=60, checked against every lane's mask: no lane outside it holds.
    fn checked_range(prog: &CondProgram, cx: i128, n: i128) -> (i128, i128) {
        let (from, to) = prog.slot_range(&[cx, n, -5], 2, -5, 60);
        assert!(from >= -5 && to <= 60);
        let mut bases = Vec::new();
        for k in -5..=60 {
            let point = [cx, n, k];
            prog.bases(&point, &mut bases);
            if (0..2).any(|w| prog.warp_mask(&point, &bases, w) != 0) {
                assert!(
                    (from..=to).contains(&k),
                    "{cx} {n}: k = {k} outside {from}..={to}"
                );
            }
        }
        (from, to)
    }

    /// Outside the range `slot_range` gives for a counter, no lane of any warp holds, and the
    /// range is the tight one the usable tests give (a triangle's `k <= tid_x + 8·ctaid_x`,
    /// `k >= 2`, `2k - n - 1 < 0`, and `k == 40 or k <= 31`), beside a disjunction and a
    /// floor that mixes lane and counter, which it cannot use.
    #[test]
    fn a_counter_range_leaves_out_only_points_where_no_lane_holds() {
        let block = [8, 5, 1];
        let x = v("ctaid_x").scale(8).add(&v("tid_x"));
        let c = Cond::Ge(x.sub(&v("k")))
            .and(Cond::Ge(v("k").add_const(-2)))
            .and(Cond::Ge(v("k").scale(2).sub(&v("n")).add_const(-1)).not())
            .and(Cond::Ge(v("tid_y").add_const(-1)).or(Cond::Ge(v("k").add_const(-30))))
            .and(Cond::Eq(v("k").add_const(-40)).or(Cond::Ge(v("k").scale(-1).add_const(31))))
            .and(Cond::Ge(v("k").add(&v("tid_y")).floor_div(3).add_const(-1)));
        let slots: Vec<String> = ["ctaid_x", "n", "k"].map(String::from).to_vec();
        let prog = CondProgram::compile(&c, block, &resolver(&slots)).unwrap();
        for (cx, n) in [(0i128, 100i128), (1, 20), (3, 7), (2, 1000), (5, 1000)] {
            let to = (8 * cx + 7).min(n.div_euclid(2)).min(40);
            assert_eq!(checked_range(&prog, cx, n), (2, to), "{cx} {n}");
        }
    }

    /// A lane part that reads the point (a floor of thread and block index) bounds a counter
    /// at its extremes over the block's threads at that point: `k <= floor(x / 2)` for
    /// `x = tid_x + 8·ctaid_x` gives `k <= 4·ctaid_x + 3`.
    #[test]
    fn a_lane_part_that_reads_the_point_bounds_a_counter_too() {
        let block = [8, 5, 1];
        let x = v("ctaid_x").scale(8).add(&v("tid_x"));
        let c = Cond::Ge(x.floor_div(2).sub(&v("k")));
        let slots: Vec<String> = ["ctaid_x", "n", "k"].map(String::from).to_vec();
        let prog = CondProgram::compile(&c, block, &resolver(&slots)).unwrap();
        for cx in [0, 1, 7] {
            assert_eq!(checked_range(&prog, cx, 0), (-5, 4 * cx + 3), "{cx}");
        }
    }

    /// `e` as a split form over the point `[ctaid_x]`.
    fn form_over_ctaid_x(e: LinExpr, block: [u64; 3]) -> SplitForm {
        let slots: Vec<String> = vec!["ctaid_x".into()];
        let lin = Lin::compile(&e, &resolver(&slots)).unwrap();
        SplitForm::new(lin, block)
    }

    /// The 32 lanes of the warp whose first thread is `first`.
    fn warp_lanes(first: u64, block: [u64; 3]) -> Vec<crate::domains::Lane> {
        (0..32)
            .map(|l| (l as u32, tid_of(first + l, block)))
            .collect()
    }

    /// A whole warp's values step evenly for `4·tid_x + 100·ctaid_x` on a block 64 wide (warp
    /// 1: from 128 + the point's 100, by 4), and for `tid_x + 1000·tid_y` on a block 16 wide
    /// they do not (a warp spans two rows); a run of a warp's lanes cut at an end is one of its
    /// own, one with a lane masked off inside it is not, nor are lanes that start mid-warp.
    /// Each progression gives the values lane by lane.
    #[test]
    fn a_whole_warp_whose_values_step_evenly_gives_its_progression() {
        let (form, lanes) = (form_over_ctaid_x, warp_lanes);
        let row = [64, 2, 1];
        let f = form(v("tid_x").scale(4).add(&v("ctaid_x").scale(100)), row);
        let base = f.base(&[1]);
        assert_eq!(
            f.lanes_progression(base, &[], &lanes(32, row), row),
            Some((228, 4, 32))
        );
        for (l, tid) in lanes(32, row) {
            assert_eq!(f.at(base, &[1], tid, row), 228 + 4 * i128::from(l));
        }
        // a run of lanes cut at either end is a progression of its own; one with a hole is not,
        // nor lanes that start mid-warp
        let masked = &lanes(32, row)[1..];
        assert_eq!(
            f.lanes_progression(base, &[], masked, row),
            Some((232, 4, 31))
        );
        assert_eq!(
            f.lanes_progression(base, &[], &lanes(32, row)[..5], row),
            Some((228, 4, 5))
        );
        let holed: Vec<_> = lanes(32, row).into_iter().filter(|l| l.0 != 7).collect();
        assert_eq!(f.lanes_progression(base, &[], &holed, row), None);
        assert_eq!(f.lanes_progression(base, &[], &lanes(16, row), row), None);
        let narrow = [16, 4, 1];
        let g = form(v("tid_x").add(&v("tid_y").scale(1000)), narrow);
        assert_eq!(g.lanes_progression(0, &[], &lanes(0, narrow), narrow), None);
    }

    /// A warp of a 2-D or 3-D block steps evenly in runs (its rows): the runs give every
    /// active lane's value, as `at` does lane by lane, for whole warps, warps cut at either end,
    /// a stride of either sign and a lane part under a floor; lanes with a hole or a warp in
    /// more runs than a walk takes at once give none.
    #[test]
    fn a_warp_in_rows_gives_each_row_as_a_run() {
        let (form, lanes) = (form_over_ctaid_x, warp_lanes);
        let runs_of = |f: &SplitForm, point: &[i128], lanes: &[crate::domains::Lane], block| {
            let mut runs = Vec::new();
            let base = f.base(point);
            f.for_lane_pieces(base, point, lanes, block, |first, step, n| {
                runs.push((first, step, n))
            })
            .then_some(runs)
        };
        let by_lane = |f: &SplitForm, point: &[i128], lanes: &[crate::domains::Lane], block| {
            let base = f.base(point);
            lanes
                .iter()
                .map(|(_, tid)| f.at(base, point, *tid, block))
                .collect::<Vec<_>>()
        };
        let flat = |runs: Vec<(i128, i128, u32)>| -> Vec<i128> {
            runs.iter()
                .flat_map(|&(first, step, n)| (0..i128::from(n)).map(move |k| first + k * step))
                .collect()
        };
        let wrap = v("ctaid_x").scale(256).add(&v("tid_x")).floor_div(1 << 20);
        for (block, e) in [
            (
                [16, 16, 1],
                v("tid_x").scale(4).add(&v("tid_y").scale(4096)),
            ),
            (
                [8, 8, 4],
                v("tid_x")
                    .scale(8)
                    .add(&v("tid_y").scale(-512))
                    .add(&v("tid_z").scale(1 << 16)),
            ),
            (
                [16, 16, 1],
                v("tid_x")
                    .scale(4)
                    .add(&wrap.scale(64))
                    .add(&v("tid_y").scale(4096)),
            ),
        ] {
            let f = form(e.add(&v("ctaid_x").scale(100_000)), block);
            for point in [[0], [3], [(1 << 12) - 1]] {
                for w in [0, 32, 64] {
                    let all = lanes(w, block);
                    for cut in [&all[..], &all[3..], &all[..20], &all[5..9]] {
                        let runs = runs_of(&f, &point, cut, block).expect("runs");
                        assert_eq!(
                            flat(runs),
                            by_lane(&f, &point, cut, block),
                            "{block:?} {w} {point:?}"
                        );
                    }
                }
            }
            let holed: Vec<_> = lanes(0, block).into_iter().filter(|l| l.0 != 7).collect();
            assert_eq!(runs_of(&f, &[1], &holed, block), None);
        }
        // a warp of 16 rows of two threads each is more runs than a walk takes at once
        let narrow = [2, 64, 1];
        let g = form(v("tid_x").scale(4).add(&v("tid_y").scale(4096)), narrow);
        assert_eq!(runs_of(&g, &[0], &lanes(0, narrow), narrow), None);
        assert_eq!(by_lane(&g, &[0], &lanes(0, narrow), narrow)[3], 4096 + 4);
    }

    /// The mask of a progression is the mask lane by lane, for steps of either sign and none,
    /// starts inside and outside the warp, and steps that do and do not divide them.
    #[test]
    fn a_progression_mask_is_the_lanes_that_hold() {
        let mut cases = 0;
        for first in -200i128..=200 {
            for step in -9i128..=9 {
                for eq in [false, true] {
                    let mut want = 0u32;
                    for l in 0..32 {
                        let v = first + l * step;
                        if (eq && v == 0) || (!eq && v >= 0) {
                            want |= 1 << l;
                        }
                    }
                    let got = progression_mask(first, step, eq);
                    assert_eq!(got, want, "{first} {step} {eq}");
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, 401 * 19 * 2);
    }

    #[test]
    fn an_unknown_variable_does_not_compile() {
        let slots = vec!["k".to_string()];
        assert!(Lin::compile(&v("m"), &resolver(&slots)).is_none());
        let l = Lin::compile(&v("k").scale(3).add(&v("tid_y")), &resolver(&slots)).unwrap();
        assert_eq!(l.eval(&[4], [0, 2, 0]), 14);
        let (p, lane) = l.split();
        assert_eq!((p.eval(&[4], [0; 3]), lane.eval(&[0], [0, 2, 0])), (12, 2));
    }
}
