//! CFG unit tests on hand-written kernels with known shapes and on the nvcc fixture.

use super::*;
use crate::ptx::parse;

fn cfg_of(body: &str) -> Cfg {
    let src = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n{body}\n}}\n"
    );
    let m = parse(&src).unwrap();
    Cfg::build(&m.functions[0])
}

#[test]
fn if_then_splits_and_dominates() {
    let c = cfg_of(
        "\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n\tmov.u32 %r1, %tid.x;\n\tsetp.ge.s32 %p1, %r1, 4;\n\t@%p1 bra $L__done;\n\tadd.s32 %r2, %r1, 1;\n$L__done:\n\tret;",
    );
    assert_eq!(c.blocks.len(), 3);
    assert_eq!(c.blocks[0].insts.len(), 3);
    assert_eq!(c.blocks[2].labels, ["$L__done"]);
    let mut e = c.edges.clone();
    e.sort();
    assert_eq!(
        e,
        vec![
            Edge {
                from: 0,
                to: 1,
                kind: EdgeKind::NotTaken
            },
            Edge {
                from: 0,
                to: 2,
                kind: EdgeKind::Taken
            },
            Edge {
                from: 1,
                to: 2,
                kind: EdgeKind::Fallthrough
            },
        ]
    );
    assert_eq!(c.idom, vec![None, Some(0), Some(0)]);
    assert!(c.loops.is_empty());
    assert!(c.blocks[2].exits);
}

#[test]
fn nested_loops_have_depth_and_parent() {
    // for i { for j { } }  with rotated loops: header blocks carry the back edges.
    let c = cfg_of(
        "\t.reg .pred %p<3>;\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, 0;\n$L__outer:\n\tmov.u32 %r2, 0;\n$L__inner:\n\tadd.s32 %r2, %r2, 1;\n\tsetp.lt.s32 %p1, %r2, 8;\n\t@%p1 bra $L__inner;\n\tadd.s32 %r1, %r1, 1;\n\tsetp.lt.s32 %p2, %r1, 8;\n\t@%p2 bra $L__outer;\n\tret;",
    );
    assert_eq!(c.blocks.len(), 5);
    assert_eq!(c.loops.len(), 2);
    let outer = &c.loops[0];
    let inner = &c.loops[1];
    assert_eq!(outer.header, 1);
    assert_eq!(outer.blocks, vec![1, 2, 3]);
    assert_eq!(outer.depth, 1);
    assert_eq!(inner.header, 2);
    assert_eq!(inner.blocks, vec![2]);
    assert_eq!(inner.parent, Some(0));
    assert_eq!(inner.depth, 2);
    assert_eq!(c.loop_depth(2), 2);
    assert_eq!(c.loop_depth(3), 1);
    assert_eq!(c.loop_depth(4), 0);
    assert_eq!(inner.exits, vec![3]);
    assert!(c.dominates(1, 3));
    let dot = c.to_dot();
    assert!(dot.contains("subgraph cluster_loop1"));
    assert!(dot.contains("bb3 -> bb1"));
}

#[test]
fn unknown_target_and_unreachable_are_reported() {
    let c = cfg_of("\tbra $L__nowhere;\n\tret;");
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    assert!(c.warnings[0].contains("$L__nowhere"));
    assert!(!c.reachable(1));
}

#[test]
fn irreducible_cycle_is_reported() {
    // Two entries into the cycle {1, 2}: neither dominates the other.
    let c = cfg_of(
        "\t.reg .pred %p<2>;\n\t@%p1 bra $L__b;\n$L__a:\n\tnop;\n$L__b:\n\tnop;\n\t@%p1 bra $L__a;\n\tret;",
    );
    assert!(c.loops.is_empty());
    assert!(
        c.warnings.iter().any(|w| w.contains("irreducible")),
        "{:?}",
        c.warnings
    );
}

#[test]
fn nvcc_matmul_has_one_loop() {
    let m = parse(include_str!("../../tests/fixtures/nvcc_sm80.ptx")).unwrap();
    let c = Cfg::build(m.function("matmul").unwrap());
    assert_eq!(c.loops.len(), 1);
    assert_eq!(c.blocks[c.loops[0].header].labels, ["$L__BB1_2"]);
    assert!(c.warnings.is_empty());
    let total: usize = c.blocks.iter().map(|b| b.insts.len()).sum();
    assert_eq!(total, m.function("matmul").unwrap().instructions().count());
}

#[test]
fn latch_laid_out_before_header_is_reducible() {
    // clang's layout: a jump into the header, which follows the latch in the text.
    let c = cfg_of(
        "\t.reg .pred %p<3>;\n\tbra.uni $L__h;\n$L__latch:\n\t@%p1 bra $L__done;\n$L__h:\n\t@%p2 bra $L__latch;\n\tbra.uni $L__latch;\n$L__done:\n\tret;",
    );
    assert_eq!(c.loops.len(), 1);
    assert_eq!(c.blocks[c.loops[0].header].labels, ["$L__h"]);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

/// Post-dominators: an `if` joins at its end label; a guarded return's paths meet only at the
/// function's end (the index one past the last block); a loop that never ends has none.
#[test]
fn post_dominators_meet_at_joins_returns_and_never_in_endless_loops() {
    let c = cfg_of(
        "\t.reg .pred %p<3>;\n\t.reg .b32 %r<3>;\n\tmov.u32 %r1, %tid.x;\n\tsetp.ge.s32 %p1, %r1, 4;\n\t@%p1 bra $L__join;\n\tadd.s32 %r2, %r1, 1;\n$L__join:\n\tsetp.eq.s32 %p2, %r1, 0;\n\t@%p2 ret;\n\tadd.s32 %r2, %r1, 2;\n\tret;",
    );
    // blocks: 0 branch, 1 arm, 2 join ending in `@%p2 ret`, 3 the rest
    assert_eq!(c.blocks.len(), 4);
    let end = c.blocks.len();
    assert_eq!(
        c.post_dominators(),
        vec![Some(2), Some(2), Some(end), Some(end)]
    );

    let spin = cfg_of("$L__spin:\n\tbra.uni $L__spin;");
    assert_eq!(spin.post_dominators(), vec![None]);
}

/// Dominance by tree intervals agrees with walking the idom chain, for every pair of blocks of
/// every function of the fixtures (unreachable blocks included).
#[test]
fn dominance_by_intervals_is_dominance_by_the_idom_chain() {
    let by_chain = |c: &Cfg, a: usize, b: usize| {
        let mut cur = Some(b);
        while let Some(x) = cur {
            if x == a {
                return true;
            }
            cur = c.idom[x];
        }
        false
    };
    let mut pairs = 0;
    let mut dominated = 0;
    let sources = [
        include_str!("../../tests/fixtures/nvcc_sm80.ptx"),
        include_str!("../../tests/fixtures/clang_sm80.ptx"),
    ];
    let mut cfgs: Vec<Cfg> = sources
        .iter()
        .flat_map(|s| parse(s).unwrap().functions)
        .filter(|f| !f.is_declaration)
        .map(|f| Cfg::build(&f))
        .collect();
    cfgs.push(cfg_of("\tret;\n$L__dead:\n\tbra $L__dead;"));
    for c in &cfgs {
        let n = c.blocks.len();
        for a in 0..n {
            for b in 0..n {
                let want = by_chain(c, a, b);
                assert_eq!(c.dominates(a, b), want, "{} blocks {a} {b}", c.function);
                pairs += 1;
                dominated += usize::from(want && a != b);
            }
        }
    }
    assert!(
        pairs > 700 && dominated > 150,
        "{pairs} pairs, {dominated} strict"
    );
}
