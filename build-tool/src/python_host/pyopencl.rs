//! PyOpenCL's programs and launches, written as the OpenCL C++ bindings' calls so that the
//! OpenCL launch reader ([`crate::launch_sites`]) reads them as it reads a C++ host's:
//!
//! ```text
//! prg = cl.Program(ctx, SRC).build(options=["-DREPS=3"])
//! prg.vadd(queue, (n,), (256,), a_g, b_g, c_g, np.int32(n))
//!     → cl::Kernel prg_vadd(program, "vadd"); prg_vadd.setArg(0, a_g); …
//!       queue.enqueueNDRangeKernel(prg_vadd, cl::NullRange, cl::NDRange(n), cl::NDRange(256));
//! knl = cl.Kernel(prg, "tile_sum")        → cl::Kernel knl(program, "tile_sum");
//! knl.set_args(x_g, cl.LocalMemory(512))  → knl.setArg(0, x_g); knl.setArg(1, cl::Local(512));
//! cl.enqueue_nd_range_kernel(queue, knl, (n,), None)
//!     → queue.enqueueNDRangeKernel(knl, cl::NullRange, cl::NDRange(n), cl::NullRange);
//! ```
//!
//! A kernel is a program's attribute (`prg.vadd`, called, or held in a variable first) or a
//! `cl.Kernel(prg, "name")`. A local size of `None` is the runtime's choice, asked for as a C++
//! host's `cl::NullRange` is.

use super::{argument, bare, c_expression, keyword, kwarg, literal, size_items, split_top};
use regex::Regex;
use std::sync::LazyLock;

/// `prg = cl.Program(…)`, with or without `.build(…)` after it.
static PROGRAM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([A-Za-z_]\w*)\s*=\s*[\w.]*\bProgram\s*\(").unwrap());
/// `knl = cl.Kernel(prg, "name")`.
static KERNEL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([A-Za-z_]\w*)\s*=\s*[\w.]*\bKernel\s*\((.*)\)$").unwrap());
/// `knl = prg.name`.
static ATTRIBUTE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\.([A-Za-z_]\w*)$").unwrap());
static LOCAL_MEMORY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[\w.]*\bLocalMemory\s*\((.*)\)$").unwrap());

/// A `cl.Program`'s methods and attributes, which are not its kernels.
const PROGRAM_MEMBERS: [&str; 10] = [
    "build",
    "compile",
    "link",
    "get_info",
    "get_build_info",
    "all_kernels",
    "kernel_names",
    "int_ptr",
    "binaries",
    "from_int_ptr",
];

/// The programs and kernel handles of a Python host, read before its statements are shaped.
pub(super) struct Handles {
    programs: Vec<String>,
    /// (variable, kernel)
    kernels: Vec<(String, String)>,
}

impl Handles {
    /// The handles `statements` (as written, each on one line) make.
    pub(super) fn of<'s>(statements: impl Iterator<Item = &'s str> + Clone) -> Handles {
        let programs: Vec<String> = statements
            .clone()
            .filter_map(|s| PROGRAM.captures(s.trim()).map(|c| c[1].to_string()))
            .collect();
        let mut out = Handles {
            programs,
            kernels: Vec::new(),
        };
        for s in statements {
            if let Some((var, kernel)) = out.handle(s.trim()) {
                out.kernels.push((var, kernel));
            }
        }
        out
    }

    /// `knl = prg.name` or `knl = cl.Kernel(prg, "name")`: the variable and the kernel.
    fn handle(&self, statement: &str) -> Option<(String, String)> {
        if let Some(c) = KERNEL.captures(statement) {
            let args = split_top(&c[2]);
            let name = literal(args.get(1)?.trim())?;
            return Some((c[1].to_string(), name));
        }
        let c = ATTRIBUTE.captures(statement)?;
        self.kernel_of(&c[2], &c[3]).map(|k| (c[1].to_string(), k))
    }

    /// `program.name` as a kernel: `name`, when `program` is one of the file's programs.
    fn kernel_of(&self, program: &str, name: &str) -> Option<String> {
        (self.programs.iter().any(|p| p == program) && !PROGRAM_MEMBERS.contains(&name))
            .then(|| name.to_string())
    }

    /// `statement` (code only; `raw` as written, for the kernels' names) as C++ bindings calls,
    /// and whether it launches a kernel.
    pub(super) fn shape(&self, statement: &str, raw: &str) -> Option<(String, bool)> {
        let s = statement.trim();
        if let Some((var, kernel)) = self.handle(raw.trim()) {
            return Some((format!("cl::Kernel {var}(program, \"{kernel}\");"), false));
        }
        let (callee, args) = call(s)?;
        if let Some(var) = callee.strip_suffix(".set_args") {
            let var = self.kernel_var(var)?;
            return Some((set_args(var, &args), false));
        }
        if let Some(var) = callee.strip_suffix(".set_arg") {
            let var = self.kernel_var(var)?;
            let [index, value] = &args[..] else {
                return None;
            };
            return Some((
                format!("{var}.setArg({index}, {});", value_of(value)),
                false,
            ));
        }
        if callee.ends_with("enqueue_nd_range_kernel") {
            let var = self.kernel_var(args.get(1)?.trim())?;
            return Some((enqueue(var, &args[2..], &args)?, true));
        }
        // a kernel called: `knl(queue, global, local, *args)`, or `prg.name(…)`, made here
        let (var, declared) = match self.kernel_var(callee) {
            Some(v) => (v.to_string(), String::new()),
            None => {
                let (program, name) = callee.split_once('.')?;
                let kernel = self.kernel_of(program, name)?;
                let var = format!("{program}_{kernel}");
                let declared = format!("cl::Kernel {var}(program, \"{kernel}\"); ");
                (var, declared)
            }
        };
        let positional: Vec<String> = args.iter().filter(|a| !keyword(a)).cloned().collect();
        let values = positional.get(3..).unwrap_or_default();
        let launch = enqueue(&var, positional.get(1..)?, &args)?;
        Some((
            format!("{declared}{}{launch}", set_args(&var, values)),
            true,
        ))
    }

    /// `var`, when it holds a kernel.
    fn kernel_var<'s>(&self, var: &'s str) -> Option<&'s str> {
        self.kernels.iter().any(|(v, _)| v == var).then_some(var)
    }
}

/// A statement that is one call: the callee and the arguments.
fn call(statement: &str) -> Option<(&str, Vec<String>)> {
    let open = statement.find('(')?;
    let inner = statement[open + 1..].strip_suffix(')')?;
    let callee = statement[..open].trim();
    let is_name = !callee.is_empty()
        && callee
            .split('.')
            .all(|p| bare(p) && !p.starts_with(|c: char| c.is_ascii_digit()));
    is_name.then(|| (callee, split_top(inner)))
}

fn set_args(var: &str, values: &[String]) -> String {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| format!("{var}.setArg({i}, {}); ", value_of(v)))
        .collect()
}

/// A kernel argument as C: `np.int32(n)` is `n`, `cl.LocalMemory(b)` is `cl::Local(b)`.
fn value_of(v: &str) -> String {
    let v = v.trim();
    if let Some(c) = LOCAL_MEMORY.captures(v) {
        let bytes = c[1].trim();
        return format!(
            "cl::Local({})",
            c_expression(bytes).unwrap_or(bytes.to_string())
        );
    }
    argument(v)
}

/// The enqueue of kernel object `var` with `sizes` = (global, local, …) as PyOpenCL orders
/// them after the queue; `args` may set them by keyword instead, and `g_times_l=True` makes
/// the global size count work-groups.
fn enqueue(var: &str, sizes: &[String], args: &[String]) -> Option<String> {
    let kwarg = |name: &str| kwarg(args, name);
    let positional: Vec<&String> = sizes.iter().filter(|a| !keyword(a)).collect();
    let global = kwarg("global_work_size").or_else(|| positional.first().map(|g| g.to_string()))?;
    let local = kwarg("local_work_size").or_else(|| positional.get(1).map(|l| l.to_string()));
    let local = local.filter(|l| l != "None");
    let mut global = size_items(&global);
    if kwarg("g_times_l").as_deref() == Some("True") {
        let local = size_items(local.as_deref()?);
        global = global
            .iter()
            .zip(&local)
            .map(|(g, l)| format!("({g}) * ({l})"))
            .collect();
    }
    let nd = |d: Vec<String>| format!("cl::NDRange({})", d.join(", "));
    let local = local.map_or("cl::NullRange".to_string(), |l| nd(size_items(&l)));
    Some(format!(
        "queue.enqueueNDRangeKernel({var}, cl::NullRange, {}, {local});",
        nd(global)
    ))
}

#[cfg(test)]
mod tests {
    use super::super::shape;
    use super::super::tests::options_for;

    #[test]
    fn pyopencl_kernels_are_shaped_as_the_cpp_bindings_calls() {
        let host = r#"import pyopencl as cl
prg = cl.Program(ctx, SRC).build(options=["-DREPS=3"])
prg.vadd(queue, (n,), (256,), a_g, np.int32(n), wait_for=None)
knl = cl.Kernel(prg, "tile_sum")
knl.set_args(a_g, cl.LocalMemory(4 * 128), np.int32(n))
cl.enqueue_nd_range_kernel(queue, knl, (n,), None)
scale = prg.scale2d
scale(queue, (w, h), (16, 16), c_g, g_times_l=True)
prg.build()
queue.finish()
knl.set_arg(1, cl.LocalMemory(64))
"#;
        let shaped = shape(host);
        let lines: Vec<&str> = shaped.text.lines().map(str::trim_end).collect();
        assert_eq!(
            lines[2],
            "cl::Kernel prg_vadd(program, \"vadd\"); prg_vadd.setArg(0, a_g); prg_vadd.setArg(1, n); \
             queue.enqueueNDRangeKernel(prg_vadd, cl::NullRange, cl::NDRange(n), cl::NDRange(256));"
        );
        assert_eq!(lines[3], "cl::Kernel knl(program, \"tile_sum\");");
        assert_eq!(
            lines[4],
            "knl.setArg(0, a_g); knl.setArg(1, cl::Local(4 * 128)); knl.setArg(2, n);"
        );
        // a local size of None is the runtime's choice
        assert_eq!(
            lines[5],
            "queue.enqueueNDRangeKernel(knl, cl::NullRange, cl::NDRange(n), cl::NullRange);"
        );
        assert_eq!(lines[6], "cl::Kernel scale(program, \"scale2d\");");
        // g_times_l: the global size counts work-groups
        assert_eq!(
            lines[7],
            "scale.setArg(0, c_g); queue.enqueueNDRangeKernel(scale, cl::NullRange, \
             cl::NDRange((w) * (16), (h) * (16)), cl::NDRange(16, 16));"
        );
        // a program's methods and other objects' calls are not kernels
        assert_eq!((lines[8], lines[9]), ("", ""));
        assert_eq!(lines[10], "knl.setArg(1, cl::Local(64));");
        let launches: Vec<usize> = shaped.calls.iter().map(|(l, _)| *l).collect();
        assert_eq!(launches, [3, 6, 8]);
    }

    #[test]
    fn a_pyopencl_program_s_options_are_those_of_its_build() {
        let host = "prg = cl.Program(ctx, SRC).build(options=['-DREPS=3', '-cl-mad-enable'])\n\
                    program = cl.Program(ctx, OTHER)\n\
                    x = 1\n\
                    program.build(\"-cl-fast-relaxed-math\")\n\
                    bare = cl.Program(ctx, THIRD).build()\n";
        let built = |line, source| options_for(host, line, Some(source)).unwrap();
        let call = "PyOpenCL Program build".to_string();
        assert_eq!(
            built(1, "SRC"),
            Some((
                1,
                call.clone(),
                vec!["-DREPS=3".into(), "-cl-mad-enable".into()]
            ))
        );
        assert_eq!(
            built(2, "OTHER"),
            Some((2, call, vec!["-cl-fast-relaxed-math".into()]))
        );
        assert_eq!(built(5, "THIRD"), None);
    }
}
