//! Polyhedral counting: a safe isl wrapper (`isl`), quasi-affine expressions (`linexpr`),
//! exact rational polynomials over them (`poly`), piecewise quasi-polynomials (`qpoly`), their
//! compiled evaluation (`compile`), and the counting algorithm (`count`).
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
//! 3. If a division involves x (a stride guard `i % 4 == 0`, a projected warp index), or the
//!    summand has a floor of x (left by an inner bound such as floor(i/2)), x is split into
//!    residue classes x = M·q + r (M the lcm of the floor denominators, r = 0…M−1, isl's
//!    preimage for the set and substitution for the summand); floors of x then become affine
//!    in q, and the level repeats with q.
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

pub mod compile;
pub mod count;
pub mod isl;
pub mod linexpr;
#[allow(clippy::module_inception)]
pub mod poly;
pub mod qpoly;

pub use compile::Compiled;
pub use count::{count, sum, CountError};
pub use linexpr::{Atom, LinExpr};
pub use poly::{Poly, Rat};
pub use qpoly::{Constraint, Guard, Piece, QPoly, QPolySum};
