//! isl's constraints and affine expressions as kerncast's linear expressions, their
//! divisions written as floors.

use super::Result;
use crate::poly::constraint::Constraint;
use crate::poly::isl::{Aff, BasicSet, DimType, IslError};
use crate::poly::linexpr::LinExpr;
use num_integer::Integer;

/// (numerator, denominator) of an affine expression with its divisions as floor atoms.
pub(super) fn aff_parts(aff: &Aff, params: &[String], ins: &[String]) -> Result<(LinExpr, i128)> {
    let mut coeffs: Vec<(LinExpr, (i64, i64))> = Vec::new();
    let np = aff.dim(DimType::isl_dim_param)?;
    if np != params.len() {
        return Err(IslError(format!(
            "aff has {np} parameters, expected {}",
            params.len()
        ))
        .into());
    }
    for (k, name) in params.iter().enumerate() {
        coeffs.push((
            LinExpr::var(name),
            aff.coefficient(DimType::isl_dim_param, k)?,
        ));
    }
    let ni = aff.dim(DimType::isl_dim_in)?;
    for k in 0..ni {
        let name = ins
            .get(k)
            .ok_or_else(|| IslError(format!("aff input {k} has no name")))?;
        coeffs.push((LinExpr::var(name), aff.coefficient(DimType::isl_dim_in, k)?));
    }
    let nd = aff.dim(DimType::isl_dim_div)?;
    for k in 0..nd {
        let c = aff.coefficient(DimType::isl_dim_div, k)?;
        if c.0 == 0 {
            continue;
        }
        let (dn, dd) = aff_parts(&aff.div(k)?, params, ins)?;
        coeffs.push((dn.floor_div(dd), c));
    }
    let constant = aff.constant()?;
    let mut den: i128 = constant.1 as i128;
    for (_, (_, d)) in &coeffs {
        den = den.lcm(&(*d as i128));
    }
    let mut num = LinExpr::constant(constant.0 as i128 * (den / constant.1 as i128));
    for (e, (n, d)) in coeffs {
        if n == 0 {
            continue;
        }
        num = num.add(&e.scale(n as i128 * (den / d as i128)));
    }
    Ok((num, den))
}

/// The constraints of `bs` as quasi-affine expressions over its parameters and set dimensions
/// (named `ins`), local divisions written out as floors.
pub(super) fn lin_constraints(
    bs: &BasicSet,
    params: &[String],
    ins: &[String],
) -> Result<Vec<Constraint>> {
    let mut cons = Vec::new();
    for c in bs.constraints()? {
        let mut e = LinExpr::constant(0);
        let mut den: i128 = 1;
        let mut parts: Vec<(LinExpr, (i64, i64))> = Vec::new();
        for (k, name) in params.iter().enumerate() {
            parts.push((
                LinExpr::var(name),
                c.coefficient(DimType::isl_dim_param, k)?,
            ));
        }
        for (k, name) in ins.iter().enumerate() {
            parts.push((LinExpr::var(name), c.coefficient(DimType::isl_dim_set, k)?));
        }
        let nd = c.dim(DimType::isl_dim_div)?;
        for k in 0..nd {
            let co = c.coefficient(DimType::isl_dim_div, k)?;
            if co.0 == 0 {
                continue;
            }
            let (dn, dd) = aff_parts(&c.div(k)?, params, ins)?;
            parts.push((dn.floor_div(dd), co));
        }
        let k0 = c.constant()?;
        parts.push((LinExpr::constant(1), k0));
        for (_, (_, d)) in &parts {
            den = den.lcm(&(*d as i128));
        }
        for (p, (n, d)) in parts {
            if n != 0 {
                e = e.add(&p.scale(n as i128 * (den / d as i128)));
            }
        }
        cons.push(Constraint {
            expr: e,
            eq: c.is_equality()?,
        });
    }
    Ok(cons)
}
