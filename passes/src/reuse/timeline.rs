//! Where in its thread's run a walked point lies: the progress the reuse profile measures
//! distances in.
//!
//! A thread runs its loops one after another, with the accesses between them, in program
//! order. Each group of accesses (the same loop counters and domain) takes the part of the
//! thread's run that its place in the loop nest gives it: a loop's iterations follow one
//! another, and within one iteration its own accesses and inner loops come in program order,
//! each taking as much of the iteration as it makes accesses. Two loops that read the same row
//! one after the other (a softmax's max pass and its normalising pass) are then a whole loop
//! apart, where each group's own loop position put them side by side and took the second
//! read for an L2 hit however much data the first loop streamed in between.
//!
//! A single loop nest maps to the same progress as the position of its counter tuple in
//! their box, which is what the profile measured before groups were placed.

use std::cell::RefCell;
use std::collections::BTreeMap;

/// One group of accesses as the timeline sees it.
pub struct GroupShape<'a> {
    /// Its loop counters, outermost first.
    pub counters: &'a [String],
    /// Each counter's range over the launch; `None` for a group that runs nowhere.
    pub ranges: Option<&'a [(i128, i128)]>,
    /// How many accesses one of its points makes.
    pub accesses: usize,
    /// The program position of its first access: where it comes among its siblings.
    pub first_inst: usize,
}

/// One loop level of a group's place: its counter's first value and trips, the accesses one
/// iteration of it makes, and where its first iteration starts within the enclosing
/// iteration.
#[derive(Clone, Debug, PartialEq)]
struct Level {
    lo: i128,
    trips: f64,
    iteration: f64,
    offset: f64,
}

/// A group's place in its thread's run.
#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    levels: Vec<Level>,
    /// Where its accesses come within the innermost iteration.
    inner: f64,
    /// The thread's whole run, in accesses.
    total: f64,
}

impl Timeline {
    /// The progress (0 to 1) of a point given by its slots: `ctaid_x`, `ctaid_y`, `ctaid_z`,
    /// then the group's counters.
    pub fn at_slots(&self, slots: &[i128]) -> f64 {
        if self.total <= 0.0 {
            return 0.0;
        }
        let mut t = self.inner;
        for (k, l) in self.levels.iter().enumerate() {
            let v = slots.get(3 + k).copied().unwrap_or(l.lo);
            t += l.offset + (v - l.lo).max(0) as f64 * l.iteration;
        }
        (t / self.total).clamp(0.0, 1.0)
    }

    /// Where the group's first point lies, and the share of the run its outermost loop spans:
    /// a progress `p` is `(p - start) / span` of the way through the group's own loops.
    pub fn span(&self) -> (f64, f64) {
        if self.total <= 0.0 {
            return (0.0, 1.0);
        }
        let start = self.inner + self.levels.iter().map(|l| l.offset).sum::<f64>();
        let span = match self.levels.first() {
            Some(l) => l.iteration * l.trips / self.total,
            None => 1.0,
        };
        (start / self.total, if span > 0.0 { span } else { 1.0 })
    }
}

/// The timeline of each group, in order.
pub fn timelines(groups: &[GroupShape]) -> Vec<Timeline> {
    // each counter's first value and trips, over every group that runs it
    let mut loops: BTreeMap<&str, (i128, f64)> = BTreeMap::new();
    for g in groups {
        let Some(ranges) = g.ranges else { continue };
        for (c, (lo, hi)) in g.counters.iter().zip(ranges) {
            let trips = (hi - lo + 1).max(0) as f64;
            let e = loops.entry(c.as_str()).or_insert((*lo, trips));
            *e = (e.0.min(*lo), e.1.max(trips));
        }
    }
    let nest = Nest {
        groups,
        loops: &loops,
        items: RefCell::default(),
        iterations: RefCell::default(),
    };
    groups
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if g.ranges.is_none() {
                return Timeline {
                    levels: Vec::new(),
                    inner: 0.0,
                    total: 0.0,
                };
            }
            let mut levels = Vec::new();
            for d in 0..g.counters.len() {
                let path = &g.counters[..d];
                let item = Item::Loop(&g.counters[d]);
                let (lo, trips) = loops
                    .get(g.counters[d].as_str())
                    .copied()
                    .unwrap_or((0, 0.0));
                levels.push(Level {
                    lo,
                    trips,
                    iteration: nest.iteration(&g.counters[..=d]),
                    offset: nest.before(path, &item),
                });
            }
            Timeline {
                levels,
                inner: nest.before(g.counters, &Item::Group(i)),
                total: nest.iteration(&[]),
            }
        })
        .collect()
}

/// What one iteration of a loop (or the thread's run, at the top) is made of.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Item<'a> {
    Group(usize),
    Loop(&'a String),
}

/// An iteration's items, each with the program position it starts at, in that order.
type Items<'a> = Vec<(usize, Item<'a>)>;

/// The loop nest the groups make, each iteration's items and accesses found once: a kernel
/// may have thousands of groups, and every group asks about each loop around it.
struct Nest<'a, 'b> {
    groups: &'b [GroupShape<'a>],
    loops: &'b BTreeMap<&'b str, (i128, f64)>,
    items: RefCell<BTreeMap<Vec<String>, Items<'a>>>,
    iterations: RefCell<BTreeMap<Vec<String>, f64>>,
}

impl<'a> Nest<'a, '_> {
    /// The items of one iteration of the loop nest `path`, in program order.
    fn items(&self, path: &[String]) -> Items<'a> {
        if let Some(items) = self.items.borrow().get(path) {
            return items.clone();
        }
        let mut first: BTreeMap<Item<'a>, usize> = BTreeMap::new();
        for (i, g) in self.groups.iter().enumerate() {
            if g.ranges.is_none() || !g.counters.starts_with(path) {
                continue;
            }
            let item = match g.counters.get(path.len()) {
                None => Item::Group(i),
                Some(c) => Item::Loop(c),
            };
            let at = first.entry(item).or_insert(g.first_inst);
            *at = (*at).min(g.first_inst);
        }
        let mut items: Items<'a> = first.into_iter().map(|(i, at)| (at, i)).collect();
        items.sort();
        self.items.borrow_mut().insert(path.to_vec(), items.clone());
        items
    }

    /// Accesses one iteration of the loop nest `path` makes (the whole run for `[]`).
    fn iteration(&self, path: &[String]) -> f64 {
        if let Some(n) = self.iterations.borrow().get(path) {
            return *n;
        }
        let n = self
            .items(path)
            .iter()
            .map(|(_, item)| self.work(path, item))
            .sum();
        self.iterations.borrow_mut().insert(path.to_vec(), n);
        n
    }

    /// Accesses an item of an iteration of `path` makes.
    fn work(&self, path: &[String], item: &Item) -> f64 {
        match item {
            Item::Group(i) => self.groups[*i].accesses as f64,
            Item::Loop(c) => {
                let trips = self.loops.get(c.as_str()).map_or(0.0, |l| l.1);
                let mut inner = path.to_vec();
                inner.push((*c).clone());
                trips * self.iteration(&inner)
            }
        }
    }

    /// Accesses an iteration of `path` makes before `item` starts.
    fn before(&self, path: &[String], item: &Item) -> f64 {
        let mut sum = 0.0;
        for (_, it) in self.items(path) {
            if &it == item {
                break;
            }
            sum += self.work(path, &it);
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-12, "{a} != {b}");
    }

    /// One loop nest: a point's progress is its counter tuple's place in their box, as each
    /// group's own loops gave it before groups were placed.
    #[test]
    fn a_single_nest_progresses_as_its_counters() {
        let c = names(&["k0", "k1"]);
        let ranges = [(0, 3), (2, 11)];
        let t = timelines(&[GroupShape {
            counters: &c,
            ranges: Some(&ranges),
            accesses: 3,
            first_inst: 5,
        }]);
        for (i, j) in [(0, 2), (1, 7), (3, 11)] {
            let own = (i as f64 * 10.0 + (j - 2) as f64) / 40.0;
            close(t[0].at_slots(&[0, 0, 0, i, j]), own);
        }
        assert_eq!(t[0].span(), (0.0, 1.0));
    }

    /// Two loops one after the other, the second twice as long: the second starts where the
    /// first ends, a third of the way through; an access after both comes at the end.
    #[test]
    fn sibling_loops_follow_each_other_in_program_order() {
        let (a, b) = (names(&["k1"]), names(&["k2"]));
        let (ra, rb) = ([(0, 99)], [(0, 199)]);
        let shapes = [
            // listed out of program order: the instructions' positions decide
            GroupShape {
                counters: &b,
                ranges: Some(&rb),
                accesses: 1,
                first_inst: 20,
            },
            GroupShape {
                counters: &a,
                ranges: Some(&ra),
                accesses: 1,
                first_inst: 10,
            },
            GroupShape {
                counters: &[],
                ranges: Some(&[]),
                accesses: 1,
                first_inst: 30,
            },
        ];
        let t = timelines(&shapes);
        let total = 100.0 + 200.0 + 1.0;
        close(t[1].at_slots(&[0, 0, 0, 0]), 0.0);
        close(t[1].at_slots(&[0, 0, 0, 99]), 99.0 / total);
        close(t[0].at_slots(&[0, 0, 0, 0]), 100.0 / total);
        close(t[0].at_slots(&[0, 0, 0, 199]), 299.0 / total);
        close(t[2].at_slots(&[0, 0, 0]), 300.0 / total);
        // the second loop's own progress: (p - start) / span
        let (start, span) = t[0].span();
        close(start, 100.0 / total);
        close(span, 200.0 / total);
    }

    /// An outer loop around two inner loops: each outer trip runs both inner loops in turn,
    /// and an access of the outer body between them sits between them.
    #[test]
    fn inner_loops_take_turns_in_each_outer_trip() {
        let (a, mid, b) = (names(&["k0", "k1"]), names(&["k0"]), names(&["k0", "k2"]));
        let (ra, rm, rb) = ([(0, 1), (0, 9)], [(0, 1)], [(0, 4)]);
        let rb = [(0, 1), rb[0]];
        let t = timelines(&[
            GroupShape {
                counters: &a,
                ranges: Some(&ra),
                accesses: 2,
                first_inst: 1,
            },
            GroupShape {
                counters: &mid,
                ranges: Some(&rm),
                accesses: 1,
                first_inst: 2,
            },
            GroupShape {
                counters: &b,
                ranges: Some(&rb),
                accesses: 1,
                first_inst: 3,
            },
        ]);
        // one outer trip: 10 × 2 + 1 + 5 × 1 = 26 accesses, of 52
        close(t[0].at_slots(&[0, 0, 0, 1, 3]), (26.0 + 6.0) / 52.0);
        close(t[1].at_slots(&[0, 0, 0, 1]), (26.0 + 20.0) / 52.0);
        close(t[2].at_slots(&[0, 0, 0, 0, 4]), (21.0 + 4.0) / 52.0);
    }
}
