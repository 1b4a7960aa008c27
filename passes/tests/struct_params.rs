//! Fields of a struct passed by value (`.param .b8 k_p[16]`, read with `ld.param [k_p+8]` or a
//! vector `ld.param.v2`) are parameters of the counts, `p<i>_<offset>`: a loop bounded by a
//! field is counted exactly, and equals the emulator's count of the same bytes.

use kerncast_passes::count::{self, Options};
use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::ptx::Module;
use kerncast_passes::stats::Launch;

mod common;
use common::{data_dependent, workload};

/// `struct { int rows, cols; float scale; int pad; }`: rows and cols come by one vector load,
/// the loop runs `cols` times for each of the first `rows` threads.
const PTX: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
.visible .entry k(.param .align 8 .b8 k_p[16], .param .u64 k_out)\n{\n\
.reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n.reg .f32 %f<8>;\n\
ld.param.v2.u32 {%r1, %r2}, [k_p];\nld.param.f32 %f1, [k_p+8];\nld.param.u64 %rd1, [k_out];\n\
cvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r3, %tid.x;\nsetp.ge.s32 %p1, %r3, %r1;\n@%p1 bra DONE;\n\
mov.f32 %f2, 0f00000000;\nmov.u32 %r4, 0;\nsetp.lt.s32 %p2, %r4, %r2;\n@!%p2 bra STORE;\n\
LOOP:\nadd.f32 %f2, %f2, %f1;\nadd.s32 %r4, %r4, 1;\nsetp.lt.s32 %p3, %r4, %r2;\n@%p3 bra LOOP;\n\
STORE:\nmul.wide.s32 %rd3, %r3, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.f32 [%rd4], %f2;\n\
DONE:\nret;\n}\n";

/// LLVM's NVPTX back end (clang's CUDA and OpenCL) reads the struct through its address.
fn through_a_register() -> String {
    PTX.replace(
        "ld.param.v2.u32 {%r1, %r2}, [k_p];\n",
        "mov.b64 %rd5, k_p;\nmov.u64 %rd6, %rd5;\nld.param.u32 %r1, [%rd6];\nld.param.u32 %r2, [%rd6+4];\n",
    )
}

#[test]
fn a_loop_bounded_by_a_struct_field_is_counted_exactly() {
    let by_register = through_a_register();
    assert_ne!(by_register, PTX);
    for ptx in [PTX, by_register.as_str()] {
        loop_bounded_by_fields(ptx);
    }
}

fn loop_bounded_by_fields(ptx: &str) {
    let m = Module::parse(ptx).expect("parses");
    let f = m.kernels().next().unwrap();
    let fields: Vec<(usize, u64, &str)> = f
        .param_fields()
        .iter()
        .map(|fd| (fd.param, fd.offset, fd.ty.as_str()))
        .collect();
    assert_eq!(fields, [(0, 0, "u32"), (0, 4, "u32"), (0, 8, "f32")]);

    let block = [64, 1, 1];
    let ks = count::analyze_kernel_with(
        &m,
        "k",
        &Options {
            block: Some(block),
            grid: None,
        },
    )
    .expect("analyses");
    assert_eq!(data_dependent(&ks.assumptions), Vec::<String>::new());
    assert_eq!(ks.params.get("p0_4").map(String::as_str), Some("k_p+4"));
    for (rows, cols) in [(40i64, 7i64), (64, 0), (3, 100)] {
        let w = workload([1, 1, 1], block, &[("p0_0", rows), ("p0_4", cols)]);
        let s = ks.bind(&w).expect("binds");
        let mut bytes = vec![0u8; 16];
        bytes[0..4].copy_from_slice(&(rows as u32).to_le_bytes());
        bytes[4..8].copy_from_slice(&(cols as u32).to_le_bytes());
        bytes[8..12].copy_from_slice(&1.5f32.to_le_bytes());
        let args = [KernelArg::Bytes(bytes), KernelArg::Buffer(vec![0; 1024])];
        let launch = Launch {
            grid: [1, 1, 1],
            block,
        };
        let e = emu::run_with(&m, "k", &launch, &args, &emu::Options::default())
            .expect("emulates")
            .stats;
        assert_eq!(s.features, e.features, "rows {rows}, cols {cols}");
        let adds: f64 = s
            .features
            .iter()
            .filter(|(k, _)| k.to_string() == "op.add_sub.f32.thread")
            .map(|(_, v)| v)
            .sum();
        assert_eq!(adds, (rows * cols) as f64);
    }
}

/// The parameters `ptx`'s kernel reads at computed offsets, and those of them whose values so
/// read decide its counts.
fn computed_reads(ptx: &str) -> (Vec<usize>, Vec<usize>) {
    let m = Module::parse(ptx).expect("parses");
    let f = m.kernels().next().unwrap();
    (
        f.params_read_at_computed_offsets().into_iter().collect(),
        kerncast_passes::taint::computed_param_reads_deciding(f)
            .into_iter()
            .collect(),
    )
}

/// A struct read at a constant offset from its address is placed; one whose address the body
/// adds a run-time index to (an array inside the struct) is named as read at computed offsets,
/// and as deciding the counts where what it reads bounds a loop, not where it is only stored.
#[test]
fn an_array_in_a_struct_indexed_at_run_time_is_read_at_computed_offsets() {
    assert_eq!(computed_reads(&through_a_register()), (vec![], vec![]));
    let indexed = through_a_register().replace(
        "ld.param.u32 %r2, [%rd6+4];\n",
        "mov.u32 %r9, %tid.x;\nmul.wide.u32 %rd7, %r9, 4;\nadd.s64 %rd7, %rd6, %rd7;\n\
         ld.param.u32 %r2, [%rd7];\n",
    );
    assert_eq!(computed_reads(&indexed), (vec![0], vec![0]));
    let stored = through_a_register().replace(
        "cvta.to.global.u64 %rd2, %rd1;\n",
        "cvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r9, %tid.x;\nmul.wide.u32 %rd7, %r9, 4;\n\
         add.s64 %rd7, %rd6, %rd7;\nld.param.u32 %r10, [%rd7];\nst.global.u32 [%rd2], %r10;\n",
    );
    assert_eq!(computed_reads(&stored), (vec![0], vec![]));
}
