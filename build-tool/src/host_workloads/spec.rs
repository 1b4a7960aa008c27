//! A kernel's workloads from the launches the host reading found: each launch of the kernel
//! (matched by the device symbol clang resolved, or by the name the host passes) becomes a
//! workload with its grid, block and arguments as numbers. What the reading could not know
//! stays a name the workload reads, with why, so resolving or counting asks for it
//! (`--param NAME=VALUE`); nothing is guessed.

use super::program::HostProgram;
use crate::workload::{Dims, Expr, LaunchCount, WorkloadSpec};
use kerncast_host::{BufferData, Launch, Scalar};
use std::collections::BTreeMap;

/// What the workloads need to know of the kernel: its PTX entry and source.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    /// The PTX entry (`_Z5scalePfi`, or `scale` for `extern "C"` and OpenCL).
    pub entry: String,
    /// Its demangled name without parameters (`scale`, `fill<float>`).
    pub demangled: String,
    /// Parameter names in order: the source's where known, else the PTX's.
    pub params: Vec<String>,
    /// Which parameters are pointers (their arguments are buffers, not sizes).
    pub pointers: Vec<bool>,
    /// Which parameters decide a count (a branch or an address): launches that differ only in
    /// the others' arguments are predicted alike.
    pub deciding: Vec<bool>,
    /// Whether the kernel has `extern __shared__` memory, which the launch sizes.
    pub dynamic_shared: bool,
    /// The file the kernel is defined in, as shown: launches there are named by line alone.
    pub file: String,
}

/// Whether `launch` runs the kernel `k`: its resolved symbol is the entry, or the name the host
/// passes is the entry or its demangled name (`scale<float, 3>` through NVRTC's lowered name).
pub fn runs(launch: &Launch, k: &KernelInfo) -> bool {
    if launch.symbol == k.entry {
        return true;
    }
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    launch.by_name && squeeze(&launch.symbol) == squeeze(&k.demangled)
}

/// The workloads of `k`'s launches in `launches`: one per launch, where launches that agree in
/// their grid, block, shared memory and the arguments that decide counts are one workload that
/// stands for all of them.
pub fn workloads(launches: &[&Launch], k: &KernelInfo, host: &HostProgram) -> Vec<WorkloadSpec> {
    let mut groups: Vec<(Vec<String>, Vec<&Launch>)> = Vec::new();
    for l in launches {
        let key = identity(l, k);
        match groups.iter_mut().find(|(g, _)| *g == key) {
            Some((_, ls)) => ls.push(l),
            None => groups.push((key, vec![l])),
        }
    }
    groups
        .into_iter()
        .map(|(_, ls)| spec_of(&ls, k, host))
        .collect()
}

/// What makes two launches predict differently: grid, block, shared memory and the arguments
/// of the parameters that decide counts (or whose role is not known).
fn identity(l: &Launch, k: &KernelInfo) -> Vec<String> {
    let mut key: Vec<String> = l
        .grid
        .iter()
        .chain(&l.block)
        .chain(std::iter::once(&l.shared_bytes))
        .map(shown)
        .collect();
    let args = l.args.iter().map(|(n, v)| (n.as_str(), n.as_str(), v));
    let fields = l
        .fields
        .iter()
        .map(|(path, v)| (path.split('.').next().unwrap_or(path), path.as_str(), v));
    for (arg, name, v) in args.chain(fields) {
        let deciding = index_of(l, arg).is_none_or(|i| k.deciding.get(i).copied().unwrap_or(true));
        if deciding && !is_pointer(l, arg, k) {
            key.push(format!("{}={}", field_name(l, arg, name, k), shown(v)));
        }
    }
    key
}

/// The names of the unknown values a launch of `k` depends on: in its grid, block or shared
/// memory, or an argument that is not a pointer (the names `--param` can give it).
pub fn unknown_names(l: &Launch, k: &KernelInfo) -> Vec<String> {
    let sizes = l
        .grid
        .iter()
        .chain(&l.block)
        .chain(std::iter::once(&l.shared_bytes));
    let args = l
        .args
        .iter()
        .filter(|(n, _)| !is_pointer(l, n, k))
        .map(|(_, v)| v);
    sizes
        .chain(args)
        .filter_map(|s| s.unknown_name().map(str::to_string))
        .collect()
}

fn shown(s: &Scalar) -> String {
    match s {
        Scalar::Unknown(why) => format!("?{why}"),
        other => other.to_string(),
    }
}

/// The index of the parameter an argument is for: `argN`'s where the host names the kernel by
/// string, else its position among the launch's arguments (whose names are those of the
/// declaration the host code sees).
fn index_of(l: &Launch, name: &str) -> Option<usize> {
    if l.by_name {
        // a host that names the kernel by string sets its arguments by index (`argN`)
        if let Some(i) = name
            .strip_prefix("arg")
            .and_then(|i| i.parse::<usize>().ok())
        {
            return Some(i);
        }
    }
    l.arg_order.iter().position(|n| n == name)
}

/// The kernel's name for an argument: its parameter's at the argument's position.
fn param_name(l: &Launch, name: &str, k: &KernelInfo) -> String {
    match index_of(l, name).and_then(|i| k.params.get(i)) {
        Some(p) => p.clone(),
        None => name.to_string(),
    }
}

/// The kernel's name for an argument or a field of one (`p.n` with the definition's `p`).
fn field_name(l: &Launch, arg: &str, path: &str, k: &KernelInfo) -> String {
    let param = param_name(l, arg, k);
    match path.strip_prefix(arg) {
        Some(rest) => format!("{param}{rest}"),
        None => param,
    }
}

/// Whether an argument is a pointer's (a buffer, not a size).
fn is_pointer(l: &Launch, name: &str, k: &KernelInfo) -> bool {
    index_of(l, name).is_some_and(|i| k.pointers.get(i).copied().unwrap_or(false))
}

/// A launch dimension: its number, or the name the host code stored the unknown value under
/// (which `--param` can give), or a description that says it is not a name.
fn dim(s: &Scalar, what: &str, unset: &mut BTreeMap<String, String>) -> Expr {
    match s {
        Scalar::Int(v) => Expr::Int(*v),
        Scalar::Unknown(why) => {
            let name = match s.unknown_name() {
                Some(n) => n.to_string(),
                None => format!("the launch's {what}"),
            };
            unset.insert(name.clone(), unnamed(why).to_string());
            Expr::Var(name)
        }
        other => {
            let name = format!("the launch's {what}");
            unset.insert(name.clone(), format!("it is {other}, not a number"));
            Expr::Var(name)
        }
    }
}

/// An unknown value's reason without the name it starts with (`` `n`: read from a file ``).
fn unnamed(why: &str) -> &str {
    match why.strip_prefix('`').and_then(|r| r.split_once("`: ")) {
        Some((_, rest)) => rest,
        None => why,
    }
}

/// The workload of launches that predict alike (the first one's values).
fn spec_of(ls: &[&Launch], k: &KernelInfo, host: &HostProgram) -> WorkloadSpec {
    let first = ls[0];
    let mut spec = WorkloadSpec::empty();
    spec.grid_div = crate::workload::Div::Floor;
    let mut unset = BTreeMap::new();
    let axes = ["x", "y", "z"];
    spec.grid = Dims(
        first
            .grid
            .iter()
            .zip(axes)
            .map(|(s, a)| dim(s, &format!("grid.{a}"), &mut unset))
            .collect(),
    );
    spec.block = Dims(
        first
            .block
            .iter()
            .zip(axes)
            .map(|(s, a)| dim(s, &format!("block.{a}"), &mut unset))
            .collect(),
    );
    match &first.shared_bytes {
        Scalar::Int(v) if *v > 0 || k.dynamic_shared => {
            spec.hints.insert(
                kerncast_passes::count::DYNAMIC_SHARED_BYTES.to_string(),
                *v as f64,
            );
        }
        _ => {}
    }
    for (name, v) in &first.args {
        if is_pointer(first, name, k) {
            continue;
        }
        let param = param_name(first, name, k);
        match v {
            Scalar::Int(x) => spec.params.push((param, Expr::Int(*x))),
            Scalar::Float(x) => {
                spec.hints.insert(format!("param.{param}"), *x);
            }
            Scalar::Unknown(why) => {
                let why = match v.unknown_name() {
                    Some(n) if n != param => format!(
                        "its argument is the host's `{n}`, which kerncast does not know ({}); \
                         give it with --param {n}=VALUE",
                        unnamed(why)
                    ),
                    _ => unnamed(why).to_string(),
                };
                unset.insert(param, why);
            }
            Scalar::Other(_) => {}
        }
    }
    // the emulator's buffers, sized as the host allocated them
    for (param, bytes) in buffer_bytes(ls, k) {
        spec.hints
            .insert(format!("buffer_bytes.{param}"), bytes as f64);
    }
    // what the host wrote into them, for the emulator to run on instead of zeros
    for (param, data) in buffer_data(ls, k) {
        if data.after_a_kernel {
            spec.notes.push(format!(
                "the emulator runs on the bytes the host wrote into `{param}`, although a kernel launched on it before may have changed them"
            ));
        }
        if let Some(why) = &data.zeros_for {
            spec.notes.push(format!(
                "some bytes the host wrote into `{param}` are values kerncast does not know, run as zero ({why})"
            ));
        }
        let (buffer, note) = emulator_buffer(&param, &data);
        spec.notes.extend(note);
        if let Some(buffer) = buffer {
            spec.buffers.insert(param, buffer);
        }
    }
    struct_fields(first, k, &mut spec, &mut unset);
    spec.unset = unset;
    spec.origin = Some(origin(ls, k, host));
    spec.launches = launch_counts(ls, k, host);
    spec
}

/// The spec of the buffer the emulator runs `param` on, from what the host wrote into it
/// (none where it is too large to generate), and the note saying where the data is an
/// estimate or left out. Zeros (a `cudaMemset` to 0) cost nothing at any size: the emulator
/// maps them.
fn emulator_buffer(param: &str, data: &BufferData) -> (Option<String>, Option<String>) {
    let Some(d) = &data.drawn else {
        return (Some(crate::buffers::hex_spec(&data.bytes)), None);
    };
    let bytes = d.count.saturating_mul(d.elem.bytes());
    if bytes > DRAWN_BYTES_MAX && !d.is_zeros() {
        let note = format!(
            "the emulator runs `{param}` on zeros: the values of {} fill {} MiB, more than the {} MiB kerncast generates for a buffer",
            d.origin,
            bytes >> 20,
            DRAWN_BYTES_MAX >> 20
        );
        return (None, Some(note));
    }
    let note = (!d.is_exact()).then(|| {
        format!(
            "the emulator runs `{param}` on values drawn like those of {} (described from its first {} iterations): an estimate",
            d.origin,
            kerncast_host::drawn::SAMPLES
        )
    });
    (Some(crate::buffers::drawn_spec(d)), note)
}

/// The largest buffer of described values ([`kerncast_host::drawn`]) the emulator is given:
/// each is generated whole and copied once more into the run, for every workload.
const DRAWN_BYTES_MAX: u64 = 64 << 20;

/// The fields of the structs `l` passes by value, into `spec`: by the kernel's names (`p.n`,
/// `x.sizes[0]`) and, where clang laid the struct out, by their offsets (`p+12`), as the kernel
/// reads them; a float field as a `param.` hint, an unknown one into `unset`.
fn struct_fields(
    l: &Launch,
    k: &KernelInfo,
    spec: &mut WorkloadSpec,
    unset: &mut BTreeMap<String, String>,
) {
    for (path, v) in &l.fields {
        let arg = path.split('.').next().unwrap_or(path);
        if is_pointer(l, arg, k) {
            continue;
        }
        let name = field_name(l, arg, path, k);
        let at = l
            .field_offsets
            .get(path)
            .map(|off| crate::param_fields::offset_key(&param_name(l, arg, k), *off));
        match v {
            Scalar::Int(x) => {
                spec.params.push((name, Expr::Int(*x)));
                if let Some(key) = at {
                    spec.params.push((key, Expr::Int(*x)));
                }
            }
            Scalar::Float(x) => {
                if let Some(key) = at {
                    spec.hints.insert(format!("param.{key}"), *x);
                }
            }
            Scalar::Unknown(why) => {
                unset.insert(name, unnamed(why).to_string());
            }
            Scalar::Other(_) => {}
        }
    }
}

/// The bytes of the device allocation each pointer argument points into (from where it
/// points), by the kernel's parameter names, where the host code sizes it: the emulator runs a
/// kernel whose counts depend on data on zero-filled buffers of these sizes.
///
/// The workload stands for all the launches `ls`, which agree in everything that decides the
/// counts but may pass allocations of different sizes (a loop over buffers, a sweep that only
/// changes the data): each buffer takes the largest size any of them gives it. What a kernel
/// reads is decided by the arguments they share and no launch reads past its own allocation,
/// so the largest is room for the reads of every launch the workload stands for (the smallest
/// would be too, were every size known; the largest stays right where one is not). A launch
/// whose size is unknown adds nothing; where none knows it, the emulator's default and its
/// assumption stay.
///
/// A pointer field of a struct passed by value is named by its path with the kernel's name for
/// the parameter (`p.in`): the source's field names key it by offset for the emulator
/// (`param_fields::alias_fields`).
fn buffer_bytes(ls: &[&Launch], k: &KernelInfo) -> BTreeMap<String, u64> {
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for l in ls {
        for (path, bytes) in &l.buffer_bytes {
            let Some(b) = bytes.as_u64() else {
                continue;
            };
            let arg = path.split('.').next().unwrap_or(path);
            let name = match path == arg {
                true if is_pointer(l, arg, k) => param_name(l, arg, k),
                // a field of a struct argument (a pointer argument has none)
                false if index_of(l, arg).is_some() && !is_pointer(l, arg, k) => {
                    field_name(l, arg, path, k)
                }
                _ => continue,
            };
            let e = out.entry(name).or_insert(b);
            *e = (*e).max(b);
        }
    }
    out
}

/// The bytes the host wrote into the allocation each pointer argument points into, by the
/// kernel's parameter names, where every launch the workload stands for gives the same: data
/// that differs between them would decide different counts, and no one of them stands for
/// all. Pointer fields of by-value structs are not given data.
fn buffer_data(ls: &[&Launch], k: &KernelInfo) -> BTreeMap<String, BufferData> {
    let Some(first) = ls.first() else {
        return BTreeMap::new();
    };
    first
        .buffer_data
        .iter()
        .filter(|(arg, _)| index_of(first, arg).is_some() && is_pointer(first, arg, k))
        .filter(|(arg, data)| {
            ls.iter().all(|l| {
                l.buffer_data.get(*arg).is_some_and(|d| {
                    d.bytes == data.bytes && d.drawn == data.drawn && d.zeros_for == data.zeros_for
                })
            })
        })
        .map(|(arg, data)| {
            let mut data = data.clone();
            data.after_a_kernel = ls
                .iter()
                .any(|l| l.buffer_data.get(arg).is_some_and(|d| d.after_a_kernel));
            (param_name(first, arg, k), data)
        })
        .collect()
}

/// Where a launch is, as the notes name it: `line 17` in the kernel's own file, else
/// `main.cu:5`; then the calls that reach it, innermost first (`line 6, in launch_add called
/// at main.cpp:7`): those from other files only, or (`all_calls`) every one.
fn place(l: &Launch, k: &KernelInfo, host: &HostProgram, all_calls: bool) -> String {
    format!("{}{}", site(l, k, host), calls(l, k, host, all_calls))
}

/// `line 17` in the kernel's own file, else `main.cu:5`.
fn site(l: &Launch, k: &KernelInfo, host: &HostProgram) -> String {
    let file = host.shown(&l.file);
    match file == k.file {
        true => format!("line {}", l.line),
        false => format!("{file}:{}", l.line),
    }
}

/// The calls that reach a launch, innermost first: `, in launch_add called at main.cpp:7`.
fn calls(l: &Launch, k: &KernelInfo, host: &HostProgram, all_calls: bool) -> String {
    let file = host.shown(&l.file);
    let mut at = String::new();
    let mut inner = l.file.as_str();
    for c in l.calls.iter().rev() {
        if c.file != inner || all_calls {
            let shown = host.shown(&c.file);
            let call = match c.file == l.file && file == k.file {
                true => format!("line {}", c.line),
                false => format!("{shown}:{}", c.line),
            };
            at.push_str(&format!(", in {} called at {call}", c.function));
        }
        inner = &c.file;
    }
    at
}

/// The line of code a launch is written on, trimmed, without a comment at its end.
fn code_at(file: &str, line: u32) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let l = text.lines().nth((line as usize).checked_sub(1)?)?;
    let python = file.ends_with(".py");
    let l = without_comment(l, python).trim();
    (!l.is_empty()).then(|| l.to_string())
}

/// `line` up to a comment that ends it (`// …`, or `# …` in Python) outside quotes.
fn without_comment(line: &str, python: bool) -> &str {
    let b = line.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        match (quote, b[i]) {
            (Some(_), b'\\') => i += 1,
            (Some(q), c) if c == q => quote = None,
            (None, b'"' | b'\'') => quote = Some(b[i]),
            (None, b'#') if python => return &line[..i],
            (None, b'/') if !python && b.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

/// `the launch at main.cu:5: scale<<<N / 128, 128>>>(x, N);`, and for launches that predict
/// alike, how many there are and which arguments differ between them.
fn origin(ls: &[&Launch], k: &KernelInfo, host: &HostProgram) -> String {
    let first = ls[0];
    let mut o = format!("the launch at {}", site(first, k, host));
    if let Some(code) = code_at(&first.file, first.line) {
        o.push_str(&format!(": {code}"));
    }
    o.push_str(&calls(first, k, host, true));
    if ls.len() > 1 {
        let mut differ: Vec<String> = Vec::new();
        for (name, v) in &first.args {
            if ls.iter().any(|l| l.args.get(name) != Some(v)) {
                let p = param_name(first, name, k);
                if !differ.contains(&p) {
                    differ.push(p);
                }
            }
        }
        o.push_str(&format!(
            ", standing for {} launches alike in what decides the counts",
            ls.len()
        ));
        if !differ.is_empty() {
            let names: Vec<String> = differ.iter().map(|d| format!("`{d}`")).collect();
            o.push_str(&format!(
                " ({} differ{} between them; the first launch's values are shown)",
                names.join(", "),
                if names.len() == 1 { "s" } else { "" }
            ));
        }
    }
    o
}

/// Each launch site's runs, the same site's launches added up.
fn launch_counts(ls: &[&Launch], k: &KernelInfo, host: &HostProgram) -> Vec<LaunchCount> {
    let mut out: Vec<LaunchCount> = Vec::new();
    for l in ls {
        let at = place(l, k, host, false);
        let times = match (&l.count_note, l.count) {
            (Some(why), 1) => Err(format!("it runs at least once: {why}")),
            (Some(why), n) => Err(format!("it runs at least {n} times: {why}")),
            (None, n) => Ok(n),
        };
        match out
            .iter_mut()
            .find(|o| o.at == at && o.conditions == l.conditions)
        {
            Some(o) => {
                o.times = match (&o.times, &times) {
                    (Ok(a), Ok(b)) => Ok(a.saturating_add(*b)),
                    (Err(e), _) | (_, Err(e)) => Err(e.clone()),
                }
            }
            None => out.push(LaunchCount {
                at,
                file: host.shown(&l.file),
                line: l.line as usize,
                times,
                conditions: l.conditions.clone(),
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{
        buffer_bytes, buffer_data, emulator_buffer, struct_fields, without_comment, KernelInfo,
    };
    use crate::workload::{Expr, WorkloadSpec};
    use kerncast_host::{BufferData, Launch, Scalar};
    use std::collections::BTreeMap;

    fn launch(args: &[(&str, Scalar)], bytes: &[(&str, Scalar)]) -> Launch {
        Launch {
            kernel: "k(float*, float*, int)".into(),
            name: "k".into(),
            symbol: "_Z1kPfS_i".into(),
            by_name: false,
            grid: [Scalar::Int(4), Scalar::Int(1), Scalar::Int(1)],
            block: [Scalar::Int(256), Scalar::Int(1), Scalar::Int(1)],
            shared_bytes: Scalar::Int(0),
            args: args
                .iter()
                .map(|(n, v)| (n.to_string(), v.clone()))
                .collect(),
            arg_order: args.iter().map(|(n, _)| n.to_string()).collect(),
            fields: Default::default(),
            field_offsets: Default::default(),
            buffer_bytes: bytes
                .iter()
                .map(|(n, v)| (n.to_string(), v.clone()))
                .collect(),
            buffer_data: Default::default(),
            count: 1,
            count_note: None,
            file: "main.cu".into(),
            line: 1,
            col: 1,
            api: "<<<>>>".into(),
            conditions: Vec::new(),
            via: Vec::new(),
            calls: Vec::new(),
            order: Vec::new(),
        }
    }

    /// `k(float* src, float* dst, int n)`, with which parameters decide its counts.
    fn kernel(deciding: Vec<bool>) -> KernelInfo {
        KernelInfo {
            entry: "_Z1kPfS_i".into(),
            demangled: "k".into(),
            params: vec!["src".into(), "dst".into(), "n".into()],
            pointers: vec![true, true, false],
            deciding,
            dynamic_shared: false,
            file: "main.cu".into(),
        }
    }

    /// A workload's buffers are sized by the kernel's parameter names (the host's declaration
    /// may name them otherwise), each the largest any of its launches allocates; a size the
    /// host does not know adds nothing.
    #[test]
    fn a_workload_sizes_each_buffer_by_the_largest_allocation_of_its_launches() {
        let k = kernel(vec![false, false, true]);
        let args = [
            ("a", Scalar::Other("ptr".into())),
            ("b", Scalar::Other("ptr".into())),
            ("n", Scalar::Int(1024)),
        ];
        let first = launch(
            &args,
            &[
                ("a", Scalar::Int(4096)),
                ("b", Scalar::Unknown("read from a file".into())),
            ],
        );
        let second = launch(&args, &[("a", Scalar::Int(16384)), ("b", Scalar::Int(100))]);
        let third = launch(&args, &[("a", Scalar::Int(8192))]);
        let sizes = buffer_bytes(&[&first, &second, &third], &k);
        assert_eq!(
            sizes.into_iter().collect::<Vec<_>>(),
            vec![("dst".to_string(), 100), ("src".to_string(), 16384)]
        );
        assert!(!buffer_bytes(&[&first], &k).contains_key("dst"));
    }

    /// The data the host wrote reaches the workload by the kernel's parameter names where
    /// every launch it stands for has the same; one launch after a kernel ran on the
    /// allocation marks it so; data that differs between the launches is left out.
    #[test]
    fn a_workload_takes_the_hosts_data_only_where_its_launches_agree() {
        let k = kernel(vec![true, false, false]);
        let args = [
            ("a", Scalar::Other("ptr".into())),
            ("b", Scalar::Other("ptr".into())),
            ("n", Scalar::Int(2)),
        ];
        let data = |bytes: &[u8], after_a_kernel: bool| BufferData {
            bytes: bytes.to_vec(),
            drawn: None,
            after_a_kernel,
            zeros_for: None,
        };
        let mut first = launch(&args, &[]);
        first.buffer_data.insert("a".into(), data(&[1, 2], false));
        first.buffer_data.insert("b".into(), data(&[9], false));
        let mut second = launch(&args, &[]);
        second.buffer_data.insert("a".into(), data(&[1, 2], true));
        second.buffer_data.insert("b".into(), data(&[8], false));
        let both = buffer_data(&[&first, &second], &k);
        assert_eq!(both.keys().collect::<Vec<_>>(), vec!["src"]);
        assert_eq!(both["src"], data(&[1, 2], true));
        assert_eq!(buffer_data(&[&first], &k)["dst"], data(&[9], false));
    }

    /// A struct's fields reach the workload by the kernel's name for them and by the offset
    /// clang gives them (the key the counter and the emulator read a field by); a float field
    /// as a hint; a field without an offset by name only.
    #[test]
    fn struct_fields_are_keyed_by_name_and_by_offset() {
        let k = KernelInfo {
            params: vec!["in".into(), "out".into(), "p".into()],
            ..kernel(vec![false, false, true])
        };
        let mut l = launch(&[], &[]);
        l.args.insert("cfg".into(), Scalar::Other("{…}".into()));
        l.arg_order = vec!["a".into(), "b".into(), "cfg".into()];
        for (path, v, at) in [
            ("cfg.n", Scalar::Int(640), Some(12)),
            ("cfg.scale", Scalar::Float(0.5), Some(16)),
            ("cfg.extra", Scalar::Int(3), None),
        ] {
            l.fields.insert(path.into(), v);
            if let Some(at) = at {
                l.field_offsets.insert(path.into(), at);
            }
        }
        let mut spec = WorkloadSpec::empty();
        let mut unset = BTreeMap::new();
        struct_fields(&l, &k, &mut spec, &mut unset);
        assert_eq!(
            spec.params,
            vec![
                ("p.extra".to_string(), Expr::Int(3)),
                ("p.n".to_string(), Expr::Int(640)),
                ("p+12".to_string(), Expr::Int(640)),
            ]
        );
        assert_eq!(spec.hints.get("param.p+16"), Some(&0.5));
        assert!(unset.is_empty());
    }

    #[test]
    fn a_comment_at_the_end_of_a_launch_line_is_cut_but_not_one_in_quotes() {
        assert_eq!(
            without_comment("add((n,), (256,), (x,))  # grid, block", true),
            "add((n,), (256,), (x,))  "
        );
        assert_eq!(without_comment("f(\"#x\") # c", true), "f(\"#x\") ");
        assert_eq!(
            without_comment("k<<<g, b>>>(x); // run", false),
            "k<<<g, b>>>(x); "
        );
        assert_eq!(
            without_comment("k<<<g, b>>>(\"//\", '\\'');", false),
            "k<<<g, b>>>(\"//\", '\\'');"
        );
        assert_eq!(without_comment("a = n # c", false), "a = n # c");
    }

    /// Values the host reading described reach the emulator as a generator: a ramp as is, a
    /// random draw with a note calling it an estimate, zeros at any size; what is too large
    /// to generate is left to the emulator's zero fill, with a note.
    #[test]
    fn described_host_values_become_generators_within_a_size() {
        use kerncast_host::drawn::{Draw, Drawn, Elem};
        let data = |count, draw| BufferData {
            bytes: Vec::new(),
            drawn: Some(Drawn {
                elem: Elem::I32,
                count,
                draw,
                origin: "the fill loop at main.cu:7".into(),
            }),
            after_a_kernel: false,
            zeros_for: None,
        };
        let ramp = |start| Draw::Ramp {
            start,
            step: 1.0,
            ints: true,
        };
        let ints = Draw::Uniform {
            lo: 0.0,
            hi: 9.0,
            integral: true,
        };
        let (spec, note) = emulator_buffer("a", &data(1 << 20, ramp(5.0)));
        assert_eq!(
            (spec.as_deref(), note),
            (Some("i32:ramp(1048576, 5, 1)"), None)
        );
        let (spec, note) = emulator_buffer("z", &data(1 << 20, ints.clone()));
        assert_eq!(spec.as_deref(), Some("i32:randint(1048576, 0, 9)"));
        assert!(note
            .unwrap()
            .contains("`z` on values drawn like those of the fill loop at main.cu:7"));
        let zeros = Draw::Ramp {
            start: 0.0,
            step: 0.0,
            ints: true,
        };
        assert_eq!(
            emulator_buffer("c", &data(1 << 30, zeros)),
            (Some("i32:zeros(1073741824)".into()), None)
        );
        let (spec, note) = emulator_buffer("big", &data(1 << 30, ints));
        assert_eq!(spec, None);
        assert!(note.unwrap().contains("4096 MiB, more than the 64 MiB"));
    }
}
