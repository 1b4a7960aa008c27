//! The bad-input suite: the real `kerncast` command line (as a process, `kerncast-cli`) fed what a
//! user can get wrong — PTX that ptxas would reject, launch shapes no GPU runs, device profiles
//! with numbers out of range, unknown parameters, kernels that loop forever or ask for more
//! memory than the budget, gates whose baseline does not match the analysis, broken configs.
//!
//! Every case asserts three things: the exit code; that the process ended on its own with no
//! panic or abort (a status with a code, not 101, nothing "panicked" or "overflowed" on stderr);
//! and that the message names the place (file:line[:col]) or the flag. Cases are a table built
//! below and run a few at a time. A case also has a generous wall-clock guard, only so that a
//! hang fails the test instead of stalling it; no case is near it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CLI: &str = env!("CARGO_BIN_EXE_kerncast-cli");
/// Longest any one case may run before it counts as a hang.
const HANG_GUARD: Duration = Duration::from_secs(300);

struct Case {
    name: String,
    /// Files written into the case's folder (name, text), besides the PTX fixtures.
    files: Vec<(String, String)>,
    /// Commands run first, each of which must exit 0 (writing a baseline).
    setup: Vec<Vec<String>>,
    args: Vec<String>,
    code: i32,
    /// Each must appear in stdout or stderr.
    expect: Vec<String>,
}

fn case(name: &str, args: &[&str], code: i32, expect: &[&str]) -> Case {
    Case {
        name: name.to_string(),
        files: vec![],
        setup: vec![],
        args: args.iter().map(|s| s.to_string()).collect(),
        code,
        expect: expect.iter().map(|s| s.to_string()).collect(),
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_input")
}

/// PTX rejected at the door, with the line:col of the instruction, by every command that reads
/// PTX.
fn verifier_cases(out: &mut Vec<Case>) {
    let bad = [
        (
            "unknown_opcode.ptx",
            "unknown_opcode.ptx:18:2",
            "unknown instruction `frobnicate`",
        ),
        (
            "unknown_space.ptx",
            "unknown_space.ptx:18:2",
            "unknown state space or qualifier `.foo`",
        ),
        (
            "undefined_register.ptx",
            "undefined_register.ptx:18:2",
            "undefined register `%r9`",
        ),
        (
            "undefined_label.ptx",
            "undefined_label.ptx:19:2",
            "undefined label `$L_nowhere`",
        ),
        (
            "type_mismatch.ptx",
            "type_mismatch.ptx:18:2",
            "operand `%rd1` is a .b64 register",
        ),
        (
            "syntax_error.ptx",
            "syntax_error.ptx:18:19",
            "expected `,` or `;`",
        ),
    ];
    for (file, at, what) in bad {
        let launch = ["--grid", "2", "--block", "64", "--param", "k_param_0=100"];
        let commands: [Vec<&str>; 5] = [
            vec!["ptx", file],
            vec!["cfg", file],
            [&["count", file][..], &launch].concat(),
            [&["emulate", file][..], &launch].concat(),
            [&["predict", file][..], &launch].concat(),
        ];
        for args in commands {
            out.push(case(
                &format!("verifier {} {file}", args[0]),
                &args,
                1,
                &[at, what],
            ));
        }
    }
}

/// Launch shapes no GPU runs, refused by count, emulate and predict, naming the dimension.
fn launch_cases(out: &mut Vec<Case>) {
    let shapes = [
        ("0", "64", "evaluates to 0|dimension x is 0"),
        ("2", "0", "evaluates to 0|dimension x is 0"),
        ("2", "2048", "block x = 2048 is more than the 1024"),
        ("2", "1024,2", "2048 threads per block"),
        ("2", "1,1,65", "block z = 65 is more than the 64"),
        (
            "4294967296",
            "64",
            "grid x = 4294967296 is more than the 2147483647",
        ),
        ("1,65536", "64", "grid y = 65536 is more than the 65535"),
        ("2147483648", "32", "grid x = 2147483648"),
    ];
    for (grid, block, what) in shapes {
        for cmd in ["count", "emulate", "predict"] {
            out.push(case(
                &format!("launch {cmd} grid {grid} block {block}"),
                &[
                    cmd,
                    "good.ptx",
                    "--grid",
                    grid,
                    "--block",
                    block,
                    "--param",
                    "k_param_0=100",
                ],
                1,
                &["good.ptx", what],
            ));
        }
    }
}

/// An unknown `--param` lists the kernel's parameters.
fn param_cases(out: &mut Vec<Case>) {
    for cmd in ["count", "emulate", "predict"] {
        out.push(case(
            &format!("unknown --param {cmd}"),
            &[
                cmd,
                "good.ptx",
                "--grid",
                "2",
                "--block",
                "64",
                "--param",
                "k_param_0=100",
                "--param",
                "nope=3",
            ],
            1,
            &[
                "--param nope: no such parameter",
                "k_param_0 (0)",
                "k_param_1 (1)",
            ],
        ));
    }
}

/// Work budgets: an infinite loop and a huge allocation stop with the knob named; a budget
/// of 0 is refused; doubling formulas are bounded.
fn budget_cases(out: &mut Vec<Case>) {
    let run = ["--grid", "1", "--block", "32", "--param", "k_param_0=100"];
    out.push(case(
        "infinite loop, emulate",
        &[
            &["emulate", "infinite_loop.ptx", "--emu-steps", "20000"][..],
            &run,
        ]
        .concat(),
        1,
        &[
            "infinite_loop.ptx",
            "gave up after 20000 warp steps",
            "--emu-steps",
        ],
    ));
    out.push(case(
        "infinite loop, predict",
        &[
            &["predict", "infinite_loop.ptx", "--emu-steps", "20000"][..],
            &run,
        ]
        .concat(),
        1,
        &[
            "infinite_loop.ptx",
            "kernel `k`",
            "more than 20000 warp steps",
            "--emu-steps",
        ],
    ));
    out.push(case(
        "huge .local array, emulate",
        &[
            &["emulate", "huge_local.ptx"][..],
            &run[..4],
            &["--param", "k_param_0=1"],
        ]
        .concat(),
        1,
        &["huge_local.ptx", "emulator's budget", "--emu-bytes"],
    ));
    out.push(case(
        "a buffer past the bytes budget",
        &[
            &["emulate", "good.ptx"][..],
            &run,
            &["--buffer", "k_param_1=u8:zeros(1099511627776)"],
        ]
        .concat(),
        1,
        &["--buffer `u8:zeros(1099511627776)`", "--emu-bytes"],
    ));
    out.push(case(
        "a default buffer past the bytes budget",
        &[
            &["emulate", "good.ptx"][..],
            &run,
            &["--default-buffer-bytes", "99999999999"],
        ]
        .concat(),
        1,
        &["k_param_1", "address space", "--default-buffer-bytes"],
    ));
    out.push(case(
        "a small bytes budget",
        &[&["emulate", "good.ptx", "--emu-bytes", "100"][..], &run].concat(),
        1,
        &["--emu-bytes"],
    ));
    for flag in ["--emu-steps", "--isl-ops", "--emu-bytes"] {
        out.push(case(
            &format!("{flag} 0"),
            &[&["count", "good.ptx", flag, "0"][..], &run].concat(),
            2,
            &[flag],
        ));
        out.push(case(
            &format!("{flag} not a number"),
            &[&["count", "good.ptx", flag, "lots"][..], &run].concat(),
            2,
            &[flag],
        ));
    }
    out.push(case(
        "doubling predicates stay bounded",
        &[&["count", "doubling_predicates.ptx"][..], &run].concat(),
        0,
        &["kernel k", "threads = 32"],
    ));
    // a chain of 5000 min/max, each reading the last: bounded nesting, seconds, not minutes
    let mut chain = String::from(
        ".version 9.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u32 k_param_0)\n\
         {\n.reg .pred %p<2>;\n.reg .b32 %r<5010>;\nld.param.u32 %r1, [k_param_0];\n\
         mov.u32 %r2, %tid.x;\n",
    );
    for i in 3..5000 {
        let (op, other) = if i % 2 == 1 { ("min", 1) } else { ("max", 2) };
        chain.push_str(&format!("{op}.s32 %r{i}, %r{}, %r{other};\n", i - 1));
    }
    chain.push_str(
        "setp.lt.s32 %p1, %r4999, 5;\n@%p1 bra L;\nadd.s32 %r5000, %r5000, 1;\nL:\nret;\n}\n",
    );
    let mut c = case(
        "a chain of 5000 min/max stays bounded",
        &[&["count", "chain.ptx"][..], &run].concat(),
        0,
        &["kernel k", "threads = 32"],
    );
    c.files.push(("chain.ptx".into(), chain));
    out.push(c);
    // a kernel whose binding needs isl: a loop nest whose sectors are too many to walk warp
    // by warp (good.ptx's are walked, with no isl operation to run out of)
    let mut c = case(
        "isl budget runs out: the emulator counts, and says why",
        &[
            "predict",
            "matmul.ptx",
            "--isl-ops",
            "1",
            "--grid",
            "64,64",
            "--block",
            "16,16",
            "--param",
            "matmul_naive_param_0=1024",
            "--param",
            "matmul_naive_param_1=1024",
            "--param",
            "matmul_naive_param_2=1024",
        ],
        0,
        &["--isl-ops", "isl operations ran out", "counts: emulator"],
    );
    let matmul = kerncast_tests::workspace_root().join("tests/ptx/clang/matmul_naive.ptx");
    c.files.push((
        "matmul.ptx".into(),
        std::fs::read_to_string(matmul).expect("the corpus's matmul_naive.ptx"),
    ));
    out.push(c);
}

/// `count --json` with a launch (it failed on every kernel with "key must be a string").
fn json_cases(out: &mut Vec<Case>) {
    out.push(case(
        "count --json with a launch",
        &[
            "count",
            "good.ptx",
            "--grid",
            "2",
            "--block",
            "64",
            "--param",
            "k_param_0=100",
            "--json",
        ],
        0,
        &[
            "\"op.move.u32.thread\": 128.0",
            "\"mem.param.load.b32.uniform.thread\": 128.0",
        ],
    ));
}

/// Every scalar of a device profile, out of range: refused at load with file:line:col and key,
/// by `devices FILE`; a few also through `predict --device FILE` and a devices folder.
fn device_cases(out: &mut Vec<Case>) {
    let text = std::fs::read_to_string(root().join("devices/gtx-titan-x.toml")).unwrap();
    let mut section = String::new();
    let mut n = 0;
    for (i, line) in text.lines().enumerate() {
        if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = s.to_string();
            continue;
        }
        let Some((key, rest)) = line.split_once(" = { value = ") else {
            continue;
        };
        let Some((value, _)) = rest.split_once(',') else {
            continue;
        };
        if value.parse::<f64>().is_err() {
            continue; // strings and lists
        }
        let bad = if value.contains('.') { "nan" } else { "0" };
        let col = line.find(" = { value = ").unwrap() + " = { value = ".len() + 1;
        let broken: String = text
            .lines()
            .enumerate()
            .map(|(j, l)| {
                if j == i {
                    l.replacen(&format!("value = {value},"), &format!("value = {bad},"), 1)
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let at = format!("bad.toml:{}:{col}: `{section}.{key}` must be", i + 1);
        let mut c = case(
            &format!("device {section}.{key} = {bad}"),
            &["devices", "bad.toml"],
            1,
            &[&at],
        );
        c.files.push(("bad.toml".into(), broken.clone()));
        out.push(c);
        if n % 8 == 0 {
            let mut c = case(
                &format!("predict on a device with {section}.{key} = {bad}"),
                &[
                    "predict",
                    "good.ptx",
                    "--grid",
                    "2",
                    "--block",
                    "64",
                    "--param",
                    "k_param_0=100",
                    "--device",
                    "bad.toml",
                ],
                1,
                &[&at],
            );
            c.files.push(("bad.toml".into(), broken));
            out.push(c);
        }
        n += 1;
    }
    assert!(n >= 40, "{n} numeric values in the profile");
    let mut listing = case(
        "kerncast devices over a folder with a bad profile",
        &["devices"],
        1,
        &["sm.toml:4:", "`hw.sm_count` must be between 1"],
    );
    listing.files.push((
        "devs/sm.toml".into(),
        "name = \"x\"\nfull_name = \"X\"\n[hw]\nsm_count = { value = 0, source = \"s\" }\n".into(),
    ));
    out.push(listing);
    let mut syntax = case(
        "device TOML syntax",
        &["devices", "bad.toml"],
        1,
        &["bad.toml:2:"],
    );
    syntax
        .files
        .push(("bad.toml".into(), "name = \"x\"\nfull_name = \n".into()));
    out.push(syntax);
}

const CONFIG: &str = r#"devices = ["gtx-titan-x"]

[[kernel]]
path = "KERNEL"
frontend = "ptx"

[[kernel.workload]]
params = { k_param_0 = 1024 }
grid = 4
block = 256
"#;

fn config(ptx: &str) -> String {
    CONFIG.replace("KERNEL", ptx)
}

fn args_of(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

/// The gate fails closed: exit 2 for a baseline entry that no kernel matches, an empty or
/// corrupt baseline, an analysis error; a broken kerncast.toml names its line.
fn gate_cases(out: &mut Vec<Case>) {
    let check = "check --no-cache -j 1 --baseline b.json";
    let update = args_of(&format!("{check} --config kerncast.toml --update-baseline"));
    let renamed = config("good.ptx").replace("path = \"good.ptx\"", "path = \"renamed.ptx\"");
    let mut gate = |name: &str,
                    files: Vec<(&str, String)>,
                    setup: bool,
                    extra: &str,
                    code,
                    expect: &[&str]| {
        let mut c = case(name, &[], code, expect);
        let config = if extra.contains("--config") {
            ""
        } else {
            "--config kerncast.toml"
        };
        c.args = args_of(&format!("{check} {config} {extra}"));
        c.files = files.into_iter().map(|(n, t)| (n.to_string(), t)).collect();
        if setup {
            c.setup.push(update.clone());
        }
        out.push(c);
    };
    gate(
        "gate: no baseline",
        vec![("kerncast.toml", config("good.ptx"))],
        false,
        "",
        2,
        &["b.json"],
    );
    gate(
        "gate: unchanged passes",
        vec![("kerncast.toml", config("good.ptx"))],
        true,
        "",
        0,
        &["verdict: pass"],
    );
    gate(
        "gate: a kernel renamed is missing",
        vec![
            ("kerncast.toml", config("good.ptx")),
            ("next.toml", renamed),
            (
                "renamed.ptx",
                std::fs::read_to_string(fixtures().join("good.ptx"))
                    .unwrap()
                    .replace("entry k(", "entry k2(")
                    .replace("k_param_", "k2_param_"),
            ),
        ],
        true,
        "--config next.toml",
        2,
        &["missing  good.ptx::k", "--update-baseline"],
    );
    gate(
        "gate: an empty baseline",
        vec![
            ("kerncast.toml", config("good.ptx")),
            ("b.json", "{\"schema_version\": 1, \"entries\": {}}".into()),
        ],
        false,
        "",
        2,
        &["the baseline has no entries"],
    );
    gate(
        "gate: 1 of 2 baseline entries analysed",
        vec![
            ("kerncast.toml", config("good.ptx")),
            (
                "b.json",
                "{\"schema_version\": 1, \"entries\": {\"other.ptx::x@gtx-titan-x\": {\"kernel\": \"x\", \"source\": null, \"time_s\": 1e-5, \"energy_j\": null, \"power_w\": null}}}".into(),
            ),
        ],
        false,
        "",
        2,
        &["missing  other.ptx::x@gtx-titan-x"],
    );
    gate(
        "gate: a corrupt baseline",
        vec![
            ("kerncast.toml", config("good.ptx")),
            (
                "b.json",
                "{\"schema_version\": 1,\n \"entries\": {\n".into(),
            ),
        ],
        false,
        "",
        2,
        &["b.json:3:", "corrupt baseline"],
    );
    gate(
        "gate: a baseline of another schema",
        vec![
            ("kerncast.toml", config("good.ptx")),
            ("b.json", "{\"schema_version\": 9, \"entries\": {}}".into()),
        ],
        false,
        "",
        2,
        &["b.json", "schema version 9"],
    );
    gate(
        "gate: a kernel that fails the verifier",
        vec![
            ("kerncast.toml", config("good.ptx")),
            ("bad.toml", config("unknown_opcode.ptx")),
        ],
        true,
        "--config bad.toml",
        2,
        &[
            "unknown_opcode.ptx:18:2: unknown instruction `frobnicate`",
            "verdict: error",
        ],
    );
    gate(
        "gate: refuses to record an analysis with errors",
        vec![("kerncast.toml", config("unknown_opcode.ptx"))],
        false,
        "--update-baseline",
        2,
        &["baseline not updated"],
    );
    gate(
        "gate: a baseline of an infinite loop is refused on its budget",
        vec![("kerncast.toml", config("infinite_loop.ptx"))],
        false,
        "--update-baseline --emu-steps 20000",
        2,
        &["infinite_loop.ptx", "--emu-steps"],
    );
    for (what, grid, block, expect) in [
        (
            "a block of 2^32 - 1",
            "4",
            "4294967295",
            "block x = 4294967295 is more than the 1024",
        ),
        ("a grid of 0", "0", "256", "evaluates to 0"),
        ("a grid of 2^32", "4294967296", "256", "grid x = 4294967296"),
    ] {
        let text = config("good.ptx")
            .replace("grid = 4", &format!("grid = {grid}"))
            .replace("block = 256", &format!("block = {block}"));
        gate(
            &format!("gate: a workload with {what}"),
            vec![("kerncast.toml", text)],
            false,
            "--update-baseline",
            2,
            // a config's own check (kerncast.toml:LINE) or the analysis's (good.ptx)
            &["good.ptx|kerncast.toml:9:", expect],
        );
    }
    let bad_configs = [
        (
            "a TOML syntax error",
            "devices = [\"gtx-titan-x\"\n",
            "kerncast.toml:",
        ),
        (
            "an unknown key",
            "devices = [\"gtx-titan-x\"]\nfrobnicate = 1\n",
            "frobnicate",
        ),
        (
            "a negative threshold",
            "devices = [\"gtx-titan-x\"]\n[thresholds]\ntime = -1.0\n",
            "threshold `time`",
        ),
        (
            "a zero budget",
            "devices = [\"gtx-titan-x\"]\n[budgets]\nemu_steps = 0\n",
            "budget `emu_steps`",
        ),
        (
            "an unknown budget",
            "devices = [\"gtx-titan-x\"]\n[budgets]\nseconds = 30\n",
            "seconds",
        ),
        ("no kernels", "devices = [\"gtx-titan-x\"]\n", "no kernel"),
    ];
    for (what, text, expect) in bad_configs {
        gate(
            &format!("config: {what}"),
            vec![("kerncast.toml", text.to_string())],
            false,
            "",
            2,
            &[expect],
        );
    }
}

fn all_cases() -> Vec<Case> {
    let mut v = Vec::new();
    verifier_cases(&mut v);
    launch_cases(&mut v);
    param_cases(&mut v);
    budget_cases(&mut v);
    json_cases(&mut v);
    device_cases(&mut v);
    gate_cases(&mut v);
    v
}

/// Runs `args` in `dir`, with a guard against a hang; (status code, stdout + stderr, stderr).
fn run(dir: &Path, args: &[String]) -> Result<(Option<i32>, String, String), String> {
    let mut child = Command::new(CLI)
        .args(args)
        .current_dir(dir)
        .env("KERNCAST_CACHE", dir.join("cache"))
        .env("KERNCAST_DEVICES", dir.join("devs"))
        .env("NO_COLOR", "1")
        .env("CI", "true")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {CLI}: {e}"))?;
    let start = Instant::now();
    let out = loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            break child.wait_with_output().map_err(|e| e.to_string())?;
        }
        if start.elapsed() > HANG_GUARD {
            let _ = child.kill();
            return Err(format!("still running after {HANG_GUARD:?}: a hang"));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    Ok((out.status.code(), format!("{stdout}\n{stderr}"), stderr))
}

/// One case: its folder, its setup, its command; `Err` says what was wrong.
fn check_case(c: &Case, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir.join("devs")).map_err(|e| e.to_string())?;
    for e in std::fs::read_dir(fixtures())
        .map_err(|e| e.to_string())?
        .flatten()
    {
        std::fs::copy(e.path(), dir.join(e.file_name())).map_err(|e| e.to_string())?;
    }
    for (name, text) in &c.files {
        let p = dir.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        std::fs::write(p, text).map_err(|e| e.to_string())?;
    }
    for s in &c.setup {
        let (code, all, _) = run(dir, s)?;
        if code != Some(0) {
            return Err(format!("setup {s:?} exited {code:?}:\n{all}"));
        }
    }
    let (code, all, stderr) = run(dir, &c.args)?;
    let mut wrong = Vec::new();
    match code {
        None => wrong.push("killed by a signal (an abort?)".to_string()),
        Some(101) => wrong.push("exit 101 (a panic)".to_string()),
        Some(k) if k != c.code => wrong.push(format!("exit {k}, expected {}", c.code)),
        _ => {}
    }
    for p in ["panicked", "overflowed its stack", "RUST_BACKTRACE"] {
        if stderr.contains(p) {
            wrong.push(format!("stderr says `{p}`"));
        }
    }
    let flat = all.split_whitespace().collect::<Vec<_>>().join(" ");
    // miette wraps long messages over lines, with a `│` in front of each
    let unwrapped = flat.replace(" │ ", " ");
    let found = |e: &str| {
        let e_flat = e.split_whitespace().collect::<Vec<_>>().join(" ");
        all.contains(e) || unwrapped.contains(&e_flat)
    };
    for e in &c.expect {
        // `a|b`: either
        if !e.split('|').any(found) {
            wrong.push(format!("no `{e}` in the output"));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\n--- output ---\n{all}", wrong.join("; ")))
    }
}

#[test]
fn bad_input_is_an_error_naming_the_place_never_a_panic_or_a_hang() {
    let cases = all_cases();
    assert!(cases.len() >= 120, "{} cases", cases.len());
    let tmp = tempfile::tempdir().unwrap();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(c) = cases.get(i) else { break };
                if let Err(why) = check_case(c, &tmp.path().join(format!("c{i}"))) {
                    failures.lock().unwrap().push(format!(
                        "[{i}] {}: {} {}\n{why}",
                        c.name,
                        CLI,
                        c.args.join(" ")
                    ));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
    eprintln!("{} bad-input cases passed", cases.len());
}
