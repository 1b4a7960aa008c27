//! A block's runs put in the tally's order ([`SectorRun::tally_key`]: progress, then loads
//! before stores, then group), exactly as a stable sort by that key puts them.
//!
//! Why not the sort itself: a walk hands over each group's runs in progress order, but a
//! group's loads and stores alternate at each progress, so the standard stable sort finds no
//! long ascending stretches and sorts from scratch: a row-wise softmax's walk spent half its
//! walking thread there (merged, its `predict` took 14 % less). Split by (group, direction),
//! each part is in progress order already, and merging the parts is linear. Where the
//! stretches are long, the standard sort finds them, and is left to it.

use super::profile::SectorRun;

/// Parts (group, direction) this merges at most; more, and it sorts.
const MOST_PARTS: usize = 32;
/// Runs an ascending stretch holds on average, at least, for the standard sort to be left to
/// it.
const LONG_STRETCH: usize = 64;

/// Buffers reused from block to block.
#[derive(Default)]
pub struct TallyOrder {
    parts: Vec<Vec<SectorRun>>,
    heads: Vec<(usize, usize)>,
}

impl TallyOrder {
    /// Puts `runs` in the order `runs.sort_by_key(SectorRun::tally_key)` gives.
    pub fn sort(&mut self, runs: &mut [SectorRun]) {
        let descents = runs
            .windows(2)
            .filter(|w| w[1].tally_key() < w[0].tally_key())
            .count();
        if descents == 0 {
            return;
        }
        // Long ascending stretches (a matrix-vector product's loop, then its store) the
        // standard sort finds and merges itself, faster than this merge, which copies twice;
        // it takes as long a stretch as it looks for (about √n, at least 64 runs).
        let long = LONG_STRETCH.max(runs.len().isqrt());
        if runs.len() / (descents + 1) >= long || !self.split(runs) {
            runs.sort_by_key(SectorRun::tally_key);
            return;
        }
        // Equal keys are only ever within one part (the key holds the group and direction),
        // in their order there: the merge keeps them as a stable sort does. (part, next run)
        // of the parts not yet used up:
        self.heads.clear();
        self.heads.extend(
            (0..self.parts.len())
                .filter(|&p| !self.parts[p].is_empty())
                .map(|p| (p, 0)),
        );
        // A part's runs go over in stretches: all those that come before the next run of any
        // other part at once (a warp's lanes at one progress, one sector each, are 32 runs of
        // one part), so the heads are compared once a stretch, not once a run.
        let mut out = 0;
        while !self.heads.is_empty() {
            let (mut best, mut second) = ((u64::MAX, 0), u64::MAX);
            for (h, &(p, next)) in self.heads.iter().enumerate() {
                let key = self.parts[p][next].tally_key();
                if key < best.0 {
                    second = best.0;
                    best = (key, h);
                } else if key < second {
                    second = key;
                }
            }
            let (p, next) = self.heads[best.1];
            let part = &self.parts[p];
            let end = next
                + part[next..]
                    .iter()
                    .take_while(|r| r.tally_key() < second)
                    .count();
            runs[out..out + (end - next)].copy_from_slice(&part[next..end]);
            out += end - next;
            if end == part.len() {
                self.heads.swap_remove(best.1);
            } else {
                self.heads[best.1].1 = end;
            }
        }
    }

    /// Splits `runs` into its parts, each in their order; false where a part is not in
    /// progress order or there are too many parts to merge.
    fn split(&mut self, runs: &[SectorRun]) -> bool {
        for part in &mut self.parts {
            part.clear();
        }
        for r in runs {
            let p = 2 * usize::from(r.group) + usize::from(r.writes);
            if p >= MOST_PARTS {
                return false;
            }
            if self.parts.len() <= p {
                self.parts.resize_with(p + 1, Vec::new);
            }
            let part = &mut self.parts[p];
            if part.last().is_some_and(|l| l.progress > r.progress) {
                return false;
            }
            part.push(*r);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn run((progress, writes, group, first): (u32, bool, u16, i64)) -> SectorRun {
        SectorRun {
            progress,
            writes,
            group,
            first,
            last: first,
            stride: 1,
        }
    }

    proptest! {
        /// Runs in a walk's order (each group's in progress order, loads and stores mixed,
        /// equal keys told apart by their sectors) come out as the stable sort puts them.
        #[test]
        fn merges_as_the_stable_sort_does(
            groups in prop::collection::vec(
                prop::collection::vec((0u32..6, any::<bool>(), 0i64..1000), 0..40), 1..16),
        ) {
            let mut runs = Vec::new();
            for (g, mut touches) in groups.into_iter().enumerate() {
                touches.sort_by_key(|t| t.0);
                runs.extend(touches.into_iter().map(|(p, w, s)| run((p, w, g as u16, s))));
            }
            let mut want = runs.clone();
            want.sort_by_key(SectorRun::tally_key);
            let mut order = TallyOrder::default();
            // merged, not sorted
            prop_assert!(order.split(&runs));
            order.sort(&mut runs);
            prop_assert_eq!(runs, want);
        }

        /// Any runs, in progress order or not, many groups or few: still the stable sort.
        #[test]
        fn any_runs_come_out_as_the_stable_sort_puts_them(
            runs in prop::collection::vec((0u32..6, any::<bool>(), 0u16..40, 0i64..1000), 0..80),
        ) {
            let mut runs: Vec<SectorRun> = runs.into_iter().map(run).collect();
            let mut want = runs.clone();
            want.sort_by_key(SectorRun::tally_key);
            let mut order = TallyOrder::default();
            order.sort(&mut runs);
            prop_assert_eq!(&runs, &want);
            // the buffers left from this block do not reach the next
            let mut again: Vec<SectorRun> = want.iter().rev().copied().collect();
            let mut want_again = again.clone();
            want_again.sort_by_key(SectorRun::tally_key);
            order.sort(&mut again);
            prop_assert_eq!(again, want_again);
        }
    }
}
