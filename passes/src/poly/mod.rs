//! Polyhedral counting: a safe isl wrapper (`isl`), quasi-affine expressions (`linexpr`) and
//! constraints on them (`constraint`), exact rational polynomials over them (`poly`), piecewise
//! quasi-polynomials (`qpoly`), their compiled evaluation (`compile`), the counting algorithm
//! (`count`), its isl-free fast path (`native`) and emptiness proofs by Fourier–Motzkin (`fm`).
//!
//! # Why our own counter
//! isl 0.25 counts a set only at fixed parameters (`isl_set_count_val`); the parametric count
//! (`card`) is barvinok's, which is GPL and not installable here. Loopy without barvinok falls
//! back to boxes and over-counts a triangle (9801 instead of 4950 at n = 100). So kerncast sums
//! symbolically and uses isl for what it is exact at: bounds, cells, emptiness, projection.
//!
//! # The algorithm (nested symbolic summation over isl-computed bound cells)
//! To compute Σ_{x ∈ S} P(x) for a parametric set S over variables x₁…x_d (loop counters,
//! thread indices) and a polynomial summand P (start: P = 1, the count):
//! 1. All variables are turned into isl parameters. Each level takes the innermost remaining
//!    variable x back as the one set dimension, so the rest (true parameters and outer
//!    variables) is the context.
//! 2. The set is split into disjoint basic sets (`make_disjoint`), with every existential made
//!    an explicit division (`compute_divs`). In one basic set without divisions in x the fibre
//!    over the context is an integer interval [l, u].
//! 3. Floors of x (a division in the set: a stride guard `i % 4 == 0`, a projected warp index;
//!    or a floor in the summand, left by an inner bound such as floor(i/2)) are removed first:
//!    - floors of ±x alone in the summand are summed in closed form over the interval,
//!      Σ_{x=l}^{u} floor((x + e)/m) = G(u + e + 1) − G(l + e) with
//!      G(N) = Σ_{y<N} floor(y/m) = m·q(q − 1)/2 + q·(N − m·q), q = floor(N/m);
//!    - otherwise x is split into residue classes x = M·q + r (r = 0…M−1, isl's preimage for
//!      the set and substitution for the summand), M the lcm over floors floor((k·x + e)/m) of
//!      m / gcd(k, m); floors of x then become affine in q, and the level repeats with q;
//!    - above 64 classes (a grid-stride step of 65536 threads) each floor is instead lifted to
//!      a variable F of its own with m·F <= num <= m·F + m − 1, summed right after x: F is a
//!      function of x, so the sum is unchanged, and x is then floor-free.
//! 4. `dim_min`/`dim_max` give l and u as piecewise quasi-affine functions of the context;
//!    every pair of pieces (A, u), (B, l) gives a cell A ∩ B (empty cells dropped), on which
//!    Σ_{x=l}^{u} P = Σ_k c_k (S_k(u) − S_k(l−1)) by Faulhaber (Bernoulli numbers, B₁ = +½;
//!    the identity S_k(n) − S_k(n−1) = n^k holds for every integer n, and l ≤ u on the cell
//!    because isl only defines the bounds where the fibre is non-empty).
//! 5. The cell becomes the context of the next level. When no variable is left, the
//!    (parameter domain, polynomial) pair is a contribution; the total is their sum.
//! 6. The contributions are refined into disjoint cells, equal polynomials merged, domains
//!    coalesced and written out as guards of quasi-affine constraints.
//!
//! Coefficients are exact rationals (num-bigint), so no count overflows or rounds. The tests
//! check against `isl_set_count_val` at fixed parameters (the oracle) and brute force.
//!
//! # Before isl: products and complements (`crate::domain_count`)
//! A kernel's domains are mostly products of independent parts, and isl's cost grows steeply
//! with dimensions, so a domain is first split into groups of dimensions that share no
//! conjunct, each counted alone (and cached), the count being their product. A `QPoly` keeps
//! a product of large factors unexpanded (`qpoly::Product`). A disjunction linking groups (a
//! stencil's boundary) is counted by complement for threads and by inclusion–exclusion over
//! the groups for warps.
//!
//! # Without isl where the shape allows (`native`, `fm`)
//! Most groups are a launch box, a guard through a global index (`256·ctaid + tid < n`) and
//! unit-step loop counters. `native` sums those directly, the same nested summation with bounds
//! read off constraints whose coefficients on the eliminated variable are ±1 (so no floor of a
//! remaining variable arises), a disjunction first split into disjoint conjunctions; anything
//! else goes to isl. Pieces whose guards cannot hold are dropped, and implied constraints
//! removed, by `fm`: Fourier–Motzkin with integer tightening, which also answers most of the
//! loop-exit prover's emptiness questions (a contradiction is a proof; no contradiction sends
//! the question to isl). `tests/tests/counting_native.rs` counts the corpus both ways.

pub mod compile;
pub mod constraint;
pub mod count;
pub mod fm;
pub mod isl;
pub mod linexpr;
pub mod native;
#[allow(clippy::module_inception)]
pub mod poly;
pub mod qpoly;

pub use compile::Compiled;
pub use constraint::Constraint;
pub use count::{count, sum, CountError};
pub use linexpr::{Atom, LinExpr};
pub use poly::{Poly, Rat};
pub use qpoly::{Guard, Piece, QPoly, QPolySum};
