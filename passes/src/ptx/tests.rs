//! Unit tests of the front end on the fixtures in `passes/tests/fixtures` (lowered from
//! `kernels.cu` by nvcc 13.5 and clang 19) and on hand-written snippets.

use super::*;

const NVCC: &str = include_str!("../../tests/fixtures/nvcc_sm80.ptx");
const CLANG: &str = include_str!("../../tests/fixtures/clang_sm80.ptx");

fn roundtrip(src: &str) {
    let a = parse(src).unwrap_or_else(|e| panic!("{e}"));
    let printed = a.to_string();
    let b = parse(&printed).unwrap_or_else(|e| panic!("reparse: {e}\n{printed}"));
    assert_eq!(a.without_spans(), b.without_spans());
}

#[test]
fn fixtures_round_trip() {
    roundtrip(NVCC);
    roundtrip(CLANG);
}

/// The parameters that hold buffers: nvcc's converted pointers, and a `.ptr .global` one; not a
/// 64-bit size that only enters the arithmetic, nor a pointer the body never dereferences.
#[test]
fn global_pointer_params_are_the_converted_ones() {
    let m = parse(NVCC).unwrap();
    assert_eq!(m.function("saxpy").unwrap().global_pointer_params(), [2, 3]);
    let m = parse(
        ".version 7.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 k_n, .param .u64 .ptr .global .align 4 k_cl,\n\
         .param .u64 k_p, .param .u64 k_unused, .param .u64 k_g)\n{\n.reg .b64 %rd<12>;\n.reg .b16 %rs<2>;\n\
         ld.param.u64 %rd1, [k_n];\nld.param.u64 %rd2, [k_p];\n\
         cvta.to.global.u64 %rd3, %rd2;\nshl.b64 %rd4, %rd1, 2;\nadd.s64 %rd5, %rd3, %rd4;\n\
         st.global.u64 [%rd5], %rd1;\nld.param.u64 %rd6, [k_g];\nadd.s64 %rd7, %rd6, 127;\n\
         and.b64 %rd8, %rd7, -128;\nadd.s64 %rd9, %rd8, %rd4;\nst.u32 [%rd9], 0;\n\
         add.s64 %rd10, %rd6, %rd1;\nld.u8 %rs1, [%rd10];\nret;\n}\n",
    )
    .unwrap();
    // `k_g` through an alignment mask to a generic store; `k_n` only scaled into addresses, or
    // added unscaled to `k_g`, where the two are no telling apart
    assert_eq!(m.function("k").unwrap().global_pointer_params(), [1, 2, 4]);
}

#[test]
fn nvcc_module_header_and_kernels() {
    let m = parse(NVCC).unwrap();
    assert_eq!(m.version, Some(Version { major: 9, minor: 5 }));
    assert_eq!(m.target, vec!["sm_80"]);
    assert_eq!(m.address_size, Some(64));
    let names: Vec<_> = m.kernels().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["saxpy", "matmul", "reduce", "callk"]);
    let saxpy = m.function("saxpy").unwrap();
    assert_eq!(saxpy.params.len(), 4);
    assert_eq!(saxpy.params[1].ty, PtxType::F32);
    assert_eq!(saxpy.param_index("saxpy_param_3"), Some(3));
    let regs = saxpy.reg_decls();
    assert_eq!(
        regs[1],
        RegDecl {
            prefix: "%f".into(),
            count: Some(5),
            ty: PtxType::F32,
            vector: None
        }
    );
    let matmul = m.function("matmul").unwrap();
    assert_eq!(matmul.shared_bytes(), 2048);
    let callk = m.function("callk").unwrap();
    assert_eq!(callk.perf_values("maxntid"), Some(&[256, 1, 1][..]));
    assert_eq!(callk.perf_values("minnctapersm"), Some(&[2][..]));
}

#[test]
fn instruction_shape() {
    let m = parse(NVCC).unwrap();
    let saxpy = m.function("saxpy").unwrap();
    let insts: Vec<&Inst> = saxpy.instructions().collect();
    let ld = insts
        .iter()
        .find(|i| i.opcode == "ld" && i.has_modifier("nc"))
        .unwrap();
    assert_eq!(ld.modifiers, ["global", "nc"]);
    assert_eq!(ld.types, [PtxType::F32]);
    assert_eq!(ld.state_space(), Some(StateSpace::Global));
    assert!(ld.is_load());
    assert_eq!(
        ld.operands[1],
        Operand::Addr {
            base: AddrBase::Reg("%rd6".into()),
            offset: 0
        }
    );
    let loc = ld.loc.as_ref().unwrap();
    assert_eq!((loc.file_index, loc.line, loc.col), (1, 2, 3));
    assert!(loc.file_name.as_deref().unwrap().ends_with("k.cu"));
    let mov = insts.iter().find(|i| i.opcode == "mov").unwrap();
    assert_eq!(mov.operands[1], Operand::SpecialReg(SReg::Ctaid(Dim::X)));
    let bra = insts.iter().find(|i| i.is_branch()).unwrap();
    assert_eq!(
        bra.pred,
        Some(Guard {
            negated: false,
            reg: "%p1".into()
        })
    );
    assert_eq!(bra.branch_target(), Some("$L__BB0_2"));
    assert_eq!((ld.span.line, ld.span.col), (47, 2));
}

#[test]
fn operands_of_every_kind() {
    let src = r#".version 8.0
.target sm_90a
.address_size 64
.global .align 4 .b8 tab[8] = {1, 2, 3, 4, 5, 6, 7, 8};
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u64 .ptr .global .align 4 p, .param .align 8 .b8 s[16])
.reqntid 128, 1, 1
{
	.reg .b32 %r<4>;
	.reg .pred %p;
	.reg .f64 %d;
	shfl.sync.down.b32 %r1|%p, %r2, 1, 31, -1;
	mov.f32 %r1, 0f3F800000;
	mov.f64 %d, 0d3FF0000000000000;
	add.f32 %r1, %r1, 1.5;
	ld.shared::cta.v2.u32 {%r1, _}, [dyn+8];
	ld.global.u32 %r3, [%r2+-4];
	prmt.b32.f4e %r1, %r2, %r3, %r1;
	@!%p bra $L__x;
	setp.eq.and.u32 %p, %r1, 0x10, !%p;
$L__x:
	mov.u32 %r1, %clusterid.x;
	ret;
}
"#;
    let m = parse(src).unwrap();
    roundtrip(src);
    let k = m.function("k").unwrap();
    assert_eq!(
        k.params[0].ptr.as_ref().unwrap().space,
        Some(StateSpace::Global)
    );
    assert_eq!(k.params[1].array, [Some(16)]);
    assert_eq!(m.globals.len(), 2);
    assert_eq!(m.globals[1].array, [None]);
    let insts: Vec<&Inst> = k.instructions().collect();
    assert!(matches!(insts[0].operands[0], Operand::Pair(..)));
    assert_eq!(insts[0].operands[4], Operand::Imm(-1));
    assert_eq!(insts[1].operands[1], Operand::ImmF32(0x3F80_0000));
    assert_eq!(insts[2].operands[1], Operand::ImmF64(1f64.to_bits()));
    assert_eq!(insts[3].operands[2], Operand::ImmFloat(1.5f64.to_bits()));
    assert_eq!(insts[4].state_space(), Some(StateSpace::Shared));
    assert_eq!(insts[4].vector_width(), 2);
    assert_eq!(
        insts[4].operands[0],
        Operand::Vector(vec![Operand::Reg("%r1".into()), Operand::Sink])
    );
    assert_eq!(
        insts[5].operands[1],
        Operand::Addr {
            base: AddrBase::Reg("%r2".into()),
            offset: -4
        }
    );
    assert_eq!(insts[6].type_pos, 0);
    assert_eq!(insts[6].full_opcode(), "prmt.b32.f4e");
    assert!(insts[7].pred.as_ref().unwrap().negated);
    assert!(matches!(insts[8].operands[3], Operand::Not(_)));
    assert_eq!(
        insts[9].operands[1],
        Operand::SpecialReg(SReg::Other("%clusterid.x".into()))
    );
}

#[test]
fn errors_carry_line_and_column() {
    let src = ".version 8.0\n.target sm_80\n.entry k()\n{\n\tadd.s32 %r1, %r2 %r3;\n}\n";
    let e = parse(src).unwrap_err();
    assert_eq!((e.span.line, e.span.col), (5, 19));
    assert!(e.message.contains("expected `,` or `;`"), "{}", e.message);
    let e = parse(".version 8.0\n.entry k()\n{\n\tret;\n").unwrap_err();
    assert!(e.message.contains("unclosed"), "{}", e.message);
    let e = parse(".version 8.0\n# nope\n").unwrap_err();
    assert_eq!((e.span.line, e.span.col), (2, 1));
    assert!(e.message.contains("unexpected character"), "{}", e.message);
    // An invalid character inside constructs that scan to a terminator.
    for src in [
        ".version 8.0\n.alias a, # b;\n",
        ".version 8.0\n.section .debug_str { # }\n",
        ".version 8.0\n.file 1 \"a.cu\", #\n",
        ".version 8.0\n.entry k()\n{\n\t.loc 1 2 3, #\n}\n",
        ".version 8.0\n.entry k()\n{\n\t/* open\n}\n",
    ] {
        let e = parse(src).unwrap_err();
        assert!(
            e.message.contains("unexpected character") || e.message.contains("unterminated"),
            "{src:?}: {}",
            e.message
        );
    }
}

/// Deterministic mutations of a real kernel (bytes deleted, duplicated, replaced by PTX
/// punctuation): the parser never panics, and whatever still parses round-trips.
#[test]
fn mutated_input_never_panics() {
    let base = &NVCC[..NVCC.find("// .globl\tmatmul").unwrap()];
    let alphabet = b"{}()[];,.%@!|<>=+-_ 0f9\n\"/*x";
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut ok, mut err) = (0, 0);
    for _ in 0..1500 {
        let mut b = base.as_bytes().to_vec();
        for _ in 0..1 + next() % 3 {
            let i = (next() as usize) % b.len();
            match next() % 3 {
                0 => {
                    b.remove(i);
                }
                1 => b.insert(i, b[i]),
                _ => b[i] = alphabet[(next() as usize) % alphabet.len()],
            }
        }
        let src = String::from_utf8_lossy(&b);
        match parse(&src) {
            Ok(m) => {
                ok += 1;
                let again = parse(&m.to_string()).unwrap_or_else(|e| panic!("{e}\n{src}"));
                assert_eq!(m.without_spans(), again.without_spans(), "{src}");
            }
            Err(e) => {
                err += 1;
                assert!(e.span.start <= src.len() && e.span.line >= 1, "{e:?}");
            }
        }
    }
    assert!(ok > 0 && err > 0, "ok {ok}, err {err}");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let src = format!(
        ".version 8.0\n.entry k()\n{{\n{}\n{}}}\n",
        "{".repeat(10_000),
        "}".repeat(10_000)
    );
    let e = parse(&src).unwrap_err();
    assert!(e.message.contains("nesting too deep"), "{}", e.message);
    let src = format!(
        ".version 8.0\n.entry k()\n{{\n\tmov.u32 %r1, {}%r2;\n}}\n",
        "!".repeat(10_000)
    );
    assert!(parse(&src)
        .unwrap_err()
        .message
        .contains("nesting too deep"));
}

#[test]
fn syntax_zoo() {
    let src = include_str!("../../tests/fixtures/syntax_zoo.ptx");
    roundtrip(src);
    let m = parse(src).unwrap();
    assert_eq!(m.target, ["sm_90a"]);
    let names: Vec<&str> = m.globals.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "table",
            "coeff",
            "half_val",
            "ptrs",
            "weak_counter",
            "common_counter",
            "tex0",
            "dyn_smem"
        ]
    );
    assert_eq!(
        m.globals[0].init,
        Some(Initializer::List(vec![
            Initializer::Value(Operand::Imm(1)),
            Initializer::Value(Operand::Imm(16)),
            Initializer::Value(Operand::Imm(3)),
            Initializer::Value(Operand::Imm(0o77)),
        ]))
    );
    assert!(
        matches!(&m.globals[3].init, Some(Initializer::List(v)) if v[0] == Initializer::Generic("table".into()))
    );
    assert_eq!(m.globals[4].linkage, Some(Linkage::Weak));
    assert_eq!(m.globals[6].ty, PtxType::Texref);
    let kinds: Vec<&str> = m.directives.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(kinds, ["pragma", "alias"]);
    assert_eq!(m.directives[1].text, "square_alias, square");
    assert!(m.function("square_alias").unwrap().is_declaration);
    assert_eq!(
        m.function("never_returns").unwrap().perf[0].name,
        "noreturn"
    );
    assert_eq!(m.files[0].extra.as_deref(), Some("1700000000, 1234"));
    let k = m.function("zoo").unwrap();
    assert_eq!(k.perf_values("maxnreg"), Some(&[64][..]));
    assert_eq!(k.shared_bytes(), 512);
    let insts: Vec<&Inst> = k.instructions().collect();
    let find = |op: &str| insts.iter().find(|i| i.full_opcode() == op).unwrap();
    assert_eq!(find("mov.u64").operands[1], Operand::Symbol("table".into()));
    assert!(insts.iter().any(|i| i.operands.get(1)
        == Some(&Operand::SymOffset {
            name: "table".into(),
            offset: 8
        })));
    let tex = find("tex.2d.v4.f32.s32");
    assert!(matches!(&tex.operands[1], Operand::AddrList(v) if v.len() == 2));
    assert_eq!(tex.types, [PtxType::F32, PtxType::S32]);
    let call = find("call.uni");
    assert_eq!(call.operands[1], Operand::Symbol("square".into()));
    assert!(k
        .body
        .iter()
        .any(|s| matches!(s, Statement::Block(b) if b.body.len() == 6)));
    assert!(k
        .body
        .iter()
        .any(|s| matches!(s, Statement::Pragma(p) if p.strings == ["nounroll"])));
    let st = find("st.global.u32");
    assert_eq!(
        st.loc.as_ref().unwrap().file_name.as_deref(),
        Some("zoo.cu")
    );
    assert_eq!(st.loc.as_ref().unwrap().line, 20);
    assert!(find("exit").is_exit());
}

#[test]
fn scoped_registers_that_shadow_are_renamed_apart() {
    let src = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\
        .reg .b32 %r<4>;\n.reg .pred %p<2>;\nmov.u32 %r3, 7;\n\
        {\n.reg .u32 %r1, %r3, %t;\nmov.u32 %r3, 1;\nmov.u32 %t, %r3;\n{\n.reg .pred %p1;\nsetp.eq.u32 %p1, %r3, 1;\n@%p1 add.u32 %r2, %r3, %t;\n}\n}\n\
        add.u32 %r1, %r3, 1;\nret;\n}\n";
    let m = Module::parse(src).unwrap();
    let f = m.kernels().next().unwrap();
    let text: Vec<String> = f
        .instructions()
        .map(|i| {
            let mut s = i.opcode.clone();
            if let Some(g) = &i.pred {
                s = format!("@{} {s}", g.reg);
            }
            for o in &i.operands {
                s += &format!(" {o}");
            }
            s
        })
        .collect();
    assert_eq!(
        text,
        [
            "mov %r3 7",
            // the block's own %r3, a different register from the function's
            "mov %r3_s2_ 1",
            "mov %t %r3_s2_",
            // the inner block's %p1 shadows the function's %p<2>; %r2 is the function's
            "setp %p1_s3_ %r3_s2_ 1",
            "@%p1_s3_ add %r2 %r3_s2_ %t",
            // after the block, %r3 is the function's again
            "add %r1 %r3 1",
            "ret",
        ]
    );
    // the renamed module prints and parses to itself
    roundtrip(&m.to_string());
}

/// A kernel's shared memory: sized arrays in its body and those of module scope it names
/// (not another kernel's), and the unsized `extern` arrays the launch sizes.
#[test]
fn kernel_shared_counts_what_the_kernel_names() {
    let m = Module::parse(
        ".version 7.0\n.target sm_80\n.address_size 64\n\
         .shared .align 4 .b8 table[256];\n.shared .align 4 .b8 other[1024];\n\
         .extern .shared .align 16 .b8 buf[];\n\
         .visible .entry k()\n{\n.reg .b32 %r<3>;\n.shared .align 4 .b8 tile[64];\n\
         mov.u32 %r1, buf;\nld.shared.u32 %r2, [table+4];\nst.shared.u32 [tile], %r2;\nret;\n}\n\
         .visible .entry j()\n{\n.reg .b32 %r<2>;\nld.shared.u32 %r1, [other];\nret;\n}\n",
    )
    .unwrap();
    let k = m.kernel_shared(m.function("k").unwrap());
    assert_eq!(k.static_bytes, 64 + 256);
    assert_eq!(k.dynamic, vec!["buf".to_string()]);
    let j = m.kernel_shared(m.function("j").unwrap());
    assert_eq!((j.static_bytes, j.dynamic.len()), (1024, 0));
}

/// Found by `cargo xtask fuzz` (ptx): `3E800` parsed as infinity and printed as `inf.0`, which
/// does not parse back. A decimal literal no double holds is an error at its column.
#[test]
fn a_float_literal_out_of_range_is_an_error() {
    for lit in ["3E800", "-3E800"] {
        let e = parse(&format!(".entry s{{d {lit};}}")).unwrap_err();
        assert!(e.message.contains("out of range"), "{lit}: {}", e.message);
        assert_eq!(e.span.line, 1);
    }
    let m = parse(".entry s{d 3E300;}").unwrap();
    assert_eq!(
        parse(&m.to_string()).unwrap().without_spans(),
        m.without_spans()
    );
}

/// A `__managed__` variable (nvcc writes `.attribute(.managed)`) parses, keeps its attribute
/// and prints back the same.
#[test]
fn managed_globals_parse_and_round_trip() {
    let src = ".version 8.0\n.target sm_90\n.address_size 64\n\
               .global .attribute(.managed) .align 4 .u32 n_matches;\n\
               .global .attribute(.managed) .align 1 .u8 repeat_kernel;\n\
               .visible .entry k()\n{\n.reg .b32 %r<2>;\n\
               ld.global.u32 %r1, [n_matches];\nret;\n}\n";
    let m = parse(src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.globals.len(), 2);
    assert_eq!(m.globals[0].attribute.as_deref(), Some(".managed"));
    assert_eq!(m.globals[0].align, Some(4));
    roundtrip(src);
    let unified = src.replace(".attribute(.managed)", ".attribute(.unified(19,95))");
    let m = parse(&unified).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.globals[0].attribute.as_deref(), Some(".unified(19,95)"));
    roundtrip(&unified);
    let bad = src.replace(".attribute(.managed)", ".attribute .managed");
    assert!(parse(&bad).is_err());
}
