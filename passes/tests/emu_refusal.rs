//! The emulator refuses an instruction it cannot run when a lane executes it, naming line and
//! opcode; on a path the launch never takes (a math library's slow path) the kernel runs.

use kerncast_passes::emu::{self, EmuError, KernelArg};
use kerncast_passes::stats::Launch;

mod common;
use common::kernel;

fn run(n: i32) -> Result<emu::EmuResult, EmuError> {
    // `brkpt` stands for any instruction the emulator does not implement.
    let m = kernel(
        1,
        "mov.u32 %r1, %tid.x;\nsetp.ge.s32 %p1, %r20, 100;\n@%p1 bra SLOW;\n\
         mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r1;\nret;\n\
         SLOW:\nbrkpt;\nret;",
    );
    emu::run_with(
        &m,
        "k",
        &Launch {
            grid: [1, 1, 1],
            block: [32, 1, 1],
        },
        &[KernelArg::S32(n), KernelArg::Buffer(vec![0; 1 << 16])],
        &emu::Options::default(),
    )
}

#[test]
fn an_unimplemented_instruction_on_an_untaken_path_does_not_stop_the_run() {
    let r = run(5).expect("the slow path is not taken");
    let out = &r.buffers[&1];
    for t in 0..32u32 {
        let v = u32::from_le_bytes(out[t as usize * 4..t as usize * 4 + 4].try_into().unwrap());
        assert_eq!(v, t, "thread {t} stored its index");
    }
}

#[test]
fn an_unimplemented_instruction_that_executes_is_an_error_naming_it() {
    match run(500) {
        Err(EmuError::Unsupported { inst, line, .. }) => {
            assert_eq!(inst, "brkpt");
            assert!(line > 0);
        }
        other => panic!(
            "expected a refusal, got {:?}",
            other.map(|r| r.stats.features.len())
        ),
    }
}

/// Cooperative groups' `grid.sync()` reads the driver's `%envreg` registers: the refusal says
/// what they are and why a grid-wide barrier is beyond the emulator.
#[test]
fn a_grid_wide_barrier_s_environment_register_is_explained() {
    let m = kernel(
        1,
        "mov.u32 %r1, %envreg2;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
         st.global.u32 [%rd4], %r1;\nret;",
    );
    let launch = Launch {
        grid: [1, 1, 1],
        block: [32, 1, 1],
    };
    let args = [KernelArg::S32(0), KernelArg::Buffer(vec![0; 1 << 16])];
    match emu::run_with(&m, "k", &launch, &args, &emu::Options::default()) {
        Err(EmuError::Unsupported { why, .. }) => {
            assert!(
                why.contains("`%envreg2`") && why.contains("grid.sync()"),
                "{why}"
            )
        }
        other => panic!(
            "expected a refusal, got {:?}",
            other.map(|r| r.stats.features.len())
        ),
    }
}

/// A call the inliner leaves (here recursion) has no callee for the emulator to run: the
/// refusal names the function, at the first argument the caller stores for it, rather than
/// the call sequence's `.param` slot, which the emulator has no storage for.
#[test]
fn a_call_left_in_place_is_refused_naming_its_callee() {
    let text = ".version 7.0\n.target sm_80\n.address_size 64\n\
        .func (.param .b32 r) depth(.param .b32 n)\n{\n.reg .b32 %r<4>;\n\
        ld.param.b32 %r1, [n];\nst.param.b32 [r], %r1;\nret;\n}\n\
        .visible .entry k(.param .u64 k_out)\n{\n.reg .b32 %r<4>;\n\
        mov.u32 %r1, %tid.x;\n\
        { .param .b32 param0;\nst.param.b32 [param0], %r1;\n.param .b32 retval0;\n\
        call.uni (retval0), depth, (param0);\nld.param.b32 %r2, [retval0];\n}\nret;\n}\n";
    let m = kerncast_passes::ptx::Module::parse(text).expect("test PTX parses");
    let launch = Launch {
        grid: [1, 1, 1],
        block: [32, 1, 1],
    };
    match emu::run_with(
        &m,
        "k",
        &launch,
        &[KernelArg::Buffer(vec![0; 64])],
        &emu::Options::default(),
    ) {
        Err(EmuError::Unsupported { inst, why, .. }) => {
            assert_eq!(inst, "st.param.b32");
            assert!(
                why.contains("a call to `depth` that was not inlined"),
                "{why}"
            );
        }
        other => panic!(
            "expected a refusal, got {:?}",
            other.map(|r| r.stats.features.len())
        ),
    }
}
