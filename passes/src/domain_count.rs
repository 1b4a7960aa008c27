//! Exact counts of one basic block's (or guarded instruction's) domain, at thread or warp
//! granularity, as quasi-polynomials in the launch and kernel parameters. `count::analyze_function`
//! asks for every block and every guarded instruction, so this is where analysis time goes.
//!
//! Counts are exact for kernel parameters in the signed range of their PTX width (a 32-bit
//! parameter in [-2^31, 2^31)): the affine pass models registers as exact integers compared
//! with their signed comparisons, so a value outside that range is not modelled anyway, and
//! within it the sign-bit floors of unroll masks (`floor((i + 1)/2^31)`) are constants.

use crate::affine::Cond;
use crate::poly::isl::{Ctx, Set};
use crate::poly::{self as poly_mod, CountError, QPoly};
use crate::ptx::VarDecl;
use std::collections::{BTreeSet, HashMap};

pub(crate) struct DomainCounter {
    ctx: Ctx,
    block: [u64; 3],
    cache: HashMap<String, QPoly>,
    /// Bit width of each kernel parameter symbol (`p0` …) with an integer type.
    param_bits: HashMap<String, u32>,
}

impl DomainCounter {
    pub(crate) fn new(block: [u64; 3]) -> DomainCounter {
        DomainCounter {
            ctx: Ctx::new(),
            block,
            cache: HashMap::new(),
            param_bits: HashMap::new(),
        }
    }

    /// Count within the value ranges of the kernel parameters `params` (in PTX order).
    pub(crate) fn with_params(mut self, params: &[VarDecl]) -> DomainCounter {
        self.param_bits = params
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.ty.is_float() && (8..=64).contains(&p.ty.bits()))
            .map(|(i, p)| (format!("p{i}"), p.ty.bits()))
            .collect();
        self
    }

    /// The value ranges of those of `params` that are kernel parameters.
    fn context(&self, params: &[String]) -> Result<Set, CountError> {
        let bounds: Vec<String> = params
            .iter()
            .filter_map(|p| {
                let b = self.param_bits.get(p)?;
                let h = 1i128 << (b - 1);
                Some(format!("{} <= {p} < {h}", -h))
            })
            .collect();
        let text = format!(
            "[{}] -> {{ : {} }}",
            params.join(", "),
            if bounds.is_empty() {
                "true".to_string()
            } else {
                bounds.join(" and ")
            }
        );
        Ok(Set::parse(&self.ctx, &text)?)
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
        let q = poly_mod::count::count_in(&set, &self.context(&params)?)?;
        self.cache.insert(text, q.clone());
        Ok(q)
    }
}
