//! Budgets of work, not of time: the same kernels counted and predicted with and without
//! CPU-hogging processes beside them give byte-identical output. The runs include a kernel
//! whose symbolic analysis runs out of a tight isl budget (counted by the emulator instead, in
//! both runs alike) and one stopped by the emulator's step budget: under a wall-clock deadline
//! these would depend on the load.

use std::path::Path;
use std::process::{Child, Command, Stdio};

const CLI: &str = env!("CARGO_BIN_EXE_kerncast-cli");

/// Processes that keep every core busy until dropped.
struct Hogs(Vec<Child>);

impl Hogs {
    fn start() -> Hogs {
        let n = std::thread::available_parallelism().map_or(2, |n| n.get()) + 1;
        Hogs(
            (0..n)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .stdin(Stdio::null())
                        .spawn()
                        .expect("start a CPU hog")
                })
                .collect(),
        )
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn runs() -> Vec<Vec<String>> {
    let ptx = |k: &str| format!("tests/ptx/nvcc/{k}.ptx");
    let fixture = "tests/tests/bad_input/infinite_loop.ptx".to_string();
    let a = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut v = vec![
        [
            a(&[
                "predict",
                &ptx("triangular"),
                "--grid",
                "32",
                "--block",
                "128",
            ]),
            a(&["--param", "triangular_param_0=4096", "--json"]),
        ]
        .concat(),
        // a loop nest whose sectors isl counts (saxpy's are walked warp by warp, with no isl
        // operation to run out of)
        [
            a(&[
                "predict",
                &ptx("matmul_naive"),
                "--grid",
                "64,64",
                "--block",
                "16,16",
            ]),
            a(&[
                "--param",
                "matmul_naive_param_0=1024",
                "--param",
                "matmul_naive_param_1=1024",
                "--param",
                "matmul_naive_param_2=1024",
                "--isl-ops",
                "1000",
                "--json",
            ]),
        ]
        .concat(),
        a(&["count", &ptx("matmul_tiled"), "--symbolic"]),
        a(&[
            "count",
            &ptx("triangular"),
            "--symbolic",
            "--isl-ops",
            "100000",
        ]),
        a(&[
            "emulate",
            &fixture,
            "--grid",
            "1",
            "--block",
            "32",
            "--param",
            "k_param_0=1",
            "--emu-steps",
            "50000",
        ]),
    ];
    v.retain(|r| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(&r[1])
            .is_file()
    });
    v
}

/// Exit code, stdout and stderr of every run, in order.
fn outputs() -> Vec<(Option<i32>, String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    runs()
        .iter()
        .map(|args| {
            let o = Command::new(CLI)
                .args(args)
                .current_dir(&root)
                .env("NO_COLOR", "1")
                .env("CI", "true")
                .env(
                    "KERNCAST_CACHE",
                    root.join("target/kerncast-cache-determinism"),
                )
                .output()
                .expect("run kerncast");
            (
                o.status.code(),
                String::from_utf8_lossy(&o.stdout).into_owned(),
                String::from_utf8_lossy(&o.stderr).into_owned(),
            )
        })
        .collect()
}

#[test]
fn the_same_kernels_give_the_same_output_on_a_busy_machine() {
    assert_eq!(runs().len(), 5, "the corpus kernels are there");
    let idle = outputs();
    // the tight budgets did bite, so the comparison covers what a clock would have changed
    // (miette wraps messages at 80 columns)
    let says = |text: &str, what: &str| {
        let flat = text.replace('│', " ");
        flat.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(what)
    };
    assert!(says(&idle[1].1, "isl operations ran out"), "{:?}", idle[1]);
    assert!(says(&idle[3].2, "isl operations ran out"), "{:?}", idle[3]);
    assert!(
        says(&idle[4].2, "gave up after 50000 warp steps"),
        "{:?}",
        idle[4]
    );
    let busy = {
        let _hogs = Hogs::start();
        outputs()
    };
    for (i, (a, b)) in idle.iter().zip(&busy).enumerate() {
        assert_eq!(a, b, "run {i} ({:?}) differs under load", runs()[i]);
    }
}
