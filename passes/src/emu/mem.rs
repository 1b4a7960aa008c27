//! The emulator's memories. Why a tagged address map: PTX code mixes state-space addresses
//! (`ld.shared [%r]`, offsets inside one space) with generic addresses (`ld [%rd]`, after
//! `cvta`), so every space gets a window in one 64-bit generic address space and a generic access
//! is resolved by its window. Global allocations (kernel buffers and module `.global` variables)
//! live at their generic address, as in CUDA, so `cvta.to.global` is the identity.

use super::EmuError;
use crate::stats::Space;

/// Start of the global window; buffers are laid out from here, 256-byte aligned.
pub const GLOBAL_BASE: u64 = 0x0000_0010_0000_0000;
/// Generic windows of the other spaces (offset = generic − base).
pub const SHARED_WINDOW: u64 = 0x7f00_0000_0000_0000;
pub const LOCAL_WINDOW: u64 = 0x7e00_0000_0000_0000;
pub const CONST_WINDOW: u64 = 0x7d00_0000_0000_0000;
pub const PARAM_WINDOW: u64 = 0x7c00_0000_0000_0000;
const WINDOW_MASK: u64 = 0xff00_0000_0000_0000;

/// Generic address of `offset` in a state space.
pub fn to_generic(space: Space, offset: u64) -> u64 {
    match space {
        Space::Shared => SHARED_WINDOW | offset,
        Space::Local => LOCAL_WINDOW | offset,
        Space::Const => CONST_WINDOW | offset,
        Space::Param => PARAM_WINDOW | offset,
        Space::Global | Space::Generic => offset,
    }
}

/// Resolve a generic address to (space, offset in that space).
pub fn resolve_generic(addr: u64) -> (Space, u64) {
    match addr & WINDOW_MASK {
        SHARED_WINDOW => (Space::Shared, addr & !WINDOW_MASK),
        LOCAL_WINDOW => (Space::Local, addr & !WINDOW_MASK),
        CONST_WINDOW => (Space::Const, addr & !WINDOW_MASK),
        PARAM_WINDOW => (Space::Param, addr & !WINDOW_MASK),
        _ => (Space::Global, addr),
    }
}

/// One global allocation.
#[derive(Debug)]
pub struct Alloc {
    pub base: u64,
    pub data: Bytes,
    /// What it holds, for errors: a parameter's or a module variable's name.
    pub name: String,
    /// For a zero-filled buffer, the [`PAGE`]s the run has touched (a bit each): its memory is
    /// mapped ([`Mapping`]), not written, and costs only the pages the kernel touches.
    touched: Option<Vec<u64>>,
}

/// A buffer's bytes: data the run was given, or a zero-filled mapping whose pages the OS
/// provides as they are first touched.
#[derive(Debug)]
pub enum Bytes {
    Owned(Vec<u8>),
    Mapped(Mapping),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Owned(v) => v,
            Bytes::Mapped(m) => m.bytes(),
        }
    }
}

impl std::ops::DerefMut for Bytes {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            Bytes::Owned(v) => v,
            Bytes::Mapped(m) => m.bytes_mut(),
        }
    }
}

/// An anonymous private mapping of `len` bytes, unmapped when dropped. Why not the global
/// allocator's `alloc_zeroed`: mimalloc clears a large zeroed block with a memset whenever it
/// cannot tell its memory is fresh, which made a 6 GB process of car-cuda's 2.8 GB of
/// zero-filled buffers; the kernel's zero pages cost only what is touched.
#[derive(Debug)]
pub struct Mapping {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

impl Mapping {
    /// `None` where the system refuses the mapping.
    fn new(len: usize) -> Option<Mapping> {
        // SAFETY: a fresh anonymous private mapping, at no fixed address; the result is
        // checked for MAP_FAILED before use.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        std::ptr::NonNull::new(p.cast::<u8>()).map(|ptr| Mapping { ptr, len })
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `len` readable bytes from `ptr`, zero until written, mapped while self lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as `bytes`, and `&mut self` makes this the only borrow.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping `new` made, unmapped once.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}

// SAFETY: the mapping is owned memory like a Vec's; nothing else refers to it.
unsafe impl Send for Mapping {}
// SAFETY: shared access only reads it.
unsafe impl Sync for Mapping {}

/// The granularity at which the pages a run touches in zero-filled buffers are counted.
pub const PAGE: u64 = 64 << 10;

/// What the run's zero-filled buffers cost so far, against what it may hold.
#[derive(Debug, Default)]
struct PageBudget {
    touched_bytes: u64,
    limit: u64,
}

/// The CUDA driver's allocation granularity (`cuMemGetAllocationGranularity`: 2 MiB on every
/// GPU since Pascal): device memory is mapped in granules this large, so a real GPU does not fault
/// on an access a little past the end (or before the start) of a `cudaMalloc`'d buffer; it reads
/// whatever lies there.
pub const GRANULE: u64 = 2 << 20;

/// Global memory: allocations sorted by base address.
///
/// Why accesses near a buffer read zero instead of failing: the emulator runs a kernel on buffers
/// kerncast sized and filled (zeros, or `--buffer` data), not on the program's own, so an index
/// the data decides (`row_ptr[i + 1]` on zeros, a stencil's neighbour one element past the end,
/// which the GPU tolerates within its allocation) can fall just outside them. Such an access
/// within [`GRANULE`] of a buffer, where a real GPU has memory mapped, reads zeros and a store
/// there is dropped; both are counted ([`Outside`]), so the caller says the counts are an estimate.
/// The rule is the allocation granularity rather than "any address" so that an address far from
/// every buffer (a pointer never set, an index gone wild) stays an error naming the buffer it ran
/// past, as it would fault on the GPU. Buffers are placed [`GRANULE`]-aligned with two free
/// granules between them, so such an access never reads another buffer's data.
#[derive(Debug, Default)]
pub struct Global {
    pub allocs: Vec<Alloc>,
    next: u64,
    /// Accesses that fell near but outside every buffer.
    pub outside: Outside,
    /// What an access outside the buffers reads (zeros) and writes (dropped).
    scratch: Vec<u8>,
    pages: PageBudget,
}

/// Accesses the emulator let through near a buffer (see [`Global`]): per lane, loads that read
/// zeros, stores (and atomics) whose writes were dropped, the bytes they covered, and the
/// buffers they fell near (by name, in the order first met).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outside {
    pub loads: u64,
    pub stores: u64,
    pub bytes: u64,
    pub near: Vec<String>,
}

impl Global {
    pub fn new() -> Self {
        Global {
            allocs: Vec::new(),
            next: GLOBAL_BASE,
            outside: Outside::default(),
            scratch: Vec::new(),
            pages: PageBudget::default(),
        }
    }

    /// The bytes the touched pages of zero-filled buffers may take in all
    /// ([`Global::alloc_zeroed`]).
    pub fn limit_touched(&mut self, bytes: u64) {
        self.pages.limit = bytes;
    }

    /// Bytes of the pages of zero-filled buffers touched so far, and the limit on them.
    pub fn touched(&self) -> (u64, u64) {
        (self.pages.touched_bytes, self.pages.limit)
    }

    /// Place a buffer; returns its generic (= global) address.
    pub fn alloc(&mut self, data: Vec<u8>, name: &str) -> u64 {
        self.place(Bytes::Owned(data), name, None)
    }

    /// Place a zero-filled buffer of `len` bytes whose pages count against
    /// [`Global::limit_touched`] as the run touches them; or why the memory could not be
    /// mapped.
    pub fn alloc_zeroed(&mut self, len: u64, name: &str) -> Result<u64, EmuError> {
        let unmapped = || {
            EmuError::Args(format!(
                "this machine refused to map the {len} bytes of the zero-filled buffer `{name}`"
            ))
        };
        let n = usize::try_from(len).map_err(|_| unmapped())?;
        let data = match n {
            0 => Bytes::Owned(Vec::new()),
            n => Bytes::Mapped(Mapping::new(n).ok_or_else(unmapped)?),
        };
        let pages = len.div_ceil(PAGE).div_ceil(64) as usize;
        Ok(self.place(data, name, Some(vec![0; pages])))
    }

    fn place(&mut self, data: Bytes, name: &str, touched: Option<Vec<u64>>) -> u64 {
        let base = self.next;
        let len = data.len().max(1) as u64;
        // the granules after it are its slack and the next buffer's, which never meet
        self.next = (base + len).div_ceil(GRANULE) * GRANULE + 2 * GRANULE;
        self.allocs.push(Alloc {
            base,
            data,
            name: name.to_string(),
            touched,
        });
        base
    }

    /// Marks the pages of `off..end` of allocation `k` touched; an error once the touched
    /// pages of zero-filled buffers outgrow their limit.
    fn touch(&mut self, k: usize, off: usize, end: usize) -> Result<(), EmuError> {
        let Some(bits) = self.allocs[k].touched.as_mut() else {
            return Ok(());
        };
        let first = off as u64 / PAGE;
        let last = (end.max(off + 1) as u64 - 1) / PAGE;
        for page in first..=last {
            let (word, bit) = ((page / 64) as usize, 1u64 << (page % 64));
            if bits[word] & bit == 0 {
                bits[word] |= bit;
                self.pages.touched_bytes += PAGE;
            }
        }
        if self.pages.touched_bytes > self.pages.limit {
            return Err(EmuError::Budget {
                what: "the pages of zero-filled buffers the run touched".into(),
                bytes: self.pages.touched_bytes,
                budget: self.pages.limit,
            });
        }
        Ok(())
    }

    /// The bytes a kernel's access of `addr..addr + len` reads or writes: those of the
    /// allocation it falls in; zeros (a scratch copy, whose writes are dropped) where it falls
    /// outside every allocation but within [`GRANULE`] of one, counted in [`Global::outside`];
    /// else the error naming the buffer it runs past. One search per access: this is every
    /// global load and store of the emulator.
    pub fn access(&mut self, addr: u64, len: usize, writes: bool) -> Result<&mut [u8], EmuError> {
        if let Some((k, off, end)) = self.find(addr, len) {
            self.touch(k, off, end)?;
            return Ok(&mut self.allocs[k].data[off..end]);
        }
        if let Some(k) = self.near(addr, len) {
            let name = &self.allocs[k].name;
            if !self.outside.near.contains(name) {
                self.outside.near.push(name.clone());
            }
            self.outside.bytes += len as u64;
            match writes {
                true => self.outside.stores += 1,
                false => self.outside.loads += 1,
            }
            self.scratch.clear();
            self.scratch.resize(len, 0);
            return Ok(&mut self.scratch);
        }
        self.slice(addr, len)
    }

    /// The allocation `addr..addr + len` lies in: (index, offset, end offset).
    fn find(&self, addr: u64, len: usize) -> Option<(usize, usize, usize)> {
        let k = self
            .allocs
            .partition_point(|a| a.base <= addr)
            .checked_sub(1)?;
        let a = &self.allocs[k];
        let off = usize::try_from(addr - a.base).ok()?;
        let end = off.checked_add(len).filter(|e| *e <= a.data.len())?;
        Some((k, off, end))
    }

    /// The allocation `addr..addr + len` lies within [`GRANULE`] past the end or before the
    /// start of.
    fn near(&self, addr: u64, len: usize) -> Option<usize> {
        let end = addr.checked_add(len as u64)?;
        let k = self.allocs.partition_point(|a| a.base <= addr);
        let after = k.checked_sub(1).filter(|k| {
            let a = &self.allocs[*k];
            end <= (a.base + a.data.len() as u64).saturating_add(GRANULE)
        });
        let before = || {
            self.allocs
                .get(k)
                .is_some_and(|a| addr >= a.base.saturating_sub(GRANULE))
                .then_some(k)
        };
        after.or_else(before)
    }

    /// The bytes `addr..addr + len` of one allocation, or an error naming the buffer the access
    /// runs past.
    pub fn slice(&mut self, addr: u64, len: usize) -> Result<&mut [u8], EmuError> {
        let k = self
            .allocs
            .partition_point(|a| a.base <= addr)
            .checked_sub(1);
        match self.find(addr, len) {
            Some((k, off, end)) => {
                self.touch(k, off, end)?;
                Ok(&mut self.allocs[k].data[off..end])
            }
            None => {
                // the buffer it overran, for the error
                let past = k
                    .map(|k| {
                        let a = &self.allocs[k];
                        // an address near 2^64 wraps: saturate, it is past the end anyway
                        let over = addr
                            .saturating_add(len as u64)
                            .saturating_sub(a.base.saturating_add(a.data.len() as u64));
                        format!(
                            ", {over} bytes past the end of `{}` ({} bytes)",
                            a.name,
                            a.data.len()
                        )
                    })
                    .unwrap_or_default();
                Err(EmuError::OutOfBounds {
                    space: "global",
                    addr,
                    len,
                    past,
                })
            }
        }
    }
}

/// Bounds-checked byte slice of a flat memory (shared, local, const, param).
pub fn flat<'a>(
    mem: &'a mut [u8],
    space: &'static str,
    addr: u64,
    len: usize,
) -> Result<&'a mut [u8], EmuError> {
    let a = usize::try_from(addr).ok();
    a.and_then(|a| mem.get_mut(a..a.checked_add(len)?))
        .ok_or(EmuError::OutOfBounds {
            space,
            addr,
            len,
            past: String::new(),
        })
}

/// Little-endian read of `len` ≤ 8 bytes (the first 8 of a longer slice).
#[inline]
pub fn read_le(b: &[u8]) -> u64 {
    // the widths of nearly every access in one load each
    match *b {
        [a, b2, c, d, e, f, g, h, ..] => u64::from_le_bytes([a, b2, c, d, e, f, g, h]),
        [a, b2, c, d] => u32::from_le_bytes([a, b2, c, d]) as u64,
        _ => {
            let mut v = 0u64;
            for (i, x) in b.iter().enumerate() {
                v |= (*x as u64) << (8 * i);
            }
            v
        }
    }
}

/// Little-endian write of the low `b.len()` ≤ 8 bytes of `v` (the first 8 of a longer slice).
#[inline]
pub fn write_le(b: &mut [u8], v: u64) {
    match b.len() {
        8.. => b[..8].copy_from_slice(&v.to_le_bytes()),
        4 => b.copy_from_slice(&(v as u32).to_le_bytes()),
        _ => {
            for (i, x) in b.iter_mut().enumerate() {
                *x = (v >> (8 * i)) as u8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zero_filled_buffer_costs_the_pages_the_run_touches() {
        let mut g = Global::new();
        g.limit_touched(2 * PAGE);
        // 1 GiB declared: mapped, not written
        let a = g.alloc_zeroed(1 << 30, "big").unwrap();
        assert_eq!(g.slice(a + 8, 4).unwrap(), &[0, 0, 0, 0]);
        g.slice(a + 16, 4).unwrap().copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(g.slice(a + 16, 4).unwrap(), &[1, 2, 3, 4]);
        // an access across a page boundary touches both pages: the second and third
        let at = a + 5 * PAGE - 2;
        assert!(
            g.slice(at, 4).is_err(),
            "three pages are over a limit of two"
        );
        let mut g = Global::new();
        g.limit_touched(3 * PAGE);
        let a = g.alloc_zeroed(1 << 30, "big").unwrap();
        g.slice(a, 4).unwrap();
        g.slice(a + 5 * PAGE - 2, 4).unwrap();
        // a buffer with data is paid for up front, not per page
        let b = g.alloc(vec![7; 4 * PAGE as usize], "data");
        g.slice(b + 3 * PAGE, 4).unwrap();
        match g.slice(a + 9 * PAGE, 1) {
            Err(EmuError::Budget { bytes, budget, .. }) => {
                assert_eq!((bytes, budget), (4 * PAGE, 3 * PAGE))
            }
            other => panic!("{other:?}"),
        }
    }

    /// Found by `cargo xtask fuzz` (emulate): a load at `[%rd+-4]` with `%rd` still 0 is an
    /// address just below 2^64, whose end wrapped (an overflow panic) while the error message
    /// was made. It is an out-of-bounds error.
    #[test]
    fn an_access_that_wraps_past_2_64_is_out_of_bounds() {
        let mut g = Global::new();
        g.alloc(vec![0; 64], "k_param_1");
        let e = g.slice(u64::MAX - 3, 4).unwrap_err();
        assert!(e.to_string().contains("out of bounds"), "{e}");
        assert!(g.slice(u64::MAX, 8).is_err());
    }

    /// Within a granule of a buffer, before its start or past its end, an access reads zeros
    /// and its writes are dropped, counted by direction; further away it is an error. The
    /// buffer's own bytes are untouched, and strict `slice` still refuses the near access.
    #[test]
    fn an_access_near_a_buffer_reads_zeros_and_is_counted() {
        let mut g = Global::new();
        let a = g.alloc(vec![7; 64], "a");
        let b = g.alloc(vec![9; 64], "b");
        assert!(b >= a + 64 + 2 * GRANULE, "their slack zones never meet");
        assert_eq!(g.access(a + 60, 8, false).unwrap(), &[0; 8]);
        g.access(a + 64, 4, true).unwrap().copy_from_slice(&[1; 4]);
        assert_eq!(g.access(b - 4, 4, false).unwrap(), &[0; 4]);
        assert_eq!(
            g.outside,
            Outside {
                loads: 2,
                stores: 1,
                bytes: 16,
                near: vec!["a".into(), "b".into()],
            }
        );
        assert_eq!(g.slice(a, 64).unwrap(), &[7; 64]);
        assert!(g.slice(a + 64, 4).is_err());
        assert!(g.access(b + 64 + GRANULE, 4, false).is_err());
        assert!(g.access(a - GRANULE - 4, 4, false).is_err());
        assert_eq!(g.access(b + 8, 2, false).unwrap(), &[9, 9]);
    }

    #[test]
    fn generic_windows_round_trip() {
        for s in [Space::Shared, Space::Local, Space::Const, Space::Param] {
            assert_eq!(resolve_generic(to_generic(s, 1234)), (s, 1234));
        }
        let mut g = Global::new();
        let a = g.alloc(vec![1, 2, 3, 4], "a");
        let b = g.alloc(vec![5; 10], "b");
        assert_eq!(resolve_generic(a), (Space::Global, a));
        assert_eq!(g.slice(a + 1, 2).unwrap(), &[2, 3]);
        assert_eq!(g.slice(b + 9, 1).unwrap(), &[5]);
        assert!(g.slice(a + 3, 2).is_err());
        assert!(g.slice(GLOBAL_BASE - 1, 1).is_err());
    }

    #[test]
    fn little_endian() {
        let mut b = [0u8; 4];
        write_le(&mut b, 0x1122_3344);
        assert_eq!(b, [0x44, 0x33, 0x22, 0x11]);
        assert_eq!(read_le(&b), 0x1122_3344);
    }
}
