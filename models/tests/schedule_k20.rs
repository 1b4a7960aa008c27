//! The schedule model end to end on the thesis' vectorAdd (K20, 13 × 256 threads) with the K20
//! profile from devices/: L(gm) from the Table 3.3 regression (⌈314.116⌉ = 315), one wave,
//! launch overhead 1.51546 µs, and the block delay of the strict Algorithm 6 reading.

use kerncast_models::schedule::dag::{SchedInst, UnitClass};
use kerncast_models::schedule::ScheduleModel;
use kerncast_models::{Device, Model, ModelInput};
use kerncast_passes::stats::{BlockExecs, BoundStats, Launch};

#[test]
fn vector_add_on_k20() {
    use UnitClass::*;
    let mut m1 = SchedInst::new(Lsu, &["m1"], &["c8"], 0);
    m1.mem = "global".into();
    let mut m2 = SchedInst::new(Lsu, &["m2"], &["c10"], 0);
    m2.mem = "global".into();
    let block = vec![
        SchedInst::new(Sp, &["c8"], &[], 9),
        SchedInst::new(Sp, &["c9"], &[], 33),
        SchedInst::new(Sp, &["c10"], &["c9"], 9),
        m1,
        m2,
        SchedInst::new(Sp, &["c11"], &["m1", "m2"], 9),
    ];
    let stats = BoundStats {
        kernel: "vectorAdd".into(),
        launch: Some(Launch {
            grid: [13, 1, 1],
            block: [256, 1, 1],
        }),
        block_execs: [(
            0,
            BlockExecs {
                threads: 3328.0,
                warps: 104.0,
            },
        )]
        .into(),
        ..Default::default()
    };
    let mut input = ModelInput::new(stats);
    input.blocks.insert(0, block);
    let d = Device::load("k20").unwrap();
    let clocks = d.default_clocks().unwrap();
    let p = ScheduleModel::default()
        .predict(&input, &d, clocks)
        .unwrap();
    // 654 + 10 cycles at 784 MHz, plus launch overhead 1.51546 µs.
    assert!((p.breakdown["schedule"] - 664.0 / 784e6).abs() < 1e-15);
    assert!((p.breakdown["launch"] - 1.51546e-6).abs() < 1e-15);
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("waves 1 ") && n.contains("L(gm) 315")),
        "{:?}",
        p.notes
    );
    // 0.85 µs of schedule against 1.52 µs of launch overhead: a launch-bound kernel.
    assert_eq!(p.bottleneck, "launch");
    println!(
        "vectorAdd K20 13x256: {:.4} us (thesis Table 4.8: measured 2.12, predicted 1.81)",
        p.time_s * 1e6
    );
    assert!((p.error_band.rel - 0.283).abs() < 1e-12);
    let sum: f64 = p.breakdown.values().sum();
    assert!((p.time_s - sum).abs() < 1e-18);
}

/// Approach 1 on the same block: ILP 6/4 (2 dispatch slots per scheduler; C10 waits for C9, M2
/// for C10, C11 for M2), TLP 64 > peak warps, so every compute instruction costs
/// L/(ILP·TLP·PW) + 32/TP (Eq. 4.3, Table 3.1) and each load 315/(ILP·TLP) (Eq. 4.4); n_ic =
/// ⌈8 warps / 6⌉ = 2; one round of 13 blocks on 13 SMs.
#[test]
fn vector_add_on_k20_approach1() {
    use kerncast_models::schedule::Approach;
    use UnitClass::*;
    let inst = |class, dst: &[&str], src: &[&str], lat, key: &str, mem: &str| {
        let mut i = SchedInst::new(class, dst, src, lat);
        i.key = key.into();
        i.mem = mem.into();
        i
    };
    let block = vec![
        inst(Sp, &["c8"], &[], 9, "adds", ""),
        inst(Sp, &["c9"], &[], 33, "cvt", ""),
        inst(Sp, &["c10"], &["c9"], 9, "adds", ""),
        inst(Lsu, &["m1"], &["c8"], 0, "global", "global"),
        inst(Lsu, &["m2"], &["c10"], 0, "global", "global"),
        inst(Sp, &["c11"], &["m1", "m2"], 9, "addf", ""),
    ];
    let stats = BoundStats {
        kernel: "vectorAdd".into(),
        launch: Some(Launch {
            grid: [13, 1, 1],
            block: [256, 1, 1],
        }),
        ..Default::default()
    };
    let mut input = ModelInput::new(stats);
    input.blocks.insert(0, block);
    let d = Device::load("k20").unwrap();
    let model = ScheduleModel {
        approach: Approach::IlpTlp,
        ..Default::default()
    };
    let p = model
        .predict(&input, &d, d.default_clocks().unwrap())
        .unwrap();
    let cycles = p.breakdown["schedule"] * 784e6;
    assert!((cycles - 16.853689).abs() < 1e-5, "{cycles}");
    assert!((p.error_band.rel - 0.2686).abs() < 1e-12);
}

/// Without per-block instructions the model cannot run; when the caller could not build them,
/// the error gives that reason, not a generic want of input.
#[test]
fn missing_blocks_are_reported_with_their_reason() {
    let stats = BoundStats {
        launch: Some(Launch {
            grid: [13, 1, 1],
            block: [256, 1, 1],
        }),
        ..Default::default()
    };
    let mut input = ModelInput::new(stats);
    let d = Device::load("k20").unwrap();
    let clocks = d.default_clocks().unwrap();
    let generic = ScheduleModel::default()
        .predict(&input, &d, clocks)
        .unwrap_err()
        .to_string();
    assert!(
        generic.contains("(ModelInput.blocks, from the PTX)"),
        "{generic}"
    );
    input.blocks_missing = Some("device `a100` lacks `latency.cvt`".into());
    let why = ScheduleModel::default()
        .predict(&input, &d, clocks)
        .unwrap_err()
        .to_string();
    assert_eq!(
        why,
        "the schedule model needs per-block instructions, which cannot be built here: device `a100` lacks `latency.cvt`"
    );
}
