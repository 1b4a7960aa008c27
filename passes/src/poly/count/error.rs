//! Why a count failed.

use crate::poly::isl::IslError;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CountError {
    #[error(transparent)]
    Isl(#[from] IslError),
    #[error("the set is unbounded in `{0}`: no finite count")]
    Unbounded(String),
    #[error("set dimension {0} has no name; name the dimensions the summand refers to")]
    UnnamedDim(usize),
    #[error("residue splitting did not remove the floors in `{0}` after {1} rounds")]
    SplitLimit(String, usize),
    #[error("isl returned a non-integral bound `{0}`")]
    NonIntegral(String),
    #[error("the direct summation split into more than {0} cells")]
    TooComplex(usize),
    #[error("the summation's polynomials passed {0} terms in all")]
    OverBudget(usize),
    #[error(
        "more than {0} distinct ways of control flow reach it: too many to count symbolically"
    )]
    TooManyPaths(usize),
    #[error("{blocks} basic blocks of {insts} instructions (after inlining) are beyond the symbolic counter's size bound ({bound} blocks × instructions)")]
    TooLarge {
        blocks: usize,
        insts: usize,
        bound: u64,
    },
}

pub type Result<T> = std::result::Result<T, CountError>;
