//! Files that each define `main` are programs of their own (two drivers beside one kernel
//! file): each runs, with the files that define no `main`, and each one's launches are listed.

use kerncast_host::{read, Options, Program, Toolchain};

#[test]
fn each_file_with_a_main_is_a_program_of_its_own() {
    let dir = std::env::temp_dir().join(format!("kerncast-two-mains-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let files = vec![
        write(
            "kernels.cu",
            "__global__ void scale(float *x, int n) { x[threadIdx.x] *= n; }\n\
             void launch(float *x, int n) { scale<<<n / 128, 128>>>(x, n); }\n",
        ),
        write(
            "a.cu",
            "void launch(float *x, int n);\nint main() { for (int i = 0; i < 3; ++i) launch(0, 1024); }\n",
        ),
        write(
            "b.cu",
            "void launch(float *x, int n);\nint main() { for (int i = 0; i < 5; ++i) launch(0, 2048); }\n",
        ),
    ];
    let tools = Toolchain::discover();
    let opts = Options {
        toolchain: tools.clone(),
        ..Options::default()
    };
    let r = read(&Program::from_files(&files, &[], &tools), &opts).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let mut got: Vec<(String, u64, u64)> = r
        .launches
        .iter()
        .map(|l| {
            let caller = l.calls.first().map(|c| c.file.clone()).unwrap_or_default();
            let caller = caller.rsplit('/').next().unwrap_or("").to_string();
            (caller, l.grid[0].as_u64().unwrap(), l.count)
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [("a.cu".to_string(), 8, 3), ("b.cu".to_string(), 16, 5)]
    );
    assert!(r.unreached.is_empty(), "{:?}", r.unreached);
}
