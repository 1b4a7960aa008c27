//! kerncast's host-code reading: a program (its source files, the flags each is built with,
//! and the command line it runs with) in, typed kernel launches out.
//!
//! C, C++ and CUDA host code is parsed by libclang 19 with the program's real flags
//! ([`compdb`]), lowered to a small tree ([`ast`], [`clang::lower`]) and run by an abstract
//! interpreter ([`interp`]) that computes the values reaching each launch as C computes them.
//! The kernel a launch runs is the declaration clang resolved (namespace, overload, template
//! instance). What cannot be known (data read at run time) is a named assumption with its
//! reason, never a guess.

pub mod ast;
mod c_host;
pub mod clang;
pub mod compdb;
pub mod drawn;
mod embedded_c;
mod heap;
pub mod interp;
mod output;
mod program;
mod python;
pub mod torch_api;

pub use python::gpu_scripts;

pub use compdb::{Toolchain, UnitSpec};
pub use interp::{Budget, DeviceProps, OccupancyOracle};
pub use output::{
    lfs_pointer_note, names_missing_program_file, BufferData, CallSite, EmbeddedSource,
    HostReading, Launch, Scalar, SourceOrigin, Unreached, LOCAL_SIZE_NAMES,
};
pub use program::{HostError, Options, Program};

/// Reads a program's host code: every unit parsed, `main` (or the launchers nothing calls)
/// interpreted, launches returned with what could not be resolved and why.
pub fn read(program: &Program, opts: &Options) -> Result<HostReading, HostError> {
    // The interpreter recurses on the program's nesting (bounded by the lowering's depth
    // limit and the call-depth budget); give it a stack that holds the deepest allowed.
    let program = program.clone();
    let opts = opts.clone();
    let (reading, left) = std::thread::Builder::new()
        .name("kerncast-host".into())
        .stack_size(256 << 20)
        .spawn(move || {
            // What the interpreters made is emptied when the reading ends, which frees the
            // cycles the program made among it. What it returns cannot hold any of it: a
            // reading crosses threads here, and the interpreters' values are not `Send`.
            let reading = {
                let _heap = heap::Reading::open();
                read_on_this_thread(&program, &opts)
            };
            (reading, heap::left_alive())
        })
        .map_err(|e| HostError::Parse(format!("cannot start the host reader: {e}")))?
        .join()
        .map_err(|_| HostError::Parse("the host reader stopped unexpectedly".into()))?;
    LEFT_BY_LAST_READ.with(|l| l.set(left));
    reading
}

thread_local! {
    static LEFT_BY_LAST_READ: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many of the containers the last [`read`] on this thread made (variables' cells,
/// records, buffers, frames; Python lists, dicts, objects, scopes) were still alive when it
/// ended: zero, unless something holds one past the reading (a leak). For tests.
#[doc(hidden)]
pub fn live_containers() -> usize {
    LEFT_BY_LAST_READ.with(std::cell::Cell::get)
}

fn read_on_this_thread(program: &Program, opts: &Options) -> Result<HostReading, HostError> {
    // Python hosts (`.py` units) are read by their own interpreter, which reads the C++ of the
    // PyTorch extensions they build through this crate's C side.
    if program.units.iter().any(|u| python::is_python(&u.file)) {
        return python::read(program, opts);
    }
    c_host::read(program, opts)
}
