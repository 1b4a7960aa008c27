//! The interpreter's state and the types its parts share. It is apart from the parts
//! (expressions, statements, calls, the library models: `impl Interp` blocks in files of
//! their own) so that each can import it without importing the others.

use super::launches::Recorder;
use super::libc_rand::{LibcRand, Rand48};
use super::value::{Event, Frame, Value};
use crate::ast::{DeclKey, Span};
use crate::clang::lower::ProgramAst;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;
use std::sync::Arc;

/// Elements of an array of records or arrays made one by one; a larger one's elements are
/// unknown.
pub(super) const OBJECTS_MAX: u64 = 4096;

/// Work limits of one program's reading; the same input always stops at the same point.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Budget {
    /// Expressions and statements evaluated, in all.
    pub steps: u64,
    /// Iterations of one loop, each time it runs, before it is no longer followed.
    pub loop_iterations: u64,
    /// Steps a loop that cannot launch runs, after which it is no longer followed (its
    /// writes become unknown): host initialisation and reference computations cost little.
    pub quiet_loop_steps: u64,
    /// Nested calls.
    pub call_depth: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            steps: 20_000_000,
            loop_iterations: 1_000_000,
            quiet_loop_steps: 50_000,
            call_depth: 48,
        }
    }
}

/// Device properties the host code may ask for (`cudaGetDeviceProperties`), where the target
/// device is known.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct DeviceProps {
    pub name: Option<String>,
    pub multi_processor_count: Option<i64>,
    pub max_threads_per_block: Option<i64>,
    pub max_threads_per_multi_processor: Option<i64>,
    pub warp_size: Option<i64>,
    pub shared_mem_per_block: Option<i64>,
    pub total_global_mem: Option<i64>,
    pub major: Option<i64>,
    pub minor: Option<i64>,
    /// `clockRate`: the peak core clock, kHz.
    pub clock_rate_khz: Option<i64>,
    /// `memoryClockRate`: the peak memory clock, kHz.
    pub memory_clock_rate_khz: Option<i64>,
    /// `memoryBusWidth`, bits.
    pub memory_bus_width: Option<i64>,
    /// `l2CacheSize`, bytes.
    pub l2_cache_size: Option<i64>,
    pub regs_per_block: Option<i64>,
    pub regs_per_multiprocessor: Option<i64>,
    pub shared_mem_per_multiprocessor: Option<i64>,
    pub max_blocks_per_multi_processor: Option<i64>,
}

/// The CUDA occupancy API's answers for a kernel on the target device, which depend on the
/// kernel's registers and shared memory (known to the caller, which compiled it, not to the
/// host reading). `Err` says why an answer is unknown.
pub trait OccupancyOracle: Send + Sync + std::fmt::Debug {
    /// `cudaOccupancyMaxActiveBlocksPerMultiprocessor`: blocks of `threads` threads with
    /// `dynamic_shared` bytes that one SM runs at once.
    fn active_blocks_per_sm(
        &self,
        kernel: &str,
        threads: u64,
        dynamic_shared: u64,
    ) -> Result<u64, String>;
    /// `cudaOccupancyMaxPotentialBlockSize`: (the grid that fills the device, the block size of
    /// the highest occupancy), blocks of at most `limit` threads (0: no limit).
    fn max_potential_block_size(
        &self,
        kernel: &str,
        dynamic_shared: u64,
        limit: u64,
    ) -> Result<(u64, u64), String>;
}

#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The command line, `argv[0]` first.
    pub argv: Vec<String>,
    /// Values for named assumptions (`--param n=4096`).
    pub params: BTreeMap<String, f64>,
    pub device: DeviceProps,
    pub budget: Budget,
    pub occupancy: Option<Arc<dyn OccupancyOracle>>,
    /// The folder the program runs in, where the relative paths it opens are found; `None`:
    /// where it runs is not known, and no file it opens is looked for.
    pub run_dir: Option<std::path::PathBuf>,
}

/// How far an undecided branch that leaves early (`if (bad) return 1;`) makes the code
/// after it uncertain: to the end of the loop (`break`, `continue`), of the function
/// (`return`, `goto`), or of the program (`exit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Leave {
    Loop,
    Function,
    Program,
}

/// Why interpretation stopped early.
#[derive(Debug)]
pub enum Halt {
    /// The program called `exit` / `abort` / returned from `main`.
    Exit,
    /// An exception thrown, of the record type named (`std::runtime_error`), on its way to
    /// a handler; uncaught, it ends the program.
    Throw(Option<Arc<str>>),
    /// A work budget ran out: which, and where.
    Budget(String),
}

/// How a statement ends.
pub enum Flow {
    Normal,
    Break,
    Continue,
    Return(Value),
    /// A `goto` looking for its label in the enclosing blocks.
    Goto(Arc<str>),
}

pub(super) type Exec<T> = Result<T, Halt>;

/// A program the host compiles at run time.
#[derive(Clone, Debug)]
pub struct CompiledProgram {
    /// `nvrtcCreateProgram` or `clCreateProgramWithSource`.
    pub api: &'static str,
    /// The program's text, or why it is unknown.
    pub text: Result<String, String>,
    /// NVRTC's name for it.
    pub name: Option<String>,
    /// NVRTC's headers given as strings: (include name, text).
    pub headers: Vec<(String, String)>,
    pub options: Vec<String>,
    pub name_expressions: Vec<String>,
    /// Where it is compiled (`nvrtcCompileProgram`, `clBuildProgram`), else created.
    pub site: Span,
}

/// The state of one run of the interpreter over a program.
pub struct Interp<'p> {
    /// Where the program ended itself, with the calls that led there.
    pub(super) exited_at: Option<String>,
    pub(super) prog: &'p ProgramAst,
    pub(super) opts: &'p RunOptions,
    pub(super) globals: HashMap<DeclKey, Rc<RefCell<Value>>>,
    pub(super) frames: Vec<Rc<Frame>>,
    /// The calls being run, outermost first, with where each was called.
    pub(super) stack: Vec<(Arc<str>, Span)>,
    /// Whether each call being run returns a reference.
    pub(super) returns_ref: Vec<bool>,
    pub(super) guards: Vec<Rc<str>>,
    pub(super) steps: u64,
    pub(super) recorder: Recorder,
    /// Launches captured into a CUDA graph instead of run (`cudaStreamBeginCapture`).
    pub(super) capture: Option<Vec<Event>>,
    /// getopt's state.
    pub(super) optind: i128,
    pub(super) optarg: Value,
    pub(super) optpos: usize,
    pub(super) optind_key: Option<DeclKey>,
    pub(super) optarg_key: Option<DeclKey>,
    pub(super) assumptions: BTreeMap<String, String>,
    /// The given values the program read.
    pub(super) used: std::collections::BTreeSet<String>,
    pub(super) notes: Vec<String>,
    pub(super) missing_inputs: BTreeMap<String, String>,
    /// Functions the program declares and calls but none of its units defines.
    pub(super) undefined_calls: std::collections::BTreeSet<String>,
    pub(super) programs: Vec<CompiledProgram>,
    /// Above zero while both sides of an undecided condition run: an `exit` there ends
    /// only that side, not the program.
    pub(super) uncertain: usize,
    /// Why what the host wrote into device memory is no longer followed, once a loop that
    /// copies into it was not followed to its end: launches after it do not take the bytes.
    pub(super) device_data_lost: Option<Rc<str>>,
    /// The C library's random number generator (`rand`, `srand`) while kerncast has
    /// followed every call of it; `None` once one may have run unseen (in a loop not
    /// followed to its end, on a side of an undecided condition, in code not read).
    pub(super) rand: RefCell<Option<LibcRand>>,
    /// The C library's 48-bit generator (`drand48`, `srand48`), likewise.
    pub(super) rand48: RefCell<Option<Rand48>>,
    /// Conditions of undecided branches that may have exited the program: every launch
    /// after them runs under them.
    pub(super) exit_guards: Vec<Rc<str>>,
    /// The entries of `guards` added by an undecided branch that may have returned: they
    /// hold until the function returns (the end of a loop keeps them).
    pub(super) fn_guards: Vec<Rc<str>>,
    /// How far the branch being run may have left early, for the undecided condition
    /// around it.
    pub(super) left: Option<Leave>,
    /// Whether a function may launch a kernel, by declaration, as far as computed.
    pub(super) may_launch_cache: RefCell<HashMap<DeclKey, bool>>,
    /// The same for loop bodies, by their address in the (immutable) tree.
    pub(super) body_launch_cache: HashMap<*const crate::ast::Stmt, bool>,
    /// How often each loop that cannot launch (by its address in the tree) was not followed
    /// to its end: each time it runs again it is followed for half as many steps as the time
    /// before, so a costly loop inside a launching loop does not spend the whole budget.
    pub(super) quiet_cut: HashMap<*const crate::ast::Stmt, u32>,
    /// What each function of the program may write, as far as made.
    pub(super) summaries: RefCell<HashMap<DeclKey, Option<Rc<Summary>>>>,
    /// The summaries being made, outermost first, each with its value so far: a recursive
    /// call (`parse` → `parseFile` → `parse`) reads it, and the summary is made again until
    /// it no longer changes.
    pub(super) summary_stack: RefCell<Vec<(DeclKey, Rc<Summary>)>>,
    /// Summaries made from such a value so far, with the position in `summary_stack` of the
    /// outermost one they read: good until that one's value changes.
    pub(super) provisional: RefCell<HashMap<DeclKey, (Rc<Summary>, usize)>>,
    /// The outermost position in `summary_stack` read by the summary being made.
    pub(super) summary_low: std::cell::Cell<usize>,
    /// The functions being run, outermost first, with how many undecided conditions were
    /// around each call of them.
    pub(super) active: Vec<(DeclKey, usize)>,
    /// Per function being run: the values it may have returned on a side of a condition
    /// kerncast could not decide, with the condition.
    pub(super) early_returns: Vec<Vec<(Value, Rc<str>)>>,
    /// Per loop or `switch` being run (innermost last): what it may write, the places that
    /// holds (saved at its first `break` on a side of a condition kerncast could not decide),
    /// and the state such breaks left it in, merged as they come (a snapshot of the same
    /// places, so that it merges with the loop's end), with the first break's condition. `None` for a function call: a `break` in the callee
    /// leaves none of the caller's loops.
    pub(super) loop_exits: Vec<Option<LoopExits>>,
}

/// What a loop or a `switch` writes, its places once a `break` needs them, and its state at
/// its undecided `break`s, merged. The places are saved only then: most loops have no such
/// break, and saving copies what the buffers hold; one merged state, not one per break taken,
/// since a loop may take such a break in each of many trips.
pub(super) type LoopExits = (
    Written,
    Option<super::effects::Saved>,
    Option<(super::effects::Saved, Rc<str>)>,
);

/// What code may write (found syntactically, and through the summaries of the functions it
/// calls): see [`super::effects`].
#[derive(Default, Debug, PartialEq)]
pub(super) struct Written {
    pub vars: BTreeSet<DeclKey>,
    pub contents: BTreeSet<DeclKey>,
    /// A field of the record a variable holds or points at (`s.n = …`, `p->n++`): only that
    /// field is written, not the record's others.
    pub fields: BTreeSet<(DeclKey, Arc<str>)>,
    /// What a field of such a record holds or points at (`s.data[i] = …`, `p->part[i].x = …`).
    pub field_contents: BTreeSet<(DeclKey, Arc<str>)>,
    /// Inside a method, a field of the object it runs on (`n = …`, `this->n++`).
    pub this_fields: BTreeSet<Arc<str>>,
    /// What such a field holds (`v.push_back(…)`, `a[i] = …` on members).
    pub this_field_contents: BTreeSet<Arc<str>>,
    /// The object itself may be written in any way (`this` handed out, `*this = …`).
    pub this_all: bool,
    /// `&x` arguments whose writes a callee's summary says exactly (not all of `x`).
    pub(super) exact_args: BTreeSet<*const crate::ast::Expr>,
    /// `this` nodes that are the base of a member access or a method call, not a value.
    pub(super) this_bases: BTreeSet<*const crate::ast::Expr>,
    /// Whether it may call the C library's random number generator (or code kerncast does
    /// not read, which may): the generator's state is written too.
    pub(super) rand: bool,
}

/// What a function of the program may write, as its callers see it: its parameters, its
/// writes, and which pointer and reference parameters it uses only to reach scalars (`p->n++`,
/// `p->a[i] = x`), so that what it writes through them is exactly the fields named.
#[derive(Debug)]
pub(super) struct Summary {
    pub(super) params: Vec<DeclKey>,
    /// Per parameter: used only in accesses that end in a scalar, as a method's object or
    /// as a call's argument, never copied into a variable or its address (or a field's)
    /// taken.
    pub(super) scalar_only: Vec<bool>,
    /// Its own automatic variables: another activation's, not its caller's.
    pub(super) locals: BTreeSet<DeclKey>,
    pub(super) w: Written,
    /// The member of its object a method returns (or a place in what it holds), with
    /// whether it is the member itself: see `effects::returned_field`.
    pub(super) returns_field: Option<(Arc<str>, bool)>,
}
