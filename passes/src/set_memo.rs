//! Results computed from an isl set, remembered by the set's text for the rest of the process.
//!
//! Why: a launch's accesses share few domains, yet each access asks the same questions of its
//! domain (its counters' ranges, its partial blocks, whether a warp spans a thread index) for
//! its sectors, its lines, its reuse and its stride class. isl's parse of the same text, over
//! and over, was a tenth of a `predict`. The text is the whole input of the computation, so a
//! remembered result is the result.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Most results a memo keeps; past it, it starts again (a bound on memory, not on work).
const ENTRIES: usize = 256;

pub struct SetMemo<T> {
    map: OnceLock<Mutex<HashMap<String, T>>>,
}

impl<T: Clone> SetMemo<T> {
    pub const fn new() -> SetMemo<T> {
        SetMemo {
            map: OnceLock::new(),
        }
    }

    /// The result for `key`, computed by `compute` (given the key) the first time.
    /// Errors are not remembered.
    pub fn get_or<E>(
        &self,
        key: String,
        compute: impl FnOnce(&str) -> Result<T, E>,
    ) -> Result<T, E> {
        let map = self.map.get_or_init(|| Mutex::new(HashMap::new()));
        if let Some(r) = map.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(r);
        }
        let r = compute(&key)?;
        if let Ok(mut m) = map.lock() {
            if m.len() >= ENTRIES {
                m.clear();
            }
            m.insert(key, r.clone());
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_computed_once_and_an_error_is_not_kept() {
        static MEMO: SetMemo<u32> = SetMemo::new();
        let mut calls = 0;
        let mut get = |k: &str, fail: bool| {
            MEMO.get_or(k.to_string(), |k| {
                calls += 1;
                if fail {
                    Err(())
                } else {
                    Ok(k.len() as u32)
                }
            })
        };
        assert_eq!(get("{ [i] : 0 <= i < 4 }", true), Err(()));
        assert_eq!(get("{ [i] : 0 <= i < 4 }", false), Ok(20));
        assert_eq!(get("{ [i] : 0 <= i < 4 }", false), Ok(20));
        assert_eq!(get("{ [j] }", false), Ok(7));
        assert_eq!(calls, 3);
    }
}
