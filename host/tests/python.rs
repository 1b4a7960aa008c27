//! Golden tests of Python hosts (issue 47, item 3): every script under `tests/python/` (or
//! folder, with the script `main.py` holding the header) states, in a `# kerncast-expect`
//! comment block, the launches it makes, worked out by hand from Python's semantics; this test
//! reads each with [`kerncast_host::read`], renders what it finds in the same text form and
//! compares exactly. The format follows `tests/programs/README.md` of the C cases:
//!
//! ```text
//! # kerncast-expect
//! # args: 4096
//! # params: n=1024
//! # 15: cupy.RawKernel my_add <<<(4096,1,1), (256,1,1), 0>>> x100 {arg0=ptr arg1=ptr arg2=1048576}
//! # embedded 4: cupy.RawKernel cuda literal 4:24 [my_add]
//! # end
//! ```
//!
//! - one line per distinct launch, in the order the script first makes it: its line (or
//!   `file:line` in another file of the folder), the API, the kernel, `<<<grid, block, shared
//!   bytes>>>`, how often (`x>=N?{why}` for a lower bound), the arguments, and `when ?{…}`
//!   for each condition kerncast could not decide;
//! - `?{key words}`: a value unknown without running the program; the reader's reason must
//!   contain the key words (case-insensitive);
//! - `embedded LINE: API LANGUAGE ORIGIN [kernels] (options)`: a program compiled at run time;
//! - `unreached …` and `note ?{…}` as for C cases.
//!
//! `KERNCAST_BLESS=1 cargo test -p kerncast-host --test python` rewrites the headers from what
//! the reader finds, keeping each expected line that still matches (so key words survive).
//! A blessed line is only right if Python says so: review the diff.

use kerncast_host::{
    read, HostReading, Launch, Options, Program, Scalar, SourceOrigin, Toolchain, UnitSpec,
};
use std::path::{Path, PathBuf};

const OPEN: &str = "# kerncast-expect";
const CLOSE: &str = "# end";

struct Case {
    dir: PathBuf,
    script: PathBuf,
}

fn case(name: &str) -> Case {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python");
    let file = root.join(format!("{name}.py"));
    if file.is_file() {
        return Case {
            dir: root,
            script: file,
        };
    }
    let dir = root.join(name);
    Case {
        script: dir.join("main.py"),
        dir,
    }
}

struct Header {
    args: Option<Vec<String>>,
    setup: Vec<String>,
    params: Vec<(String, f64)>,
    lines: Vec<String>,
    start: usize,
    end: usize,
}

fn header(text: &str) -> Result<Header, String> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim() == OPEN)
        .ok_or("no `# kerncast-expect` block")?;
    let end = start
        + lines[start..]
            .iter()
            .position(|l| l.trim() == CLOSE)
            .ok_or("no `# end`")?;
    let mut h = Header {
        args: None,
        setup: Vec::new(),
        params: Vec::new(),
        lines: Vec::new(),
        start,
        end,
    };
    for l in &lines[start + 1..end] {
        let body = l.trim_start_matches('#').trim();
        if let Some(a) = body.strip_prefix("args:") {
            h.args = Some(a.split_whitespace().map(String::from).collect());
            h.setup.push(body.to_string());
        } else if let Some(p) = body.strip_prefix("params:") {
            for kv in p.split_whitespace() {
                if let Some((k, v)) = kv.split_once('=') {
                    h.params.push((
                        k.to_string(),
                        v.parse().map_err(|_| format!("bad param {kv}"))?,
                    ));
                }
            }
            h.setup.push(body.to_string());
        } else if !body.is_empty() {
            h.lines.push(body.to_string());
        }
    }
    Ok(h)
}

fn clean(reason: &str) -> String {
    reason
        .replace('{', "(")
        .replace('}', ")")
        .replace('\n', " ")
}

fn unknown(reason: &str) -> String {
    format!("?{{{}}}", clean(reason))
}

fn scalar(s: &Scalar) -> String {
    match s {
        Scalar::Unknown(r) => unknown(r),
        other => other.to_string(),
    }
}

fn dims(d: &[Scalar; 3]) -> String {
    format!("({},{},{})", scalar(&d[0]), scalar(&d[1]), scalar(&d[2]))
}

fn location(file: &str, line: u32, c: &Case) -> String {
    let script = std::fs::canonicalize(&c.script).unwrap_or_else(|_| c.script.clone());
    if Path::new(file) == script || Path::new(file) == c.script {
        return line.to_string();
    }
    let dir = std::fs::canonicalize(&c.dir).unwrap_or_else(|_| c.dir.clone());
    let rel = Path::new(file)
        .strip_prefix(&dir)
        .or_else(|_| Path::new(file).strip_prefix(&c.dir))
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| file.to_string());
    format!("{rel}:{line}")
}

fn launch_line(l: &Launch, c: &Case) -> String {
    let mut body = format!(
        "{}: {} {} <<<{}, {}, {}>>>",
        location(&l.file, l.line, c),
        l.api,
        l.kernel,
        dims(&l.grid),
        dims(&l.block),
        scalar(&l.shared_bytes)
    );
    match &l.count_note {
        Some(why) => body.push_str(&format!(" x>={}{}", l.count, unknown(why))),
        None => body.push_str(&format!(" x{}", l.count)),
    }
    if !l.args.is_empty() {
        let args: Vec<String> = l
            .args
            .iter()
            .map(|(n, v)| format!("{n}={}", scalar(v)))
            .collect();
        body.push_str(&format!(" {{{}}}", args.join(" ")));
    }
    for cond in &l.conditions {
        body.push_str(&format!(" when {}", unknown(cond)));
    }
    body
}

fn render(r: &HostReading, c: &Case) -> Vec<String> {
    let mut out: Vec<String> = r.launches.iter().map(|l| launch_line(l, c)).collect();
    for u in &r.unreached {
        out.push(format!(
            "{}: unreached {} {}",
            location(&u.file, u.line, c),
            u.kernel.as_deref().unwrap_or("?"),
            unknown(&u.reason)
        ));
    }
    for e in &r.embedded {
        let origin = match &e.origin {
            SourceOrigin::Literal { file, line, col } => {
                format!("literal {}:{col}", location(file, *line, c))
            }
            SourceOrigin::File { path } => {
                format!("file {}", location(path, 1, c).trim_end_matches(":1"))
            }
            SourceOrigin::Computed => "computed".to_string(),
            SourceOrigin::Lines { file, lines } => {
                format!(
                    "lines {}",
                    location(file, lines.first().copied().unwrap_or(1), c)
                )
            }
        };
        let mut line = format!(
            "embedded {}: {} {} {origin} [{}]",
            location(&e.file, e.line, c),
            e.api,
            e.language,
            e.kernels.join(" ")
        );
        if !e.options.is_empty() {
            line.push_str(&format!(" ({})", e.options.join(" ")));
        }
        if let Some(u) = &e.unknown {
            line.push_str(&format!(" {}", unknown(u)));
        }
        if e.extern_c {
            line.push_str(" extern-c");
        }
        out.push(line);
    }
    for d in &r.diagnostics {
        out.push(format!("diagnostic {}", unknown(d)));
    }
    for n in &r.notes {
        if !n.contains("read as run without arguments") {
            out.push(format!("note {}", unknown(n)));
        }
    }
    out
}

/// Whether an actual line matches an expected one: the same text, each `?{key words}` of the
/// expected line an unknown whose reason contains them.
fn matches(expected: &str, actual: &str) -> bool {
    let (mut e, mut a) = (expected, actual);
    loop {
        let (Some(i), Some(j)) = (e.find("?{"), a.find("?{")) else {
            return e == a;
        };
        if e[..i] != a[..j] {
            return false;
        }
        let (Some(ei), Some(aj)) = (e[i..].find('}'), a[j..].find('}')) else {
            return false;
        };
        let words = e[i + 2..i + ei].to_lowercase();
        let reason = a[j + 2..j + aj].to_lowercase();
        if !reason.contains(words.trim()) {
            return false;
        }
        e = &e[i + ei + 1..];
        a = &a[j + aj + 1..];
    }
}

fn run(name: &str) {
    let c = case(name);
    let text = std::fs::read_to_string(&c.script)
        .unwrap_or_else(|e| panic!("{}: {e}", c.script.display()));
    let h = header(&text).unwrap_or_else(|e| panic!("{}: {e}", c.script.display()));
    let program = Program {
        units: vec![UnitSpec {
            file: c.script.clone(),
            args: Vec::new(),
            program: None,
        }],
        args: h.args.clone(),
    };
    let toolchain = Toolchain::discover();
    if name.starts_with("torch_") {
        // The extension API's declarations include the CUDA runtime headers.
        assert!(
            toolchain.cuda_path.is_some(),
            "the CUDA 12 headers are missing: run `cargo xtask bootstrap` or set KERNCAST_CUDA_PATH"
        );
    }
    let opts = Options {
        toolchain,
        params: h.params.iter().cloned().collect(),
        ..Options::default()
    };
    let reading = read(&program, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        kerncast_host::live_containers(),
        0,
        "{name}: the reader's containers left alive after the reading"
    );
    let actual = render(&reading, &c);
    let ok =
        actual.len() == h.lines.len() && actual.iter().zip(&h.lines).all(|(a, e)| matches(e, a));
    if ok {
        return;
    }
    if std::env::var_os("KERNCAST_BLESS").is_some() {
        let lines: Vec<&str> = text.lines().collect();
        let mut out: Vec<String> = lines[..h.start].iter().map(|s| s.to_string()).collect();
        out.push(OPEN.to_string());
        for s in &h.setup {
            out.push(format!("# {s}"));
        }
        for a in &actual {
            let kept = h.lines.iter().find(|e| matches(e, a)).cloned();
            out.push(format!("# {}", kept.unwrap_or_else(|| a.clone())));
        }
        out.push(CLOSE.to_string());
        out.extend(lines[h.end + 1..].iter().map(|s| s.to_string()));
        let mut t = out.join("\n");
        t.push('\n');
        std::fs::write(&c.script, t)
            .unwrap_or_else(|e| panic!("cannot bless {}: {e}", c.script.display()));
        return;
    }
    let mut msg = format!("{name}: the reading differs from the header\nexpected:\n");
    for l in &h.lines {
        msg.push_str(&format!("    {l}\n"));
    }
    msg.push_str("found:\n");
    for a in &actual {
        let mark = if h.lines.iter().any(|e| matches(e, a)) {
            ' '
        } else {
            '!'
        };
        msg.push_str(&format!("   {mark}{a}\n"));
    }
    panic!("{msg}");
}

macro_rules! cases {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                run(stringify!($name));
            }
        )*
    };
}

cases!(
    cupy_rawkernel_loop,
    cupy_rawmodule,
    cupy_argv,
    cupy_argv_missing,
    cupy_argparse,
    cupy_sweep_functions,
    cupy_benchmark,
    pycuda_sourcemodule,
    pyopencl_program,
    pyopencl_kernel_set_args,
    branches_undecided,
    scopes_closures,
    python_arithmetic,
    file_source,
    classes,
    unknown_iterable,
    templates_callbacks,
    torch_load_inline,
    torch_load_inline_reshape,
    torch_dispatch,
    torch_setup,
);
