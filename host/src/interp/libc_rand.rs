//! The C library's `rand()` as glibc computes it (the library CUDA host programs on Linux
//! link): `srand(s)` then `rand()` gives the same numbers on every run, so a size drawn from
//! it is as known as a constant. glibc's `rand` is `random` with its default state, an
//! additive feedback generator of 31 words (`TYPE_3` in glibc's `random_r.c`); `srand` and
//! `srandom` seed the same state, and a program that never seeds runs as seeded with 1.

/// The generator's state: 31 words and the two positions `random_r` reads and writes.
#[derive(Clone, Debug)]
pub(super) struct LibcRand {
    state: [i32; DEG],
    front: usize,
    rear: usize,
    /// How many numbers it has given since seeded.
    pub(super) draws: u64,
}

/// The degree and separation of glibc's default generator (`TYPE_3`).
const DEG: usize = 31;
const SEP: usize = 3;

impl LibcRand {
    /// The state `srand(seed)` leaves (glibc's `__srandom_r`).
    pub(super) fn seeded(seed: u32) -> LibcRand {
        // A seed of 0 would leave every word 0: glibc takes it as 1.
        let seed = if seed == 0 { 1 } else { seed };
        let mut state = [0i32; DEG];
        // glibc keeps the seed in an `int32_t`: a seed above 2^31 is negative here.
        let mut word = seed as i32;
        state[0] = word;
        for slot in state.iter_mut().skip(1) {
            // 16807 * word % 2147483647 without overflowing 31 bits (Schrage's method); C's
            // division truncates toward zero, as Rust's does, and no product leaves `i32`.
            let hi = word / 127_773;
            let lo = word % 127_773;
            word = 16_807 * lo - 2_836 * hi;
            if word < 0 {
                word += 2_147_483_647;
            }
            *slot = word;
        }
        let mut r = LibcRand {
            state,
            front: SEP,
            rear: 0,
            draws: 0,
        };
        // glibc discards the first 310 outputs.
        for _ in 0..DEG * 10 {
            r.next();
        }
        r.draws = 0;
        r
    }

    /// The next `rand()` (glibc's `__random_r`): 0 to `RAND_MAX` (2^31 - 1).
    pub(super) fn next(&mut self) -> i32 {
        let sum = (self.state[self.front] as u32).wrapping_add(self.state[self.rear] as u32);
        self.state[self.front] = sum as i32;
        self.front = (self.front + 1) % DEG;
        self.rear = (self.rear + 1) % DEG;
        self.draws += 1;
        // The least random bit is dropped.
        (sum >> 1) as i32
    }
}

impl LibcRand {
    /// The state `n` more numbers leave.
    pub(super) fn skip(&mut self, n: u64) {
        for _ in 0..n {
            self.next();
        }
    }
}

/// The C library's 48-bit generator (`drand48`, `lrand48`, `mrand48`, seeded by `srand48`):
/// `x ← (0x5DEECE66D · x + 0xB) mod 2^48`, as POSIX specifies it; a program that never seeds
/// starts from 0, as glibc's zeroed state does.
#[derive(Clone, Debug, Default)]
pub(super) struct Rand48 {
    x: u64,
    /// How many numbers it has given since seeded.
    pub(super) draws: u64,
}

impl Rand48 {
    /// The state `srand48(seed)` leaves: the seed's low 32 bits above `0x330E`.
    pub(super) fn seeded(seed: i128) -> Rand48 {
        Rand48 {
            x: (((seed as u64) & 0xFFFF_FFFF) << 16) | 0x330E,
            draws: 0,
        }
    }

    fn step(&mut self) -> u64 {
        self.x = self.x.wrapping_mul(0x5_DEEC_E66D).wrapping_add(0xB) & ((1 << 48) - 1);
        self.draws += 1;
        self.x
    }

    /// `drand48()`: a double in [0, 1), the state's 48 bits as the fraction.
    pub(super) fn real(&mut self) -> f64 {
        self.step() as f64 / (1u64 << 48) as f64
    }

    /// `lrand48()`: the state's high 31 bits.
    pub(super) fn non_negative(&mut self) -> i64 {
        (self.step() >> 17) as i64
    }

    /// `mrand48()`: the state's high 32 bits as a signed integer.
    pub(super) fn signed(&mut self) -> i64 {
        i64::from((self.step() >> 16) as u32 as i32)
    }

    /// The state `n` more numbers leave.
    pub(super) fn skip(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }
}

/// Whether a library function of this name runs the generator: the C library's own, and
/// `std::random_shuffle`, which libstdc++ draws with `rand()`.
pub(super) fn draws(name: &str) -> bool {
    let last = name.rsplit("::").next().unwrap_or(name);
    matches!(
        last,
        "rand"
            | "srand"
            | "random"
            | "srandom"
            | "random_shuffle"
            | "drand48"
            | "lrand48"
            | "mrand48"
            | "srand48"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(seed: u32, n: usize) -> Vec<i32> {
        let mut r = LibcRand::seeded(seed);
        (0..n).map(|_| r.next()).collect()
    }

    /// The numbers glibc 2.36 gives (read with ctypes from `libc.so.6`).
    #[test]
    fn gives_what_glibc_gives() {
        let unseeded = [1804289383, 846930886, 1681692777, 1714636915];
        assert_eq!(first(1, 4), unseeded);
        assert_eq!(first(0, 4), unseeded);
        assert_eq!(first(6, 4), [290852541, 2066988985, 1717401112, 865455665]);
        assert_eq!(first(123, 4), [128959393, 1692901013, 436085873, 748533630]);
        assert_eq!(
            first(2_147_483_653, 4),
            [902410239, 292943431, 1491539546, 1641990203]
        );
        assert_eq!(
            first(u32::MAX, 4),
            [254925627, 1205188300, 366127624, 1401405153]
        );
        assert_eq!(first(123, 1001)[1000], 218359180);
    }

    /// The numbers glibc 2.36 gives (read with ctypes from `libc.so.6`).
    #[test]
    fn the_48_bit_generator_gives_what_glibc_gives() {
        let mut r = Rand48::default();
        assert_eq!(r.real(), 3.907985046680551e-14);
        assert_eq!(r.non_negative(), 2116118);
        let mut r = Rand48::seeded(4096);
        assert_eq!((r.real() * 1e9).round() as i64, 977084330);
        assert_eq!(r.non_negative(), 1615860160);
        assert_eq!(r.signed(), -990437355);
    }
}
