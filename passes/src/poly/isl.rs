//! A small safe, owning wrapper over the parts of isl the counter needs: sets, basic sets,
//! piecewise affine bounds (`dim_min`/`dim_max`), their affine pieces and local divisions,
//! constraints, and exact counting at fixed parameters (`isl_set_count_val`, the oracle).
//!
//! Why a wrapper of our own: isl's ownership conventions (`__isl_take` / `__isl_keep` /
//! `__isl_give`) are easy to get wrong from raw FFI. Every handle here owns exactly one
//! reference and frees it on drop; methods that take `self` consume the handle (isl_take),
//! methods on `&self` copy first. isl is put in "continue on error" mode so that a failing call
//! returns NULL, which becomes an [`IslError`] carrying isl's last message instead of an abort.

use isl_sys as ffi;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_void};
use std::rc::Rc;

/// An isl failure (NULL return), with isl's own message when it gave one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("isl: {0}")]
pub struct IslError(pub String);

pub type Result<T> = std::result::Result<T, IslError>;

struct CtxInner {
    ptr: *mut ffi::isl_ctx,
    /// The analysis ([`begin_analysis`]) whose budget the context's operation count is under.
    epoch: std::cell::Cell<u64>,
}

impl Drop for CtxInner {
    fn drop(&mut self) {
        // SAFETY: the context outlives every object (each holds an Rc to it).
        unsafe { ffi::isl_ctx_free(self.ptr) }
    }
}

thread_local! {
    /// Bumped at the start of each analysis on this thread (contexts are cached per thread).
    static EPOCH: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Starts a new analysis on this thread: every isl context gets a fresh operation budget
/// ([`crate::budget::Budgets::isl_ops`]) when it is next used, so what one kernel may do does
/// not depend on what the thread counted before (contexts are cached per thread).
pub fn begin_analysis() {
    EPOCH.with(|e| e.set(e.get() + 1));
}

/// An isl context. Cheap to clone (reference counted); objects keep their context alive.
#[derive(Clone)]
pub struct Ctx(Rc<CtxInner>);

impl Default for Ctx {
    fn default() -> Self {
        Self::new()
    }
}

impl Ctx {
    pub fn new() -> Ctx {
        // SAFETY: plain allocation; the pointer is owned by CtxInner.
        unsafe {
            let p = ffi::isl_ctx_alloc();
            assert!(!p.is_null(), "isl_ctx_alloc returned NULL (out of memory)");
            // ISL_ON_ERROR_CONTINUE (options.h) is a macro bindgen does not see through the allowlist.
            ffi::isl_options_set_on_error(p, 1);
            let c = Ctx(Rc::new(CtxInner {
                ptr: p,
                epoch: std::cell::Cell::new(u64::MAX),
            }));
            c.raw();
            c
        }
    }

    fn raw(&self) -> *mut ffi::isl_ctx {
        let inner = &*self.0;
        let now = EPOCH.with(|e| e.get());
        if inner.epoch.get() != now {
            inner.epoch.set(now);
            // SAFETY: the context is alive; both calls only set counters.
            unsafe {
                ffi::isl_ctx_reset_operations(inner.ptr);
                ffi::isl_ctx_set_max_operations(inner.ptr, crate::budget::get().isl_ops as _);
            }
        }
        inner.ptr
    }

    fn error(&self, what: &str) -> IslError {
        // SAFETY: the context is alive.
        if unsafe { ffi::isl_ctx_last_error(self.raw()) } == ffi::isl_error::isl_error_quota {
            unsafe { ffi::isl_ctx_reset_error(self.raw()) };
            return IslError(format!(
                "{what}: the counting budget of {} isl operations ran out (raise it with \
                 --isl-ops, or `isl_ops` under [budgets] in kerncast.toml)",
                crate::budget::get().isl_ops
            ));
        }
        // SAFETY: the context is alive; the message is a static or ctx-owned C string.
        let msg = unsafe {
            let m = ffi::isl_ctx_last_error_msg(self.raw());
            if m.is_null() {
                String::from("unknown error")
            } else {
                CStr::from_ptr(m).to_string_lossy().into_owned()
            }
        };
        unsafe { ffi::isl_ctx_reset_error(self.raw()) };
        IslError(format!("{what}: {msg}"))
    }

    fn check<T>(&self, p: *mut T, what: &str) -> Result<*mut T> {
        if p.is_null() {
            Err(self.error(what))
        } else {
            Ok(p)
        }
    }

    /// isl's version string, e.g. "isl-0.25-GMP".
    pub fn version() -> String {
        // SAFETY: static string.
        unsafe {
            CStr::from_ptr(ffi::isl_version())
                .to_string_lossy()
                .into_owned()
        }
    }
}

fn take_str(p: *mut c_char) -> String {
    if p.is_null() {
        return String::from("<null>");
    }
    // SAFETY: isl gives a malloc'ed string which we free.
    unsafe {
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        libc_free(p as *mut c_void);
        s
    }
}

extern "C" {
    #[link_name = "free"]
    fn libc_free(p: *mut c_void);
}

macro_rules! handle {
    ($name:ident, $raw:ty, $free:path, $copy:path) => {
        pub struct $name {
            ptr: *mut $raw,
            ctx: Ctx,
        }
        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: we own one reference.
                unsafe {
                    $free(self.ptr);
                }
            }
        }
        impl Clone for $name {
            fn clone(&self) -> Self {
                // SAFETY: copy bumps isl's reference count.
                let p = unsafe { $copy(self.ptr) };
                assert!(!p.is_null(), "isl copy failed (out of memory)");
                $name {
                    ptr: p,
                    ctx: self.ctx.clone(),
                }
            }
        }
        #[allow(dead_code)]
        impl $name {
            /// Give up ownership (isl_take). The handle's reference to its context is
            /// dropped here (forgetting the whole handle leaked one per call, so no context
            /// was ever freed); every caller holds a clone of the context across the call.
            fn into_raw(self) -> *mut $raw {
                let me = std::mem::ManuallyDrop::new(self);
                // SAFETY: `ctx` is moved out once and dropped; `me` is never used again, and
                // its own Drop (which would free `ptr`) does not run.
                drop(unsafe { std::ptr::read(&me.ctx) });
                me.ptr
            }
            fn from_raw(ctx: &Ctx, p: *mut $raw, what: &str) -> Result<Self> {
                Ok($name {
                    ptr: ctx.check(p, what)?,
                    ctx: ctx.clone(),
                })
            }
            pub fn ctx(&self) -> &Ctx {
                &self.ctx
            }
        }
    };
}

handle!(Set, ffi::isl_set, ffi::isl_set_free, ffi::isl_set_copy);
handle!(
    BasicSet,
    ffi::isl_basic_set,
    ffi::isl_basic_set_free,
    ffi::isl_basic_set_copy
);
handle!(
    PwAff,
    ffi::isl_pw_aff,
    ffi::isl_pw_aff_free,
    ffi::isl_pw_aff_copy
);
handle!(Aff, ffi::isl_aff, ffi::isl_aff_free, ffi::isl_aff_copy);
handle!(
    Point,
    ffi::isl_point,
    ffi::isl_point_free,
    ffi::isl_point_copy
);
handle!(Val, ffi::isl_val, ffi::isl_val_free, ffi::isl_val_copy);
handle!(
    Constraint,
    ffi::isl_constraint,
    ffi::isl_constraint_free,
    ffi::isl_constraint_copy
);
handle!(
    LocalSpace,
    ffi::isl_local_space,
    ffi::isl_local_space_free,
    ffi::isl_local_space_copy
);
handle!(
    MultiAff,
    ffi::isl_multi_aff,
    ffi::isl_multi_aff_free,
    ffi::isl_multi_aff_copy
);

pub use ffi::isl_dim_type as DimType;

fn cstring(s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| IslError(format!("string with NUL byte: {s:?}")))
}

fn size(n: ffi::isl_size, what: &str) -> Result<usize> {
    usize::try_from(n).map_err(|_| IslError(format!("{what}: isl_size error")))
}

fn boolean(ctx: &Ctx, b: ffi::isl_bool, what: &str) -> Result<bool> {
    match b {
        ffi::isl_bool_isl_bool_true => Ok(true),
        ffi::isl_bool_isl_bool_false => Ok(false),
        _ => Err(ctx.error(what)),
    }
}

impl Val {
    /// The value as an exact rational (numerator, denominator), when both fit in i64.
    pub fn to_rational(&self) -> Result<(i64, i64)> {
        // SAFETY: keep semantics; the handle stays ours.
        unsafe {
            if ffi::isl_val_is_rat(self.ptr) != ffi::isl_bool_isl_bool_true {
                return Err(IslError("value is not rational (NaN or infinity)".into()));
            }
            let n = ffi::isl_val_get_num_si(self.ptr);
            let d = ffi::isl_val_get_den_si(self.ptr);
            // get_num_si and get_den_si silently truncate (a denominator of 2^64 reads as 0):
            // check that n/d is the value
            let back = ffi::isl_val_div(
                ffi::isl_val_int_from_si(self.ctx.raw(), n),
                ffi::isl_val_int_from_si(self.ctx.raw(), d),
            );
            let ok = d > 0 && ffi::isl_val_eq(back, self.ptr) == ffi::isl_bool_isl_bool_true;
            ffi::isl_val_free(back);
            if !ok {
                return Err(IslError("value does not fit in i64".into()));
            }
            Ok((n, d))
        }
    }

    pub fn is_nan_or_inf(&self) -> bool {
        // SAFETY: keep.
        unsafe {
            ffi::isl_val_is_nan(self.ptr) == ffi::isl_bool_isl_bool_true
                || ffi::isl_val_is_infty(self.ptr) == ffi::isl_bool_isl_bool_true
                || ffi::isl_val_is_neginfty(self.ptr) == ffi::isl_bool_isl_bool_true
        }
    }
}

impl Set {
    /// All points of the space with these named parameters and set dimensions.
    pub fn universe(ctx: &Ctx, params: &[String], dims: &[String]) -> Result<Set> {
        // SAFETY: the space is taken by each call that returns the next one; names are copied.
        unsafe {
            let mut sp = ctx.check(
                ffi::isl_space_set_alloc(ctx.raw(), params.len() as u32, dims.len() as u32),
                "isl_space_set_alloc",
            )?;
            for (t, names) in [
                (DimType::isl_dim_param, params),
                (DimType::isl_dim_set, dims),
            ] {
                for (i, n) in names.iter().enumerate() {
                    let c = cstring(n)?;
                    sp = ctx.check(
                        ffi::isl_space_set_dim_name(sp, t, i as u32, c.as_ptr()),
                        "isl_space_set_dim_name",
                    )?;
                }
            }
            Set::from_raw(ctx, ffi::isl_set_universe(sp), "isl_set_universe")
        }
    }

    /// The points of this set's space where `Σ param_coefs·params + Σ dim_coefs·dims +
    /// constant` is `>= 0` (or `= 0` when `eq`), built without isl's parser.
    pub fn linear_constraint(
        &self,
        param_coefs: &[i64],
        dim_coefs: &[i64],
        constant: i64,
        eq: bool,
    ) -> Result<Set> {
        let ctx = &self.ctx;
        let val = |v: i64| ctx.check(unsafe { ffi::isl_val_int_from_si(ctx.raw(), v) }, "isl_val");
        // SAFETY: each call takes the constraint and returns the next handle; vals are taken.
        unsafe {
            let ls = ctx.check(
                ffi::isl_local_space_from_space(ffi::isl_set_get_space(self.ptr)),
                "isl_local_space_from_space",
            )?;
            let mut c = if eq {
                ffi::isl_constraint_alloc_equality(ls)
            } else {
                ffi::isl_constraint_alloc_inequality(ls)
            };
            for (t, coefs) in [
                (DimType::isl_dim_param, param_coefs),
                (DimType::isl_dim_set, dim_coefs),
            ] {
                for (i, &k) in coefs.iter().enumerate() {
                    if k != 0 {
                        c = ffi::isl_constraint_set_coefficient_val(c, t, i as i32, val(k)?);
                    }
                }
            }
            c = ffi::isl_constraint_set_constant_val(c, val(constant)?);
            let bs = ctx.check(
                ffi::isl_basic_set_from_constraint(c),
                "isl_basic_set_from_constraint",
            )?;
            Set::from_raw(
                ctx,
                ffi::isl_set_from_basic_set(bs),
                "isl_set_from_basic_set",
            )
        }
    }

    /// Parse isl's set syntax, e.g. `[n] -> { [i, j] : 0 <= j < i < n }`.
    pub fn parse(ctx: &Ctx, s: &str) -> Result<Set> {
        let c = cstring(s)?;
        // SAFETY: ctx alive, string valid for the call.
        let p = unsafe { ffi::isl_set_read_from_str(ctx.raw(), c.as_ptr()) };
        Set::from_raw(ctx, p, &format!("parse set {s:?}"))
    }

    pub fn dim(&self, t: DimType) -> Result<usize> {
        // SAFETY: keep.
        size(unsafe { ffi::isl_set_dim(self.ptr, t) }, "isl_set_dim")
    }

    pub fn dim_name(&self, t: DimType, pos: usize) -> Option<String> {
        // SAFETY: keep; the returned name is owned by the set.
        unsafe {
            let p = ffi::isl_set_get_dim_name(self.ptr, t, pos as u32);
            (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
        }
    }

    pub fn param_names(&self) -> Result<Vec<String>> {
        let n = self.dim(DimType::isl_dim_param)?;
        (0..n)
            .map(|i| {
                self.dim_name(DimType::isl_dim_param, i)
                    .ok_or_else(|| IslError(format!("parameter {i} has no name")))
            })
            .collect()
    }

    pub fn is_empty(&self) -> Result<bool> {
        // SAFETY: keep.
        boolean(
            &self.ctx,
            unsafe { ffi::isl_set_is_empty(self.ptr) },
            "isl_set_is_empty",
        )
    }

    /// Emptiness as far as isl can tell without solving anything (no basic set left); `false`
    /// does not mean non-empty.
    pub fn plain_is_empty(&self) -> Result<bool> {
        // SAFETY: keep.
        boolean(
            &self.ctx,
            unsafe { ffi::isl_set_plain_is_empty(self.ptr) },
            "isl_set_plain_is_empty",
        )
    }

    pub fn is_equal(&self, other: &Set) -> Result<bool> {
        // SAFETY: keep both.
        boolean(
            &self.ctx,
            unsafe { ffi::isl_set_is_equal(self.ptr, other.ptr) },
            "isl_set_is_equal",
        )
    }

    pub fn intersect(self, other: Set) -> Result<Set> {
        let ctx = self.ctx.clone();
        // SAFETY: both taken.
        let p = unsafe { ffi::isl_set_intersect(self.into_raw(), other.into_raw()) };
        Set::from_raw(&ctx, p, "isl_set_intersect")
    }

    /// Restrict the parameters to `params` (a set of parameters only; aligned by name).
    pub fn intersect_params(self, params: Set) -> Result<Set> {
        let ctx = self.ctx.clone();
        // SAFETY: both taken.
        let p = unsafe { ffi::isl_set_intersect_params(self.into_raw(), params.into_raw()) };
        Set::from_raw(&ctx, p, "isl_set_intersect_params")
    }

    /// Simplify assuming the parameters lie in `context`: the result intersected with the
    /// context equals the set intersected with it.
    pub fn gist_params(self, context: Set) -> Result<Set> {
        let ctx = self.ctx.clone();
        // SAFETY: both taken.
        let p = unsafe { ffi::isl_set_gist_params(self.into_raw(), context.into_raw()) };
        Set::from_raw(&ctx, p, "isl_set_gist_params")
    }

    pub fn union(self, other: Set) -> Result<Set> {
        let ctx = self.ctx.clone();
        // SAFETY: both taken.
        let p = unsafe { ffi::isl_set_union(self.into_raw(), other.into_raw()) };
        Set::from_raw(&ctx, p, "isl_set_union")
    }

    pub fn subtract(self, other: Set) -> Result<Set> {
        let ctx = self.ctx.clone();
        // SAFETY: both taken.
        let p = unsafe { ffi::isl_set_subtract(self.into_raw(), other.into_raw()) };
        Set::from_raw(&ctx, p, "isl_set_subtract")
    }

    pub fn coalesce(self) -> Result<Set> {
        let ctx = self.ctx.clone();
        // SAFETY: taken.
        let p = unsafe { ffi::isl_set_coalesce(self.into_raw()) };
        Set::from_raw(&ctx, p, "isl_set_coalesce")
    }

    pub fn make_disjoint(self) -> Result<Set> {
        let ctx = self.ctx.clone();
        // SAFETY: taken.
        let p = unsafe { ffi::isl_set_make_disjoint(self.into_raw()) };
        Set::from_raw(&ctx, p, "isl_set_make_disjoint")
    }

    /// Make every existentially quantified variable an explicit integer division.
    pub fn compute_divs(self) -> Result<Set> {
        let ctx = self.ctx.clone();
        // SAFETY: taken.
        let p = unsafe { ffi::isl_set_compute_divs(self.into_raw()) };
        Set::from_raw(&ctx, p, "isl_set_compute_divs")
    }

    /// Fix a dimension to a value.
    pub fn fix_si(self, t: DimType, pos: usize, v: i64) -> Result<Set> {
        let ctx = self.ctx.clone();
        // SAFETY: taken.
        let p = unsafe { ffi::isl_set_fix_si(self.into_raw(), t, pos as u32, v as _) };
        Set::from_raw(&ctx, p, "isl_set_fix_si")
    }

    /// Project out `n` set dimensions starting at `first` (existential quantification).
    pub fn project_out(self, t: DimType, first: usize, n: usize) -> Result<Set> {
        let ctx = self.ctx.clone();
        // SAFETY: taken.
        let p = unsafe { ffi::isl_set_project_out(self.into_raw(), t, first as u32, n as u32) };
        Set::from_raw(&ctx, p, "isl_set_project_out")
    }

    /// Exact number of points; every parameter must be fixed (the counting oracle).
    pub fn count_val(&self) -> Result<Val> {
        // SAFETY: keep (`__isl_keep isl_set *`): a copy passed here was never freed, and the
        // set it held kept its context alive (cargo xtask fuzz, count, LeakSanitizer).
        let p = unsafe { ffi::isl_set_count_val(self.ptr) };
        let v = Val::from_raw(&self.ctx, p, "isl_set_count_val")?;
        if v.is_nan_or_inf() {
            return Err(IslError("count of an unbounded set".into()));
        }
        Ok(v)
    }

    /// Largest value of set dimension `pos` as a piecewise affine function of the parameters and
    /// the other set dimensions... of the dimensions before it (isl projects out the rest).
    pub fn dim_max(&self, pos: usize) -> Result<PwAff> {
        // SAFETY: copy then take.
        let p = unsafe { ffi::isl_set_dim_max(ffi::isl_set_copy(self.ptr), pos as i32) };
        PwAff::from_raw(&self.ctx, p, "isl_set_dim_max")
    }

    pub fn dim_min(&self, pos: usize) -> Result<PwAff> {
        // SAFETY: copy then take.
        let p = unsafe { ffi::isl_set_dim_min(ffi::isl_set_copy(self.ptr), pos as i32) };
        PwAff::from_raw(&self.ctx, p, "isl_set_dim_min")
    }

    pub fn basic_sets(&self) -> Result<Vec<BasicSet>> {
        unsafe extern "C" fn cb(bs: *mut ffi::isl_basic_set, user: *mut c_void) -> ffi::isl_stat {
            // SAFETY: user is the Vec below; bs is given to us.
            let v = &mut *(user as *mut Vec<*mut ffi::isl_basic_set>);
            v.push(bs);
            ffi::isl_stat_isl_stat_ok
        }
        let mut raw: Vec<*mut ffi::isl_basic_set> = Vec::new();
        // SAFETY: keep; the callback takes ownership of each basic set.
        let r = unsafe {
            ffi::isl_set_foreach_basic_set(self.ptr, Some(cb), &mut raw as *mut _ as *mut c_void)
        };
        let out: Vec<BasicSet> = raw
            .into_iter()
            .map(|p| BasicSet {
                ptr: p,
                ctx: self.ctx.clone(),
            })
            .collect();
        if r != ffi::isl_stat_isl_stat_ok {
            return Err(self.ctx.error("isl_set_foreach_basic_set"));
        }
        Ok(out)
    }

    /// Pull the set back through `ma`: `{ x : ma(x) ∈ self }`.
    pub fn preimage(self, ma: MultiAff) -> Result<Set> {
        let ctx = self.ctx.clone();
        // SAFETY: both taken.
        let p = unsafe { ffi::isl_set_preimage_multi_aff(self.into_raw(), ma.into_raw()) };
        Set::from_raw(&ctx, p, "isl_set_preimage_multi_aff")
    }

    /// Some integer point of the set (its set dimensions), `None` when it is empty.
    pub fn sample_point(&self) -> Result<Option<Vec<i64>>> {
        let n = self.dim(DimType::isl_dim_set)?;
        // SAFETY: copy then take; the point is ours.
        let p = unsafe { ffi::isl_set_sample_point(ffi::isl_set_copy(self.ptr)) };
        let pt = Point::from_raw(&self.ctx, p, "isl_set_sample_point")?;
        // SAFETY: keep.
        if unsafe { ffi::isl_point_is_void(pt.ptr) } != ffi::isl_bool_isl_bool_false {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            // SAFETY: keep the point; the value is ours.
            let v = unsafe {
                ffi::isl_point_get_coordinate_val(pt.ptr, DimType::isl_dim_set, k as i32)
            };
            let (num, den) =
                Val::from_raw(&self.ctx, v, "isl_point_get_coordinate_val")?.to_rational()?;
            if den != 1 {
                return Err(IslError("non-integral sample point".into()));
            }
            out.push(num);
        }
        Ok(Some(out))
    }

    /// The lattice of set dimension `pos`: (stride, offset) such that every value of the
    /// dimension in the set is `offset + stride·k` for an integer k, the offset an affine
    /// expression of the parameters and the other dimensions (stride 1 when there is none).
    pub fn stride_info(&self, pos: usize) -> Result<(i64, Aff)> {
        // SAFETY: keep the set; the stride info and what we take from it are ours.
        unsafe {
            let si = ffi::isl_set_get_stride_info(self.ptr, pos as i32);
            if si.is_null() {
                return Err(self.ctx.error("isl_set_get_stride_info"));
            }
            let stride = ffi::isl_stride_info_get_stride(si);
            let offset = ffi::isl_stride_info_get_offset(si);
            ffi::isl_stride_info_free(si);
            let (n, d) =
                Val::from_raw(&self.ctx, stride, "isl_stride_info_get_stride")?.to_rational()?;
            let offset = Aff::from_raw(&self.ctx, offset, "isl_stride_info_get_offset")?;
            if d != 1 {
                return Err(IslError(format!("non-integral stride {n}/{d}")));
            }
            Ok((n, offset))
        }
    }

    /// The parameter domain: project out every set dimension.
    pub fn params(self) -> Result<Set> {
        let ctx = self.ctx.clone();
        // SAFETY: taken.
        let p = unsafe { ffi::isl_set_params(self.into_raw()) };
        Set::from_raw(&ctx, p, "isl_set_params")
    }

    pub fn set_dim_name(self, t: DimType, pos: usize, name: &str) -> Result<Set> {
        let ctx = self.ctx.clone();
        let c = cstring(name)?;
        // SAFETY: taken; the name is copied by isl.
        let p = unsafe { ffi::isl_set_set_dim_name(self.into_raw(), t, pos as u32, c.as_ptr()) };
        Set::from_raw(&ctx, p, "isl_set_set_dim_name")
    }

    /// Position of a named dimension.
    pub fn find_dim_by_name(&self, t: DimType, name: &str) -> Option<usize> {
        let c = CString::new(name).ok()?;
        // SAFETY: keep.
        let r = unsafe { ffi::isl_set_find_dim_by_name(self.ptr, t, c.as_ptr()) };
        usize::try_from(r).ok()
    }

    pub fn move_dims(
        self,
        dst: DimType,
        dst_pos: usize,
        src: DimType,
        src_pos: usize,
        n: usize,
    ) -> Result<Set> {
        let ctx = self.ctx.clone();
        // SAFETY: taken.
        let p = unsafe {
            ffi::isl_set_move_dims(
                self.into_raw(),
                dst,
                dst_pos as u32,
                src,
                src_pos as u32,
                n as u32,
            )
        };
        Set::from_raw(&ctx, p, "isl_set_move_dims")
    }

    /// A parameter-domain set as a set with zero set dimensions.
    pub fn from_params(self) -> Result<Set> {
        let ctx = self.ctx.clone();
        // SAFETY: taken.
        let p = unsafe { ffi::isl_set_from_params(self.into_raw()) };
        Set::from_raw(&ctx, p, "isl_set_from_params")
    }

    pub fn to_str(&self) -> String {
        // SAFETY: keep; the string is ours to free.
        take_str(unsafe { ffi::isl_set_to_str(self.ptr) })
    }
}

impl std::fmt::Debug for Set {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_str())
    }
}

impl MultiAff {
    pub fn parse(ctx: &Ctx, s: &str) -> Result<MultiAff> {
        let c = cstring(s)?;
        // SAFETY: ctx alive.
        let p = unsafe { ffi::isl_multi_aff_read_from_str(ctx.raw(), c.as_ptr()) };
        MultiAff::from_raw(ctx, p, &format!("parse multi_aff {s:?}"))
    }
}

impl BasicSet {
    pub fn to_set(&self) -> Result<Set> {
        // SAFETY: copy then take.
        let p = unsafe { ffi::isl_set_from_basic_set(ffi::isl_basic_set_copy(self.ptr)) };
        Set::from_raw(&self.ctx, p, "isl_set_from_basic_set")
    }

    pub fn constraints(&self) -> Result<Vec<Constraint>> {
        unsafe extern "C" fn cb(c: *mut ffi::isl_constraint, user: *mut c_void) -> ffi::isl_stat {
            // SAFETY: user is the Vec below.
            let v = &mut *(user as *mut Vec<*mut ffi::isl_constraint>);
            v.push(c);
            ffi::isl_stat_isl_stat_ok
        }
        let mut raw: Vec<*mut ffi::isl_constraint> = Vec::new();
        // SAFETY: keep; each constraint handed to the callback is ours.
        let r = unsafe {
            ffi::isl_basic_set_foreach_constraint(
                self.ptr,
                Some(cb),
                &mut raw as *mut _ as *mut c_void,
            )
        };
        let out = raw
            .into_iter()
            .map(|p| Constraint {
                ptr: p,
                ctx: self.ctx.clone(),
            })
            .collect();
        if r != ffi::isl_stat_isl_stat_ok {
            return Err(self.ctx.error("isl_basic_set_foreach_constraint"));
        }
        Ok(out)
    }

    pub fn local_space(&self) -> Result<LocalSpace> {
        // SAFETY: keep.
        let p = unsafe { ffi::isl_basic_set_get_local_space(self.ptr) };
        LocalSpace::from_raw(&self.ctx, p, "isl_basic_set_get_local_space")
    }
}

impl LocalSpace {
    pub fn dim(&self, t: DimType) -> Result<usize> {
        // SAFETY: keep.
        size(
            unsafe { ffi::isl_local_space_dim(self.ptr, t) },
            "isl_local_space_dim",
        )
    }

    /// The affine expression whose floor is local division `pos`.
    pub fn div(&self, pos: usize) -> Result<Aff> {
        // SAFETY: keep.
        let p = unsafe { ffi::isl_local_space_get_div(self.ptr, pos as i32) };
        Aff::from_raw(&self.ctx, p, "isl_local_space_get_div")
    }
}

impl PwAff {
    /// The pieces (domain, affine expression); the domains are disjoint.
    pub fn pieces(&self) -> Result<Vec<(Set, Aff)>> {
        unsafe extern "C" fn cb(
            s: *mut ffi::isl_set,
            a: *mut ffi::isl_aff,
            user: *mut c_void,
        ) -> ffi::isl_stat {
            // SAFETY: user is the Vec below.
            let v = &mut *(user as *mut Vec<(*mut ffi::isl_set, *mut ffi::isl_aff)>);
            v.push((s, a));
            ffi::isl_stat_isl_stat_ok
        }
        let mut raw: Vec<(*mut ffi::isl_set, *mut ffi::isl_aff)> = Vec::new();
        // SAFETY: keep; each piece handed to the callback is ours.
        let r = unsafe {
            ffi::isl_pw_aff_foreach_piece(self.ptr, Some(cb), &mut raw as *mut _ as *mut c_void)
        };
        let out = raw
            .into_iter()
            .map(|(s, a)| {
                (
                    Set {
                        ptr: s,
                        ctx: self.ctx.clone(),
                    },
                    Aff {
                        ptr: a,
                        ctx: self.ctx.clone(),
                    },
                )
            })
            .collect();
        if r != ffi::isl_stat_isl_stat_ok {
            return Err(self.ctx.error("isl_pw_aff_foreach_piece"));
        }
        Ok(out)
    }
}

impl Aff {
    pub fn dim(&self, t: DimType) -> Result<usize> {
        // SAFETY: keep.
        size(unsafe { ffi::isl_aff_dim(self.ptr, t) }, "isl_aff_dim")
    }

    /// Coefficient of a dimension as a rational (numerator, denominator).
    pub fn coefficient(&self, t: DimType, pos: usize) -> Result<(i64, i64)> {
        // SAFETY: keep.
        let p = unsafe { ffi::isl_aff_get_coefficient_val(self.ptr, t, pos as i32) };
        Val::from_raw(&self.ctx, p, "isl_aff_get_coefficient_val")?.to_rational()
    }

    pub fn constant(&self) -> Result<(i64, i64)> {
        // SAFETY: keep.
        let p = unsafe { ffi::isl_aff_get_constant_val(self.ptr) };
        Val::from_raw(&self.ctx, p, "isl_aff_get_constant_val")?.to_rational()
    }

    /// The affine expression whose floor is local division `pos` of this expression.
    pub fn div(&self, pos: usize) -> Result<Aff> {
        // SAFETY: keep.
        let p = unsafe { ffi::isl_aff_get_div(self.ptr, pos as i32) };
        Aff::from_raw(&self.ctx, p, "isl_aff_get_div")
    }

    pub fn to_str(&self) -> String {
        // SAFETY: keep; the string is ours to free.
        take_str(unsafe { ffi::isl_aff_to_str(self.ptr) })
    }

    pub fn is_nan(&self) -> Result<bool> {
        // SAFETY: keep.
        boolean(
            &self.ctx,
            unsafe { ffi::isl_aff_is_nan(self.ptr) },
            "isl_aff_is_nan",
        )
    }
}

impl Constraint {
    pub fn is_equality(&self) -> Result<bool> {
        // SAFETY: keep.
        boolean(
            &self.ctx,
            unsafe { ffi::isl_constraint_is_equality(self.ptr) },
            "isl_constraint_is_equality",
        )
    }

    pub fn dim(&self, t: DimType) -> Result<usize> {
        // SAFETY: keep.
        size(
            unsafe { ffi::isl_constraint_dim(self.ptr, t) },
            "isl_constraint_dim",
        )
    }

    pub fn coefficient(&self, t: DimType, pos: usize) -> Result<(i64, i64)> {
        // SAFETY: keep.
        let p = unsafe { ffi::isl_constraint_get_coefficient_val(self.ptr, t, pos as i32) };
        Val::from_raw(&self.ctx, p, "isl_constraint_get_coefficient_val")?.to_rational()
    }

    pub fn constant(&self) -> Result<(i64, i64)> {
        // SAFETY: keep.
        let p = unsafe { ffi::isl_constraint_get_constant_val(self.ptr) };
        Val::from_raw(&self.ctx, p, "isl_constraint_get_constant_val")?.to_rational()
    }

    /// The affine expression whose floor is local division `pos`.
    pub fn div(&self, pos: usize) -> Result<Aff> {
        // SAFETY: keep.
        let p = unsafe { ffi::isl_constraint_get_div(self.ptr, pos as i32) };
        Aff::from_raw(&self.ctx, p, "isl_constraint_get_div")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by `cargo xtask fuzz` (count, as a LeakSanitizer report): every consuming call
    /// leaked one reference to the context, so no context was ever freed. Once the sets are
    /// gone, the context's own handle is its only reference again.
    #[test]
    fn consuming_calls_do_not_leak_the_context() {
        let ctx = Ctx::new();
        let a = Set::parse(&ctx, "[n] -> { [i] : 0 <= i < n }").unwrap();
        let b = Set::parse(&ctx, "[n] -> { [i] : i >= 2 }").unwrap();
        let c = a.clone().intersect(b.clone()).unwrap().union(a).unwrap();
        let d = c.subtract(b).unwrap().coalesce().unwrap();
        drop(d);
        assert_eq!(Rc::strong_count(&ctx.0), 1);
    }

    /// Found on complex-cuda (a loop that halves a 64-bit counter): a coefficient 1/2^64 read
    /// as 1/0, which a division by the denominator turned into a panic. A value whose
    /// numerator or denominator does not fit in i64 is an error.
    #[test]
    fn a_denominator_beyond_i64_is_an_error_not_zero() {
        let ctx = Ctx::new();
        let p = Set::parse(&ctx, "[n] -> { [k] : 0 <= 18446744073709551616 k <= n }").unwrap();
        let pieces = p.dim_max(0).unwrap().pieces().unwrap();
        let (_, aff) = pieces.first().unwrap();
        let inner = aff.div(0).unwrap();
        let e = inner.coefficient(DimType::isl_dim_param, 0).unwrap_err();
        assert!(e.to_string().contains("does not fit in i64"), "{e}");
        // one that fits still reads exactly
        let p = Set::parse(&ctx, "[n] -> { [k] : 0 <= 4294967296 k <= n }").unwrap();
        let pieces = p.dim_max(0).unwrap().pieces().unwrap();
        let inner = pieces[0].1.div(0).unwrap();
        assert_eq!(
            inner.coefficient(DimType::isl_dim_param, 0).unwrap(),
            (1, 4294967296)
        );
    }

    #[test]
    fn count_and_bounds() {
        let ctx = Ctx::new();
        let s = Set::parse(&ctx, "{ [i, j] : 0 <= j < i < 13 }").unwrap();
        let (n, d) = s.count_val().unwrap().to_rational().unwrap();
        assert_eq!((n, d), (78, 1));
        // dim_max is a function of the parameters only: outer variables go in as parameters
        let p = Set::parse(&ctx, "[n, i] -> { [k] : 0 <= i < n and 0 <= 16 k < i }").unwrap();
        let max = p.dim_max(0).unwrap();
        let pieces = max.pieces().unwrap();
        assert!(!pieces.is_empty());
        for (dom, aff) in &pieces {
            assert!(!dom.is_empty().unwrap());
            // the bound floor((i - 1)/16) needs one local division
            assert_eq!(aff.dim(DimType::isl_dim_div).unwrap(), 1);
            let inner = aff.div(0).unwrap();
            assert_eq!(
                inner.coefficient(DimType::isl_dim_param, 1).unwrap(),
                (1, 16)
            );
        }
    }

    #[test]
    fn errors_are_results_not_aborts() {
        let ctx = Ctx::new();
        let e = Set::parse(&ctx, "{ [i] : i <= }").unwrap_err();
        assert!(e.0.contains("parse set"), "{e}");
        // the context still works after an error
        assert!(Set::parse(&ctx, "{ [i] : 0 <= i < 3 }").is_ok());
    }
}
