//! The whole kerncast CLI, built with the test crate so the bad-input suite
//! (`tests/tests/bad_input.rs`) runs the real command line as a process
//! (`CARGO_BIN_EXE_kerncast-cli`) and sees its exit status, a panic or an abort, as a user would.

fn main() -> miette::Result<()> {
    kerncast_cli::main()
}
