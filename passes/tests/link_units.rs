//! Device linking of relocatable device code: a kernel whose PTX only declares a function of
//! another translation unit gets that unit's definition (and what it needs: its own helpers,
//! its constant table), so inlining counts the callee's work as nvlink's program runs it.

use kerncast_passes::count::{self, Options};
use kerncast_passes::inline::inline_calls;
use kerncast_passes::link::link;
use kerncast_passes::ptx::{Linkage, Module};
use kerncast_passes::stats::{DType, Feature, Granularity, OpKind};

mod common;
use common::workload;

/// The kernel's unit (as `clang -fgpu-rdc` writes it): `k(n, out)` stores `scale(tid)` for
/// `tid < n`, where `scale` is defined elsewhere; it has a `static` helper `twice` and a
/// constant `tbl` of its own whose names the other unit also uses.
const CALLER: &str = include_str!("fixtures/rdc_caller.ptx");

/// The other unit: exported `scale(x)` = `twice(x) * tbl[1]` with its own `static` `twice`
/// (three FMAs, not the caller's add) and its own constant `tbl`.
const LIBRARY: &str = include_str!("fixtures/rdc_library.ptx");

fn thread_ops(ks: &count::KernelStats, n: i64, kind: OpKind) -> f64 {
    let s = ks
        .bind(&workload([1, 1, 1], [64, 1, 1], &[("0", n)]))
        .expect("binds");
    s.features
        .get(&Feature::Op {
            kind,
            ty: DType::F32,
            gran: Granularity::Thread,
        })
        .copied()
        .unwrap_or(0.0)
}

#[test]
fn a_call_to_another_units_function_is_linked_and_its_work_counted() {
    let caller = Module::parse(CALLER).expect("parses");
    let library = Module::parse(LIBRARY).expect("parses");

    // unlinked, the call stays a call and none of the callee's work is counted
    let alone = inline_calls(&caller);
    assert_eq!(alone.not_inlined.len(), 1, "{:?}", alone.not_inlined);
    assert_eq!(alone.not_inlined[0].callee, "scale");

    let linked = link(&caller, &[&library]);
    let brought: Vec<&str> = linked.functions.iter().map(|(n, _)| n.as_str()).collect();
    assert!(brought.contains(&"scale"), "{brought:?}");
    // the library's `static twice` and `tbl` are its own objects: renamed, not the caller's
    let twice = brought
        .iter()
        .find(|n| n.starts_with("twice$"))
        .expect("the library's twice comes renamed");
    assert!(linked
        .module
        .function("twice")
        .is_some_and(|f| f.instructions().count() == 4));
    let tbl: Vec<_> = linked
        .module
        .globals
        .iter()
        .filter(|g| g.name.starts_with("tbl"))
        .collect();
    assert_eq!(tbl.len(), 2, "both constant tables are there");
    assert!(tbl.iter().any(|g| g.name != "tbl" && g.init.is_some()));
    let scale = linked.module.function("scale").expect("scale");
    assert!(!scale.is_declaration);
    assert_eq!(scale.linkage, Some(Linkage::Visible));
    let named = scale.symbols_named();
    assert!(named.contains(twice), "{named:?}");
    assert!(
        !named.contains("twice") && !named.contains("tbl"),
        "{named:?}"
    );

    // printed, every function comes after the functions it calls (ptxas declares before use)
    let text = linked.module.to_string();
    let at = |what: &str| {
        text.find(what)
            .unwrap_or_else(|| panic!("{what} in\n{text}"))
    };
    assert!(at(&format!(") {twice}(")) < at(") scale("), "{text}");
    assert!(at(") scale(") < at(".entry k("), "{text}");
    let reparsed = Module::parse(&text).expect("the printed module parses");
    assert_eq!(reparsed.functions.len(), linked.module.functions.len());

    let inl = inline_calls(&linked.module);
    assert!(inl.not_inlined.is_empty(), "{:?}", inl.not_inlined);
    let ks = count::analyze_kernel_with(
        &inl.module,
        "k",
        &Options {
            block: Some([64, 1, 1]),
            grid: None,
        },
    )
    .expect("analyses");
    for n in [10, 64] {
        assert_eq!(thread_ops(&ks, n, OpKind::Fma), (3 * n) as f64, "n={n}");
        assert_eq!(thread_ops(&ks, n, OpKind::Mul), n as f64, "n={n}");
        assert_eq!(
            thread_ops(&ks, n, OpKind::AddSub),
            0.0,
            "the caller's twice is not run"
        );
    }
}

#[test]
fn declarations_no_library_defines_stay_and_a_module_without_any_is_unchanged() {
    let caller = Module::parse(CALLER).expect("parses");
    let other = Module::parse(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .func unrelated()\n{\n\tret;\n}\n",
    )
    .expect("parses");
    let linked = link(&caller, &[&other]);
    assert!(linked.functions.is_empty());
    assert_eq!(linked.module, caller);
    assert_eq!(inline_calls(&linked.module).not_inlined.len(), 1);

    let library = Module::parse(LIBRARY).expect("parses");
    let lib_alone = link(&library, &[&caller]);
    assert!(
        lib_alone.functions.is_empty(),
        "nothing to resolve in a module that declares nothing"
    );
}
