//! The engines of `<random>` the standard fixes: `mersenne_twister_engine` (`std::mt19937`,
//! `std::mt19937_64`) and `linear_congruential_engine` (`std::minstd_rand0`, libstdc++'s
//! `std::default_random_engine`, `std::minstd_rand`), with the parameters of their type.

#[derive(Clone, Debug)]
pub enum Engine {
    Twister(Twister),
    Lcg(Lcg),
}

/// `mersenne_twister_engine<UIntType, w, n, m, r, a, u, d, s, b, t, c, l, f>`.
#[derive(Clone, Debug)]
pub struct Twister {
    w: u32,
    m: usize,
    r: u32,
    a: u64,
    u: u32,
    d: u64,
    s: u32,
    b: u64,
    t: u32,
    c: u64,
    l: u32,
    f: u64,
    x: Vec<u64>,
    i: usize,
}

/// `linear_congruential_engine<UIntType, a, c, m>`; `m` 0 stands for 2^64.
#[derive(Clone, Debug)]
pub struct Lcg {
    a: u64,
    c: u64,
    m: u64,
    x: u64,
}

/// The standard's default seeds.
pub(super) const TWISTER_DEFAULT_SEED: u64 = 5489;
pub(super) const LCG_DEFAULT_SEED: u64 = 1;

pub(super) fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

impl Twister {
    pub(super) fn new(p: &[u64]) -> Option<Twister> {
        let [w, n, m, r, a, u, d, s, b, t, c, l, f] = *p else {
            return None;
        };
        if !(2..=64).contains(&w) || n == 0 || m == 0 || m > n || r > w || n > 1 << 16 {
            return None;
        }
        let mut e = Twister {
            w: w as u32,
            m: m as usize,
            r: r as u32,
            a,
            u: u as u32,
            d,
            s: s as u32,
            b,
            t: t as u32,
            c,
            l: l as u32,
            f,
            x: vec![0; n as usize],
            i: 0,
        };
        e.seed(TWISTER_DEFAULT_SEED);
        Some(e)
    }

    fn seed(&mut self, value: u64) {
        let (w, mask) = (self.w, mask(self.w));
        self.x[0] = value & mask;
        for i in 1..self.x.len() {
            let prev = self.x[i - 1];
            self.x[i] = self
                .f
                .wrapping_mul(prev ^ (prev >> (w - 2)))
                .wrapping_add(i as u64)
                & mask;
        }
        self.i = self.x.len();
    }

    fn twist(&mut self) {
        let n = self.x.len();
        let upper = (u64::MAX << self.r) & mask(self.w);
        let lower = !upper & mask(self.w);
        for k in 0..n {
            let y = (self.x[k] & upper) | (self.x[(k + 1) % n] & lower);
            let odd = if y & 1 == 1 { self.a } else { 0 };
            self.x[k] = self.x[(k + self.m) % n] ^ (y >> 1) ^ odd;
        }
        self.i = 0;
    }

    fn next(&mut self) -> u64 {
        if self.i >= self.x.len() {
            self.twist();
        }
        let mut z = self.x[self.i];
        self.i += 1;
        let mask = mask(self.w);
        z ^= (z >> self.u) & self.d;
        z ^= (z << self.s) & self.b & mask;
        z ^= (z << self.t) & self.c & mask;
        z ^= z >> self.l;
        z & mask
    }
}

impl Lcg {
    pub(super) fn new(p: &[u64]) -> Option<Lcg> {
        let [a, c, m] = *p else { return None };
        let mut e = Lcg { a, c, m, x: 0 };
        e.seed(LCG_DEFAULT_SEED);
        Some(e)
    }

    fn modulo(&self, v: u128) -> u64 {
        match self.m {
            0 => v as u64,
            m => (v % u128::from(m)) as u64,
        }
    }

    /// libstdc++'s `seed`: a state that would stay 0 (no increment, a seed ≡ 0) is 1.
    fn seed(&mut self, s: u64) {
        let s = self.modulo(u128::from(s));
        self.x = if self.modulo(u128::from(self.c)) == 0 && s == 0 {
            1
        } else {
            s
        };
    }

    fn next(&mut self) -> u64 {
        self.x = self.modulo(u128::from(self.a) * u128::from(self.x) + u128::from(self.c));
        self.x
    }
}

impl Engine {
    pub fn next(&mut self) -> u64 {
        match self {
            Engine::Twister(e) => e.next(),
            Engine::Lcg(e) => e.next(),
        }
    }

    pub(super) fn seed(&mut self, s: u64) {
        match self {
            Engine::Twister(e) => e.seed(s),
            Engine::Lcg(e) => e.seed(s),
        }
    }

    pub fn min(&self) -> u64 {
        match self {
            Engine::Twister(_) => 0,
            Engine::Lcg(e) => u64::from(e.c == 0),
        }
    }

    pub fn max(&self) -> u64 {
        match self {
            Engine::Twister(e) => mask(e.w),
            Engine::Lcg(e) => e.m.wrapping_sub(1),
        }
    }
}

/// `engine.discard(z)`; `None` past [`super::dist::DRAWS_MAX`].
pub fn discard(engine: &mut Engine, z: u64) -> Option<()> {
    if z > super::dist::DRAWS_MAX {
        return None;
    }
    for _ in 0..z {
        engine.next();
    }
    Some(())
}
