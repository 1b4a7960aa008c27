//! The occupancy API's questions a reading asked, with their answers. A reading depends on the
//! answers it was given (they depend on the kernels' registers, which the host code does not
//! show), so a stored reading holds only where the oracle of the new reading gives the same
//! answers to the same questions: the interpreter is deterministic, so a reading given the same
//! answers asks the same next question and ends the same way.
//!
//! Asking again also does to the oracle what the reading would have done (it notes that it was
//! asked, and what it answered). Asking stops at the first answer that differs; up to there the
//! new reading asks the same questions, so the oracle ends as a fresh reading would leave it.

use kerncast_host::OccupancyOracle;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

/// A question to the occupancy API and its answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Asked {
    ActiveBlocksPerSm {
        kernel: String,
        threads: u64,
        dynamic_shared: u64,
        answer: Result<u64, String>,
    },
    MaxPotentialBlockSize {
        kernel: String,
        dynamic_shared: u64,
        limit: u64,
        answer: Result<(u64, u64), String>,
    },
}

impl Asked {
    /// Whether `oracle` gives the same answer now.
    fn answered_alike(&self, oracle: &dyn OccupancyOracle) -> bool {
        match self {
            Asked::ActiveBlocksPerSm {
                kernel,
                threads,
                dynamic_shared,
                answer,
            } => oracle.active_blocks_per_sm(kernel, *threads, *dynamic_shared) == *answer,
            Asked::MaxPotentialBlockSize {
                kernel,
                dynamic_shared,
                limit,
                answer,
            } => oracle.max_potential_block_size(kernel, *dynamic_shared, *limit) == *answer,
        }
    }
}

/// Whether `oracle` answers each question as it was answered, asked in order (see the module's
/// notes); without an oracle, whether none was asked.
pub fn answers_alike(asked: &[Asked], oracle: Option<&dyn OccupancyOracle>) -> bool {
    match oracle {
        Some(o) => asked.iter().all(|a| a.answered_alike(o)),
        None => asked.is_empty(),
    }
}

/// An oracle that answers as `inner` does and keeps each question with its answer.
#[derive(Debug)]
pub struct Recording {
    inner: Arc<dyn OccupancyOracle>,
    asked: Mutex<Vec<Asked>>,
}

impl Recording {
    pub fn new(inner: Arc<dyn OccupancyOracle>) -> Recording {
        Recording {
            inner,
            asked: Mutex::new(Vec::new()),
        }
    }

    /// The questions asked so far, in order; `None` where they were lost (a poisoned lock).
    pub fn asked(&self) -> Option<Vec<Asked>> {
        self.asked.lock().ok().map(|a| a.clone())
    }

    fn keep(&self, a: Asked) {
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(a);
        }
    }
}

impl OccupancyOracle for Recording {
    fn active_blocks_per_sm(
        &self,
        kernel: &str,
        threads: u64,
        dynamic_shared: u64,
    ) -> Result<u64, String> {
        let answer = self
            .inner
            .active_blocks_per_sm(kernel, threads, dynamic_shared);
        self.keep(Asked::ActiveBlocksPerSm {
            kernel: kernel.to_string(),
            threads,
            dynamic_shared,
            answer: answer.clone(),
        });
        answer
    }

    fn max_potential_block_size(
        &self,
        kernel: &str,
        dynamic_shared: u64,
        limit: u64,
    ) -> Result<(u64, u64), String> {
        let answer = self
            .inner
            .max_potential_block_size(kernel, dynamic_shared, limit);
        self.keep(Asked::MaxPotentialBlockSize {
            kernel: kernel.to_string(),
            dynamic_shared,
            limit,
            answer: answer.clone(),
        });
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers `threads / 32` blocks, and a block of `limit` threads.
    #[derive(Debug)]
    struct Fixed(u64);

    impl OccupancyOracle for Fixed {
        fn active_blocks_per_sm(&self, _: &str, threads: u64, _: u64) -> Result<u64, String> {
            Ok(threads / self.0)
        }
        fn max_potential_block_size(
            &self,
            _: &str,
            _: u64,
            limit: u64,
        ) -> Result<(u64, u64), String> {
            Ok((self.0, limit))
        }
    }

    #[test]
    fn questions_asked_again_hold_where_the_answers_are_the_same() {
        let r = Recording::new(Arc::new(Fixed(32)));
        assert_eq!(r.active_blocks_per_sm("k", 256, 0), Ok(8));
        assert_eq!(r.max_potential_block_size("k", 0, 512), Ok((32, 512)));
        let asked = r.asked().unwrap();
        assert_eq!(asked.len(), 2);
        assert!(answers_alike(&asked, Some(&Fixed(32))));
        assert!(!answers_alike(&asked, Some(&Fixed(64))));
        assert!(!answers_alike(&asked, None));
        assert!(answers_alike(&[], None));
    }
}
