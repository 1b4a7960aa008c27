//! Sector → the (block, progress) of its last touch, for the tally: the map takes every touch
//! of a walk, so its cost is most of a walk's.
//!
//! Why pages: a warp's touches are mostly neighbouring sectors, and the blocks after it touch
//! the sectors next to those. A page of [`PAGE`] consecutive sectors, held as an array, takes
//! such a run with one hash lookup (none while the run stays in the page last used) and keeps
//! it in a few cache lines, where a map of single sectors hashes every touch and scatters its
//! entries over the whole table. Sectors touched far apart (a column walk of a wide matrix,
//! one sector per row) would leave each page nearly empty, so a page holds its sectors in a
//! plain map until [`DENSE_AT`] of them are there: no table costs more than a few times the
//! map's memory, whatever the access pattern.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Sectors a page holds.
const PAGE: usize = 128;
/// Distinct sectors of a page at which it is given its array.
const DENSE_AT: u32 = 16;

/// A (block, progress) pair; `EMPTY` marks a sector not touched (no walk reaches block
/// `u32::MAX`: the tally caps block numbers below it).
pub type Stamp = (u32, u32);
const EMPTY: Stamp = (u32::MAX, u32::MAX);

enum PageState {
    /// Sectors held in `SectorTable::sparse`, this many so far.
    Sparse(u32),
    /// Index into `SectorTable::dense`.
    Dense(u32),
}

pub struct SectorTable {
    pages: HashMap<i64, PageState, BuildHasherDefault<SectorHasher>>,
    /// Boxed, so the list grows without moving the arrays: a walk of a million sectors has
    /// some 8 MB of them, which a vector of arrays copied again at each doubling.
    #[allow(clippy::vec_box)]
    dense: Vec<Box<[Stamp; PAGE]>>,
    sparse: HashMap<i64, Stamp, BuildHasherDefault<SectorHasher>>,
    /// Dense pages used lately, and their indices, by a hash of the page: runs of touches
    /// stay in one page, and the lanes of an access that does not coalesce (a row each) come
    /// back to the same few hundred pages access after access.
    recent: Vec<(i64, u32)>,
}

impl Default for SectorTable {
    fn default() -> SectorTable {
        SectorTable {
            pages: HashMap::default(),
            dense: Vec::new(),
            sparse: HashMap::default(),
            recent: vec![(NO_PAGE, 0); 1 << RECENT_BITS],
        }
    }
}

/// `recent` holds 2^this pages.
const RECENT_BITS: u32 = 8;
/// No page's number (sectors are `i64`, pages 1/128 of them).
const NO_PAGE: i64 = i64::MIN;

impl SectorTable {
    /// Records `stamp` as the last touch of sector `s`; returns the one before, if any.
    pub fn insert(&mut self, s: i64, stamp: Stamp) -> Option<Stamp> {
        let (page, slot) = (
            s.div_euclid(PAGE as i64),
            s.rem_euclid(PAGE as i64) as usize,
        );
        if let Some(i) = self.cached(page) {
            return Self::swap(&mut self.dense[i][slot], stamp);
        }
        let state = self.pages.entry(page).or_insert(PageState::Sparse(0));
        match state {
            PageState::Dense(i) => {
                let i = *i as usize;
                self.remember(page, i);
                Self::swap(&mut self.dense[i][slot], stamp)
            }
            PageState::Sparse(n) => {
                let prev = self.sparse.insert(s, stamp);
                if prev.is_none() {
                    *n += 1;
                    if *n >= DENSE_AT {
                        let i = self.dense.len();
                        *state = PageState::Dense(i as u32);
                        let mut held = Box::new([EMPTY; PAGE]);
                        let first = page * PAGE as i64;
                        for (k, cell) in held.iter_mut().enumerate() {
                            if let Some(v) = self.sparse.remove(&(first + k as i64)) {
                                *cell = v;
                            }
                        }
                        self.dense.push(held);
                        self.remember(page, i);
                    }
                }
                prev
            }
        }
    }

    /// Records `stamp` as the last touch of each sector `first..=last`, and appends the one
    /// before of each to `prev`, in order: [`SectorTable::insert_run_with`] into a list, for
    /// the tests.
    #[cfg(test)]
    pub fn insert_run(
        &mut self,
        first: i64,
        last: i64,
        stamp: Stamp,
        prev: &mut Vec<Option<Stamp>>,
    ) {
        self.insert_run_with(first, last, stamp, |p| prev.push(p));
    }

    /// Records `stamp` as the last touch of each sector `first..=last`, and gives `seen` the
    /// one before of each, in order: a page at a time where the page is dense. The tally
    /// takes the touches where they are found, not through a list of them: a run is mostly a
    /// few sectors, and the list cost as much as the lookups.
    pub fn insert_run_with(
        &mut self,
        first: i64,
        last: i64,
        stamp: Stamp,
        mut seen: impl FnMut(Option<Stamp>),
    ) {
        let mut s = first;
        while s <= last {
            let page = s.div_euclid(PAGE as i64);
            let page_first = page * PAGE as i64;
            let end = last.min(page_first + (PAGE as i64 - 1));
            // a lone sector's page is looked up once, by `insert`
            let dense = match (self.cached(page), s == end) {
                (Some(i), _) => Some(i),
                (None, true) => None,
                (None, false) => self.dense_page(page),
            };
            match dense {
                Some(i) => {
                    let cells =
                        &mut self.dense[i][(s - page_first) as usize..=(end - page_first) as usize];
                    for c in cells {
                        seen(Self::swap(c, stamp));
                    }
                }
                None => {
                    for x in s..=end {
                        seen(self.insert(x, stamp));
                    }
                }
            }
            if end == last {
                break;
            }
            s = end + 1;
        }
    }

    /// The index of `page`'s array, if it has one.
    fn dense_page(&mut self, page: i64) -> Option<usize> {
        match self.pages.get(&page) {
            Some(PageState::Dense(i)) => {
                let i = *i as usize;
                self.remember(page, i);
                Some(i)
            }
            _ => None,
        }
    }

    fn recent_slot(page: i64) -> usize {
        ((page as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - RECENT_BITS)) as usize
    }

    /// `page`'s array, where it was used lately.
    fn cached(&self, page: i64) -> Option<usize> {
        let (p, i) = self.recent[Self::recent_slot(page)];
        (p == page).then_some(i as usize)
    }

    fn remember(&mut self, page: i64, i: usize) {
        self.recent[Self::recent_slot(page)] = (page, i as u32);
    }

    fn swap(cell: &mut Stamp, stamp: Stamp) -> Option<Stamp> {
        let prev = std::mem::replace(cell, stamp);
        (prev != EMPTY).then_some(prev)
    }
}

/// Hashes a sector or page number by a multiply-rotate: the maps take every touch of a walk,
/// and the standard SipHash is several times slower on them (the keys come from our own walk,
/// so flooding is no concern).
#[derive(Default)]
pub struct SectorHasher(u64);

impl Hasher for SectorHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table answers as a map of single sectors does, over dense runs, scattered sectors,
    /// negative sector numbers and pages that turn dense midway.
    #[test]
    fn answers_as_a_map_of_sectors_does() {
        let mut table = SectorTable::default();
        let mut map: HashMap<i64, Stamp> = HashMap::new();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for step in 0u32..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let s = match step % 4 {
                0 => (x % 5000) as i64,                 // dense
                1 => (x % 1000) as i64 * 977 - 400_000, // scattered, some negative
                2 => (1i64 << 39) + (step / 3) as i64,  // a streaming second buffer
                _ => (x % 64) as i64 * PAGE as i64 + 3, // one sector of each of 64 pages
            };
            let stamp = (step / 7, step);
            assert_eq!(table.insert(s, stamp), map.insert(s, stamp), "sector {s}");
        }
        assert!(!table.dense.is_empty() && !table.sparse.is_empty());
    }

    /// A run inserted at once answers as its sectors inserted one by one do, across pages,
    /// sparse and dense, and around zero.
    #[test]
    fn a_run_answers_as_its_sectors_do() {
        let (mut table, mut one_by_one) = (SectorTable::default(), SectorTable::default());
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut prev = Vec::new();
        for step in 0u32..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let first = (x % 3000) as i64 - 1000;
            let last = first + (x >> 40) as i64 % 300;
            prev.clear();
            table.insert_run(first, last, (step, step), &mut prev);
            let want: Vec<Option<Stamp>> = (first..=last)
                .map(|s| one_by_one.insert(s, (step, step)))
                .collect();
            assert_eq!(prev, want, "run {first}..={last}");
        }
        assert!(!table.dense.is_empty());
    }
}
