//! Golden-file tests of host reading (issue 47): every program under `tests/programs/` states,
//! in a `/* kerncast-expect … */` header, the launches it really makes, worked out by hand from
//! C semantics; this test reads each with [`kerncast_host::read`], renders what it finds in
//! the same text form and compares line by line. What C leaves unknown without running the
//! program (a file's contents, a `rand()` kerncast did not follow, the device) is written
//! `?{key words}`, and the reader's reason must contain those words.
//!
//! `KERNCAST_BLESS=1 cargo test -p kerncast-host --test golden` rewrites the headers from what
//! the reader finds, keeping each expected line that still matches (so key words survive);
//! review the diff: a blessed value is only right if C says so. The format is described in
//! `tests/programs/README.md`.

use kerncast_host::{read, HostReading, Launch, Options, Program, Scalar, Toolchain};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const OPEN: &str = "/* kerncast-expect";
const CLOSE: &str = "*/";
/// Source files a case is made of.
const SOURCES: &[&str] = &["cu", "cpp", "cc", "c"];

/// One program: a source file, or a folder whose sources make one program (one of them holds
/// the header).
struct Case {
    name: String,
    dir: PathBuf,
    files: Vec<PathBuf>,
    header_file: PathBuf,
}

/// An expectation line: where (`12`, or `helpers.cu:30` for a file without the header), and
/// what.
#[derive(Clone, Debug, PartialEq)]
struct Line {
    loc: Option<String>,
    body: String,
}

impl Line {
    fn render(&self) -> String {
        match &self.loc {
            Some(l) => format!("{l}: {}", self.body),
            None => self.body.clone(),
        }
    }

    fn parse(s: &str) -> Line {
        if let Some((first, rest)) = s.split_once(": ") {
            let number = first.rsplit(':').next().unwrap_or(first);
            if !first.contains(' ')
                && !number.is_empty()
                && number.chars().all(|c| c.is_ascii_digit())
            {
                return Line {
                    loc: Some(first.to_string()),
                    body: rest.trim().to_string(),
                };
            }
        }
        Line {
            loc: None,
            body: s.trim().to_string(),
        }
    }
}

/// A file's header: the command line and flags it is read with, its expectation lines, and
/// how many lines the header block takes (launch lines below it move when it grows).
struct Header {
    args: Option<Vec<String>>,
    flags: Vec<String>,
    /// `errors:` the compile errors the program is written to have (a header its build has
    /// that the reader does not see), each `|`-separated part found in one error.
    errors: Vec<String>,
    show: Show,
    /// `args:`, `flags:`, `errors:` and `show:` lines as written, kept by a bless.
    setup: Vec<String>,
    lines: Vec<Line>,
    block_lines: usize,
    /// The file after the header block.
    rest: String,
}

/// What launch lines show beyond kernel, sizes, count and arguments (a `show:` line).
#[derive(Clone, Copy, Debug, Default)]
struct Show {
    /// `buffer_bytes`: the bytes of the device allocations the pointer arguments point into
    /// (`bytes{x=4096 y=?{why}}`).
    buffers: bool,
    /// `buffer_data`: the bytes the host wrote into those allocations, in hex
    /// (`data{x=0100000002000000}`), `!` after them where a kernel ran on the allocation
    /// since, and `?{why}` where some are zeros for values the reader lacks.
    data: bool,
    /// `field_offsets`: where each field of a by-value struct argument lies in it, as clang
    /// lays the struct out (`at{p.n@4}`).
    offsets: bool,
}

fn parse_header(path: &Path) -> Result<Header, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !text.starts_with(OPEN) {
        return Err(format!("{}: does not start with `{OPEN}`", path.display()));
    }
    let close = text.find(&format!("\n{CLOSE}")).ok_or_else(|| {
        format!(
            "{}: the header has no closing `{CLOSE}` line",
            path.display()
        )
    })?;
    let block_end = text[close + 1..]
        .find('\n')
        .map(|i| close + 1 + i + 1)
        .unwrap_or(text.len());
    let block = &text[..block_end];
    let mut h = Header {
        args: None,
        flags: Vec::new(),
        errors: Vec::new(),
        show: Show::default(),
        setup: Vec::new(),
        lines: Vec::new(),
        block_lines: block.lines().count(),
        rest: text[block_end..].to_string(),
    };
    for raw in block.lines().skip(1) {
        let l = raw.trim();
        if l == CLOSE || l.is_empty() {
            continue;
        }
        if let Some(a) = l.strip_prefix("args:") {
            h.args = Some(a.split_whitespace().map(String::from).collect());
            h.setup.push(l.to_string());
        } else if let Some(f) = l.strip_prefix("flags:") {
            h.flags = f.split_whitespace().map(String::from).collect();
            h.setup.push(l.to_string());
        } else if let Some(e) = l.strip_prefix("errors:") {
            h.errors = e.split('|').map(|s| s.trim().to_string()).collect();
            h.setup.push(l.to_string());
        } else if let Some(what) = l.strip_prefix("show:") {
            let has = |w: &str| what.split_whitespace().any(|x| x == w);
            h.show = Show {
                buffers: has("buffer_bytes"),
                data: has("buffer_data"),
                offsets: has("field_offsets"),
            };
            h.setup.push(l.to_string());
        } else {
            h.lines.push(Line::parse(l));
        }
    }
    Ok(h)
}

/// A reason as it can stand between `?{` and `}`.
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

fn location(file: &str, line: u32, case: &Case) -> String {
    let header =
        std::fs::canonicalize(&case.header_file).unwrap_or_else(|_| case.header_file.clone());
    if Path::new(file) == header {
        return line.to_string();
    }
    let rel = Path::new(file)
        .strip_prefix(std::fs::canonicalize(&case.dir).unwrap_or_else(|_| case.dir.clone()))
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| file.to_string());
    format!("{rel}:{line}")
}

fn launch_line(l: &Launch, case: &Case, show: Show) -> Line {
    let mut body = String::new();
    if l.api != "<<<>>>" {
        body.push_str(&format!("{} ", l.api));
    }
    body.push_str(&format!(
        "{} <<<{}, {}, {}>>>",
        l.kernel,
        dims(&l.grid),
        dims(&l.block),
        scalar(&l.shared_bytes)
    ));
    match &l.count_note {
        Some(why) => body.push_str(&format!(" x>={}{}", l.count, unknown(why))),
        None => body.push_str(&format!(" x{}", l.count)),
    }
    let named = |values: &BTreeMap<String, Scalar>| {
        let shown: Vec<String> = values
            .iter()
            .map(|(n, v)| format!("{n}={}", scalar(v)))
            .collect();
        shown.join(" ")
    };
    if !l.args.is_empty() {
        body.push_str(&format!(" {{{}}}", named(&l.args)));
    }
    if show.buffers && !l.buffer_bytes.is_empty() {
        body.push_str(&format!(" bytes{{{}}}", named(&l.buffer_bytes)));
    }
    if show.data && !l.buffer_data.is_empty() {
        let shown: Vec<String> = l
            .buffer_data
            .iter()
            .map(|(n, d)| {
                let hex: String = match &d.drawn {
                    Some(x) => drawn(x),
                    None => d.bytes.iter().map(|b| format!("{b:02x}")).collect(),
                };
                let kernel = if d.after_a_kernel { "!" } else { "" };
                let zeros = d.zeros_for.as_deref().map(unknown).unwrap_or_default();
                format!("{n}={hex}{kernel}{zeros}")
            })
            .collect();
        body.push_str(&format!(" data{{{}}}", shown.join(" ")));
    }
    if show.offsets && !l.field_offsets.is_empty() {
        let shown: Vec<String> = l
            .field_offsets
            .iter()
            .map(|(n, at)| format!("{n}@{at}"))
            .collect();
        body.push_str(&format!(" at{{{}}}", shown.join(" ")));
    }
    for c in &l.conditions {
        body.push_str(&format!(" when {}", unknown(c)));
    }
    Line {
        loc: Some(location(&l.file, l.line, case)),
        body,
    }
}

/// Elements described, not listed: `~f32[1048576]ramp(0,1)@main.cu:22`; a choice shows
/// each value with how many of the samples it was.
fn drawn(d: &kerncast_host::drawn::Drawn) -> String {
    use kerncast_host::drawn::Draw;
    let draw = match &d.draw {
        Draw::Ramp { start, step, .. } => format!("ramp({start},{step})"),
        Draw::Uniform { lo, hi, integral } => {
            let kind = if *integral { "ints" } else { "reals" };
            format!("uniform({lo}..{hi},{kind})")
        }
        Draw::Choice(v) => {
            let mut counts: Vec<(f64, usize)> = Vec::new();
            for x in v {
                match counts.last_mut() {
                    Some((y, c)) if y == x => *c += 1,
                    _ => counts.push((*x, 1)),
                }
            }
            let shown: Vec<String> = counts.iter().map(|(x, c)| format!("{x}x{c}")).collect();
            format!("pick({})", shown.join(","))
        }
    };
    let origin = d.origin.replace(' ', "_");
    format!("~{}[{}]{draw}@{origin}", d.elem.name(), d.count)
}

/// The reading in the header's text form.
fn render(r: &HostReading, case: &Case, show: Show) -> Vec<Line> {
    let mut out: Vec<Line> = r
        .launches
        .iter()
        .map(|l| launch_line(l, case, show))
        .collect();
    for u in &r.unreached {
        let mut body = format!("unreached {}", u.kernel.as_deref().unwrap_or("?"));
        if u.api != "<<<>>>" {
            body.push_str(&format!(" {}", u.api));
        }
        body.push_str(&format!(" {}", unknown(&u.reason)));
        out.push(Line {
            loc: Some(location(&u.file, u.line, case)),
            body,
        });
    }
    for (file, by) in &r.missing_inputs {
        out.push(Line {
            loc: None,
            body: format!("missing {file} read by {by}"),
        });
    }
    for n in &r.notes {
        if !n.contains("read as run without arguments") {
            out.push(Line {
                loc: None,
                body: format!("note {}", unknown(n)),
            });
        }
    }
    out
}

/// Text and `?{…}` reasons, alternating (text first).
fn segments(s: &str) -> (Vec<&str>, Vec<&str>) {
    let (mut texts, mut reasons) = (Vec::new(), Vec::new());
    let mut rest = s;
    while let Some(at) = rest.find("?{") {
        texts.push(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find('}').unwrap_or(after.len());
        reasons.push(&after[..end]);
        rest = after.get(end + 1..).unwrap_or("");
    }
    texts.push(rest);
    (texts, reasons)
}

/// Whether an expected line states what the reader found: the same text, and each unknown's
/// key words within the reader's reason.
fn matches(expected: &Line, actual: &Line) -> bool {
    if expected.loc != actual.loc {
        return false;
    }
    let (et, er) = segments(&expected.body);
    let (at, ar) = segments(&actual.body);
    et == at
        && er.len() == ar.len()
        && er
            .iter()
            .zip(&ar)
            .all(|(e, a)| a.to_lowercase().contains(&e.trim().to_lowercase()))
}

fn cases(root: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    let is_source = |p: &Path| {
        p.extension()
            .is_some_and(|e| SOURCES.contains(&e.to_string_lossy().as_ref()))
    };
    for p in entries {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if p.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&p)
                .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default();
            files.retain(|f| is_source(f));
            files.sort();
            let header_file = files
                .iter()
                .find(|f| std::fs::read_to_string(f).is_ok_and(|t| t.starts_with(OPEN)))
                .cloned()
                .unwrap_or_else(|| p.join("(no file with a kerncast-expect header)"));
            out.push(Case {
                name,
                dir: p.clone(),
                files,
                header_file,
            });
        } else if is_source(&p) {
            out.push(Case {
                name,
                dir: root.to_path_buf(),
                files: vec![p.clone()],
                header_file: p.clone(),
            });
        }
    }
    out
}

/// Reads one case; `Err` with what differs.
/// The cases' CUDA units load their prelude precompiled (as kerncast reads programs), so the
/// expected launches hold through it; `tests/prelude.rs` checks it against parsing whole.
fn check(case: &Case, tools: &Toolchain, preludes: &Path, bless: bool) -> Result<(), String> {
    let header = parse_header(&case.header_file)?;
    let mut program = Program::from_files(&case.files, &header.flags, tools);
    program.args = header.args.clone();
    let opts = Options {
        toolchain: tools.clone(),
        prelude_cache: Some(preludes.to_path_buf()),
        // each case runs in its own folder: a file it reads that is not there is listed
        run_dir: case.header_file.parent().map(Path::to_path_buf),
        ..Options::default()
    };
    let reading = read(&program, &opts).map_err(|e| format!("{}: {e}", case.name))?;
    if kerncast_host::live_containers() != 0 {
        return Err(format!(
            "{}: {} of the reader's containers were left alive after the reading",
            case.name,
            kerncast_host::live_containers()
        ));
    }
    let expected_errors = reading.diagnostics.len() == header.errors.len()
        && header
            .errors
            .iter()
            .all(|e| reading.diagnostics.iter().any(|d| d.contains(e.as_str())));
    if !reading.diagnostics.is_empty() && !expected_errors {
        return Err(format!(
            "{}: the program does not compile:\n  {}",
            case.name,
            reading.diagnostics.join("\n  ")
        ));
    }
    let actual = render(&reading, case, header.show);
    let same = actual.len() == header.lines.len()
        && header.lines.iter().zip(&actual).all(|(e, a)| matches(e, a));
    if same {
        return Ok(());
    }
    if bless {
        return bless_header(case, &header, &actual);
    }
    let mut msg = format!(
        "{}: the reader's launches differ from the header\n",
        case.name
    );
    msg.push_str("  expected:\n");
    for l in &header.lines {
        msg.push_str(&format!("    {}\n", l.render()));
    }
    msg.push_str("  found:\n");
    for l in &actual {
        let mark = if header.lines.iter().any(|e| matches(e, l)) {
            " "
        } else {
            "!"
        };
        msg.push_str(&format!("   {mark}{}\n", l.render()));
    }
    Err(msg)
}

/// Rewrites a header from `actual`, keeping the expected lines that match. Lines of the header's
/// own file move by as many lines as the header grows or shrinks.
fn bless_header(case: &Case, header: &Header, actual: &[Line]) -> Result<(), String> {
    let mut lines: Vec<Line> = actual
        .iter()
        .map(|a| {
            header
                .lines
                .iter()
                .find(|e| matches(e, a))
                .cloned()
                .unwrap_or_else(|| a.clone())
        })
        .collect();
    let new_block_lines = 2 + header.setup.len() + lines.len();
    let shift = new_block_lines as i64 - header.block_lines as i64;
    for l in &mut lines {
        if let Some(n) = l.loc.as_ref().and_then(|s| s.parse::<i64>().ok()) {
            l.loc = Some((n + shift).to_string());
        }
    }
    let mut text = format!("{OPEN}\n");
    for s in &header.setup {
        text.push_str(&format!("{s}\n"));
    }
    for l in &lines {
        text.push_str(&format!("{}\n", l.render()));
    }
    text.push_str(&format!("{CLOSE}\n"));
    text.push_str(&header.rest);
    std::fs::write(&case.header_file, text)
        .map_err(|e| format!("{}: cannot bless: {e}", case.header_file.display()))?;
    eprintln!("blessed {}", case.name);
    if shift != 0 {
        // the line numbers inside reasons ("the loop at line 45") are the reader's, not shifted
        eprintln!(
            "{}: the header grew or shrank by {shift} lines: bless again so that the line numbers inside reasons follow",
            case.name
        );
    }
    Ok(())
}

#[test]
fn golden_programs_launch_what_their_headers_state() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let tools = Toolchain::discover();
    assert!(
        tools.cuda_path.is_some(),
        "the CUDA 12 headers are missing: run `cargo xtask bootstrap` or set KERNCAST_CUDA_PATH"
    );
    let bless = std::env::var_os("KERNCAST_BLESS").is_some_and(|v| v == "1");
    let only = std::env::var("KERNCAST_GOLDEN_ONLY").ok();
    let all = cases(&root);
    let selected: Vec<&Case> = all
        .iter()
        .filter(|c| only.as_deref().is_none_or(|o| c.name.contains(o)))
        .collect();
    // libclang parses take most of the time: a few at once.
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 4);
    let preludes = std::env::temp_dir().join(format!("kerncast-golden-{}", std::process::id()));
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = selected.get(i) else { break };
                if let Err(e) = check(case, &tools, &preludes, bless) {
                    failures.lock().unwrap_or_else(|p| p.into_inner()).push(e);
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&preludes);
    let mut failures = failures.into_inner().unwrap_or_else(|p| p.into_inner());
    failures.sort();
    assert!(
        failures.is_empty(),
        "{} of {} golden programs differ (KERNCAST_BLESS=1 rewrites the headers; check each against C first):\n\n{}",
        failures.len(),
        selected.len(),
        failures.join("\n")
    );
    // Issue 47's acceptance asks for at least 60 programs.
    assert!(
        all.len() >= 60,
        "only {} golden programs in {}",
        all.len(),
        root.display()
    );
}

#[test]
fn expectation_lines_match_by_text_and_reason_key_words() {
    let e = Line::parse("12: k(int) <<<(?{random},1,1), (256,1,1), 0>>> x1 {n=?{random}}");
    let a = Line::parse(
        "12: k(int) <<<(?{`n`: a random number},1,1), (256,1,1), 0>>> x1 {n=?{a random number}}",
    );
    assert_eq!(e.loc.as_deref(), Some("12"));
    assert!(matches(&e, &a));
    let wrong = Line::parse("12: k(int) <<<(4,1,1), (256,1,1), 0>>> x1 {n=?{a random number}}");
    assert!(
        !matches(&e, &wrong),
        "a number where the header says unknown"
    );
    let other_words =
        Line::parse("12: k(int) <<<(?{a file},1,1), (256,1,1), 0>>> x1 {n=?{random}}");
    assert!(!matches(&e, &other_words), "an unknown for another reason");
    let elsewhere = Line::parse("helpers.cu:30: unreached k(int) ?{never reached}");
    assert_eq!(elsewhere.loc.as_deref(), Some("helpers.cu:30"));
    assert_eq!(Line::parse("note ?{budget}").loc, None);
}
