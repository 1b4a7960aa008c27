//! Exact counts of one basic block's (or guarded instruction's) domain, at thread or warp
//! granularity, as quasi-polynomials in the launch and kernel parameters. `count::analyze_function`
//! asks for every block and every guarded instruction, so this is where analysis time goes.

use crate::affine::Cond;
use crate::poly::isl::{Ctx, Set};
use crate::poly::{self as poly_mod, CountError, QPoly};
use std::collections::{BTreeSet, HashMap};

pub(crate) struct DomainCounter {
    ctx: Ctx,
    block: [u64; 3],
    cache: HashMap<String, QPoly>,
}

impl DomainCounter {
    pub(crate) fn new(block: [u64; 3]) -> DomainCounter {
        DomainCounter {
            ctx: Ctx::new(),
            block,
            cache: HashMap::new(),
        }
    }

    /// Count a domain at thread or warp granularity.
    pub(crate) fn count(
        &mut self,
        counters: &[String],
        cond: &Cond,
        warp: bool,
    ) -> Result<QPoly, CountError> {
        let [nx, ny, nz] = self.block;
        let mut vars = BTreeSet::new();
        cond.vars(&mut vars);
        let mut params: BTreeSet<String> = ["nctaid_x", "nctaid_y", "nctaid_z"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        for v in vars {
            let dim = v.starts_with("tid_") || v.starts_with("ctaid_") || counters.contains(&v);
            if !dim {
                params.insert(v);
            }
        }
        let params: Vec<String> = params.into_iter().collect();
        let tids = format!(
            "0 <= tid_x < {nx} and 0 <= tid_y < {ny} and 0 <= tid_z < {nz} and {}",
            cond.to_isl()
        );
        let grid =
            "0 <= ctaid_x < nctaid_x and 0 <= ctaid_y < nctaid_y and 0 <= ctaid_z < nctaid_z";
        let ks = counters.join(", ");
        let sep = if counters.is_empty() { "" } else { ", " };
        let text = if warp {
            format!(
                "[{}] -> {{ [ctaid_x, ctaid_y, ctaid_z, warp{sep}{ks}] : {grid} and exists (tid_x, tid_y, tid_z : {tids} and 32 warp <= tid_x + {nx} tid_y + {} tid_z <= 32 warp + 31) }}",
                params.join(", "),
                nx * ny
            )
        } else {
            format!(
                "[{}] -> {{ [ctaid_x, ctaid_y, ctaid_z, tid_x, tid_y, tid_z{sep}{ks}] : {grid} and {tids} }}",
                params.join(", ")
            )
        };
        if let Some(q) = self.cache.get(&text) {
            return Ok(q.clone());
        }
        let set = Set::parse(&self.ctx, &text)?;
        let q = poly_mod::count(&set)?;
        self.cache.insert(text, q.clone());
        Ok(q)
    }
}
