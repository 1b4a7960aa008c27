//! Work budgets: how much one analysis or emulated run may do before it stops with an error
//! naming the kernel, the stage and the knob. They count work (isl operations, warp steps,
//! bytes), never time, so the same input gives the same output on an idle or a busy machine.
//!
//! Why process-wide: the budgets are set once from the command line or `kerncast.toml` and
//! read deep inside the counter and the emulator (every isl context, every run); passing them
//! through each call would touch every signature for one number each.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The budgets in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budgets {
    /// isl operations one isl context may do (`isl_ctx_set_max_operations`); 0: no limit.
    pub isl_ops: u64,
    /// Warp-instruction steps one emulated run may take.
    pub emu_steps: u64,
    /// Bytes one emulated run may hold.
    pub emu_bytes: u64,
}

/// isl operations per context by default: the whole test corpus counts well within a tenth of it.
pub const DEFAULT_ISL_OPS: u64 = 200_000_000;
/// Warp steps one emulated run may take by default: a few seconds of an optimised build.
/// (Defined here, not in `emu`, so the budgets stay a leaf that `poly::isl` and `emu` both read.)
pub const DEFAULT_EMU_STEPS: u64 = 200_000_000;
/// Bytes one emulated run may hold by default (a twelfth of a 24 GiB machine's memory, so a
/// few runs side by side fit).
pub const DEFAULT_EMU_BYTES: u64 = 2 << 30;

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            isl_ops: DEFAULT_ISL_OPS,
            emu_steps: DEFAULT_EMU_STEPS,
            emu_bytes: DEFAULT_EMU_BYTES,
        }
    }
}

static ISL_OPS: AtomicU64 = AtomicU64::new(DEFAULT_ISL_OPS);
static EMU_STEPS: AtomicU64 = AtomicU64::new(DEFAULT_EMU_STEPS);
static EMU_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_EMU_BYTES);

/// Sets the budgets for the rest of the process (the CLI does it once, before any analysis).
pub fn set(b: Budgets) {
    ISL_OPS.store(b.isl_ops, Ordering::Relaxed);
    EMU_STEPS.store(b.emu_steps, Ordering::Relaxed);
    EMU_BYTES.store(b.emu_bytes, Ordering::Relaxed);
}

thread_local! {
    /// Budgets of the analysis running on this thread, where its caller fixed them.
    static LOCAL: std::cell::Cell<Option<Budgets>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with budgets `b` on this thread (an analysis thread takes its counter's).
pub fn scoped<T>(b: Budgets, f: impl FnOnce() -> T) -> T {
    let before = LOCAL.with(|l| l.replace(Some(b)));
    let out = f();
    LOCAL.with(|l| l.set(before));
    out
}

/// The budgets in force on this thread.
pub fn get() -> Budgets {
    if let Some(b) = LOCAL.with(|l| l.get()) {
        return b;
    }
    Budgets {
        isl_ops: ISL_OPS.load(Ordering::Relaxed),
        emu_steps: EMU_STEPS.load(Ordering::Relaxed),
        emu_bytes: EMU_BYTES.load(Ordering::Relaxed),
    }
}

/// Budgets given by name (`--isl-ops`, or `[budgets]` in `kerncast.toml`); unset ones keep
/// their value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overrides {
    pub isl_ops: Option<u64>,
    pub emu_steps: Option<u64>,
    pub emu_bytes: Option<u64>,
}

impl Overrides {
    /// The first budget set to 0, by name: a budget of nothing would refuse every kernel, and
    /// "no limit" is not on offer (every stage is bounded).
    pub fn zero(&self) -> Option<&'static str> {
        [
            ("isl_ops", self.isl_ops),
            ("emu_steps", self.emu_steps),
            ("emu_bytes", self.emu_bytes),
        ]
        .into_iter()
        .find_map(|(k, v)| (v == Some(0)).then_some(k))
    }
}

/// Whether the command line set each budget (then `kerncast.toml` does not change it).
static PINNED: [AtomicBool; 3] = [
    AtomicBool::new(false),
    AtomicBool::new(false),
    AtomicBool::new(false),
];

fn apply(o: &Overrides, pin: bool) {
    for (i, (v, cell)) in [
        (o.isl_ops, &ISL_OPS),
        (o.emu_steps, &EMU_STEPS),
        (o.emu_bytes, &EMU_BYTES),
    ]
    .into_iter()
    .enumerate()
    {
        if let Some(v) = v {
            if pin || !PINNED[i].load(Ordering::Relaxed) {
                cell.store(v, Ordering::Relaxed);
            }
            if pin {
                PINNED[i].store(true, Ordering::Relaxed);
            }
        }
    }
}

/// The command line's budgets: they win over `kerncast.toml`'s.
pub fn set_from_flags(o: &Overrides) {
    apply(o, true);
}

/// `kerncast.toml`'s `[budgets]`, where the command line set none.
pub fn set_from_config(o: &Overrides) {
    apply(o, false);
}
