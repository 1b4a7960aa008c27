//! A small safe layer over libclang 19's C API (`clang-sys`): an index, translation units
//! parsed with a program's real flags, and cursors with what the lowering asks of them.
//! Every `unsafe` block of the crate is here; a [`Cursor`] cannot outlive its unit.

// libclang's constants keep their C names.
#![allow(non_upper_case_globals)]

pub mod lower;
pub mod preamble;
pub mod prelude;

use clang_sys::*;
use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::os::raw::{c_char, c_uint, c_void};
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The oldest libclang whose C API and CUDA support the reading relies on.
const MIN_LIBCLANG_MAJOR: u32 = 19;

/// Makes libclang callable on this thread, loading it on first use.
///
/// libclang is opened when host code is first read, not linked into the executable: most
/// commands (`predict`, `count`, `check`) never read host code, and loading libclang with the
/// LLVM it links costs about 20 ms and 60 MB before `main`. `clang-sys` keeps the loaded
/// library per thread, so each thread that parses shares the one loaded here.
pub fn load() -> Result<(), String> {
    static LIBRARY: OnceLock<Result<Arc<SharedLibrary>, String>> = OnceLock::new();
    if is_loaded() {
        return Ok(());
    }
    let library = LIBRARY.get_or_init(|| {
        let library = load_manually().map_err(|e| {
            format!(
                "libclang {MIN_LIBCLANG_MAJOR} could not be loaded ({e}); `cargo xtask bootstrap` installs libclang-{MIN_LIBCLANG_MAJOR}-dev, and LIBCLANG_PATH names another folder to look in"
            )
        })?;
        Ok(Arc::new(library))
    });
    set_library(Some(library.clone()?));
    let version = unsafe { take(clang_getClangVersion()) };
    let major = version
        .split_whitespace()
        .skip_while(|w| *w != "version")
        .nth(1)
        .and_then(|v| v.split('.').next()?.parse::<u32>().ok());
    match major {
        Some(m) if m >= MIN_LIBCLANG_MAJOR => Ok(()),
        _ => {
            let path = library
                .as_ref()
                .map(|l| l.path().display().to_string())
                .unwrap_or_default();
            set_library(None);
            Err(format!(
                "the libclang found at {path} is `{version}`; kerncast needs libclang {MIN_LIBCLANG_MAJOR} or later (set LIBCLANG_PATH to its folder)"
            ))
        }
    }
}

/// Points `clang-sys` at the newest `/usr/lib/llvm-N/lib` (N at least 19) that holds a
/// libclang, unless `LIBCLANG_PATH` is already set. Without it `clang-sys` runs `llvm-config`
/// and globs every folder two levels under `/usr/lib` and `/usr/local/lib` to choose one:
/// about 50 ms of every process that reads host code. That folder is where Debian's and
/// Ubuntu's packages (and apt.llvm.org's) install it; elsewhere the full search still runs.
///
/// It sets an environment variable, so it is called before the process starts any thread.
pub fn prefer_packaged_libclang() {
    if std::env::var_os("LIBCLANG_PATH").is_some() {
        return;
    }
    for major in (MIN_LIBCLANG_MAJOR..MIN_LIBCLANG_MAJOR + 30).rev() {
        let dir = std::path::PathBuf::from(format!("/usr/lib/llvm-{major}/lib"));
        let names = [
            format!("libclang-{major}.so.{major}"),
            "libclang.so.1".into(),
        ];
        if names.iter().any(|n| dir.join(n).is_file()) {
            std::env::set_var("LIBCLANG_PATH", &dir);
            return;
        }
    }
}

/// One libclang index (its own diagnostics and caches); one per thread that parses.
pub struct Index {
    raw: CXIndex,
}

impl Index {
    /// A new index; loads libclang on first use ([`load`]).
    pub fn new() -> Result<Index, String> {
        load()?;
        // excludeDeclarationsFromPCH = 1: a unit's top-level declarations are its own, not the
        // thousands of a precompiled prelude's system headers, which the lowering passes over
        // and which clang would load from the precompiled file only to be passed over (a
        // declaration there is still reached through what refers to it).
        // displayDiagnostics = 0: diagnostics are ours to show.
        let raw = unsafe { clang_createIndex(1, 0) };
        Ok(Index { raw })
    }

    /// Parses `file` with `args` (compiler flags, without the compiler and the file).
    pub fn parse(&self, file: &Path, args: &[String]) -> Result<Unit<'_>, String> {
        // KeepGoing: a missing header or an error in one function still leaves the rest of the
        // unit readable; the diagnostics say what was wrong.
        self.parse_raw(file, args, CXTranslationUnit_KeepGoing, None)
    }

    /// [`Index::parse`] of `file`'s text with `extra` declarations after it (read as the file
    /// itself, so they are the unit's own code); the compiler's diagnostics on them are not
    /// the program's and are left out.
    pub fn parse_with(
        &self,
        file: &Path,
        args: &[String],
        extra: &str,
    ) -> Result<Unit<'_>, String> {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let first_extra_line = text.lines().count() as u32 + 2;
        let contents = format!("{text}\n{extra}\n");
        let mut unit = self.parse_raw(
            file,
            args,
            CXTranslationUnit_KeepGoing,
            Some(contents.as_str()),
        )?;
        unit.extra_from = Some((file.to_string_lossy().into_owned(), first_extra_line));
        Ok(unit)
    }

    /// Parses `text` as the file `file` alone: its `#include`s are not followed, so the unit
    /// is its own tokens (for [`Unit::tokens_spelled`]) and little else; cheap beside a whole
    /// parse. (Without its headers most names are undeclared: no spelling suggestions.)
    pub(crate) fn parse_single_file(
        &self,
        file: &Path,
        args: &[String],
        text: &str,
    ) -> Result<Unit<'_>, String> {
        let mut args = args.to_vec();
        args.push("-fno-spell-checking".into());
        self.parse_raw(
            file,
            &args,
            CXTranslationUnit_KeepGoing | CXTranslationUnit_SingleFileParse,
            Some(text),
        )
    }

    /// Parses `file` to be saved as a precompiled header ([`Unit::save`]).
    pub(crate) fn parse_for_saving(
        &self,
        file: &Path,
        args: &[String],
    ) -> Result<Unit<'_>, String> {
        self.parse_raw(file, args, CXTranslationUnit_ForSerialization, None)
    }

    fn parse_raw(
        &self,
        file: &Path,
        args: &[String],
        options: i32,
        contents: Option<&str>,
    ) -> Result<Unit<'_>, String> {
        let c_file = CString::new(file.to_string_lossy().as_bytes())
            .map_err(|_| format!("{}: path has a NUL byte", file.display()))?;
        let c_args: Vec<CString> = args
            .iter()
            .map(|a| CString::new(a.as_bytes()))
            .collect::<Result<_, _>>()
            .map_err(|_| "a compiler flag has a NUL byte".to_string())?;
        let ptrs: Vec<*const c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
        let mut unsaved: Vec<CXUnsavedFile> = contents
            .map(|c| CXUnsavedFile {
                Filename: c_file.as_ptr(),
                Contents: c.as_ptr() as *const c_char,
                Length: c.len() as _,
            })
            .into_iter()
            .collect();
        let mut tu: CXTranslationUnit = std::ptr::null_mut();
        let err = unsafe {
            clang_parseTranslationUnit2(
                self.raw,
                c_file.as_ptr(),
                ptrs.as_ptr(),
                ptrs.len() as i32,
                if unsaved.is_empty() {
                    std::ptr::null_mut()
                } else {
                    unsaved.as_mut_ptr()
                },
                unsaved.len() as c_uint,
                options,
                &mut tu,
            )
        };
        if err != CXError_Success || tu.is_null() {
            return Err(format!(
                "{}: libclang could not parse the file (error {err})",
                file.display()
            ));
        }
        Ok(Unit {
            raw: tu,
            extra_from: None,
            _index: PhantomData,
        })
    }
}

/// Expressions taking the address of the function an explicit instantiation's declaration
/// (its tokens after `template`, without the `;`) names, cast to its type: as a function, and
/// for a qualified name also as a member function. None for what is not a plain function
/// declaration (a constructor, an operator, a trailing return type).
fn instance_refs(decl: &[&str]) -> Vec<String> {
    // The parameter list: the first `(` outside template arguments.
    let mut angle = 0i32;
    let mut open = None;
    for (i, t) in decl.iter().enumerate() {
        match *t {
            "<" => angle += 1,
            ">" => angle -= 1,
            ">>" => angle -= 2,
            "(" if angle == 0 => {
                open = Some(i);
                break;
            }
            _ => {}
        }
    }
    let Some(open) = open else { return Vec::new() };
    let mut depth = 0i32;
    let mut close = None;
    for (i, t) in decl.iter().enumerate().skip(open) {
        match *t {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(close) = close else {
        return Vec::new();
    };
    let quals = &decl[close + 1..];
    if quals.contains(&"->") || quals.contains(&"=") {
        return Vec::new();
    }
    // The name: an identifier with its template arguments, after its qualifiers.
    let ident = |t: &str| {
        t.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
    };
    let mut start = open;
    let mut last_start = open;
    loop {
        let mut j = start;
        if j > 0 && matches!(decl[j - 1], ">" | ">>") {
            let mut d = 0i32;
            while j > 0 {
                j -= 1;
                match decl[j] {
                    ">" => d += 1,
                    ">>" => d += 2,
                    "<" => d -= 1,
                    _ => {}
                }
                if d == 0 {
                    break;
                }
            }
            if d != 0 {
                return Vec::new();
            }
        }
        if j == 0 || !ident(decl[j - 1]) || decl[j - 1] == "operator" {
            return Vec::new();
        }
        j -= 1;
        if start == open {
            last_start = j;
        }
        start = j;
        if j > 0 && decl[j - 1] == "::" {
            start = j - 1;
            if start > 0 && (ident(decl[start - 1]) || matches!(decl[start - 1], ">" | ">>")) {
                continue;
            }
        }
        break;
    }
    // The return type, without what specifies the function rather than its type.
    let ret: Vec<&str> = decl[..start]
        .iter()
        .copied()
        .filter(|t| {
            !matches!(
                *t,
                "inline" | "static" | "constexpr" | "__host__" | "__device__" | "__forceinline__"
            )
        })
        .collect();
    if ret.is_empty() {
        return Vec::new();
    }
    let ret = ret.join(" ");
    let name = decl[start..open].join(" ");
    let params = decl[open..=close].join(" ");
    let mut out = vec![format!("static_cast<{ret} (*){params}>(&{name})")];
    if last_start > start + 1 {
        let class = decl[start..last_start - 1].join(" ");
        out.push(format!(
            "static_cast<{ret} ({class}::*){params} {}>(&{name})",
            quals.join(" ")
        ));
    }
    out
}

/// libclang's version string (`clang version 19.1.7 …`), or why libclang could not be loaded.
pub fn clang_version() -> String {
    match load() {
        Ok(()) => unsafe { take(clang_getClangVersion()) },
        Err(e) => e,
    }
}

impl Drop for Index {
    fn drop(&mut self) {
        unsafe { clang_disposeIndex(self.raw) }
    }
}

/// A parsed translation unit.
pub struct Unit<'i> {
    raw: CXTranslationUnit,
    /// Where declarations kerncast added after the main file's text start
    /// ([`Index::parse_with`]): the file and the first line of them.
    extra_from: Option<(String, u32)>,
    _index: PhantomData<&'i Index>,
}

/// A compiler diagnostic of a unit.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub severity: Severity,
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Note,
    Warning,
    Error,
    Fatal,
}

impl<'i> Unit<'i> {
    /// The names of the kernels (`__global__` functions and function templates, with a body)
    /// among the unit's top-level declarations, in namespaces and `extern "C"` blocks, without
    /// namespace or template arguments (how profilers name them). A header the unit loads
    /// precompiled (`-include-pch`) is not among them: libclang visits the unit's own
    /// declarations only (the index excludes those of precompiled headers).
    pub fn kernel_definitions(&self) -> std::collections::BTreeSet<String> {
        let mut out = std::collections::BTreeSet::new();
        let mut top = self.cursor().children();
        while let Some(c) = top.pop() {
            let kind = c.kind();
            if kind == CXCursor_LinkageSpec || kind == CXCursor_Namespace {
                top.extend(c.children());
            } else if kind == CXCursor_FunctionDecl || kind == CXCursor_FunctionTemplate {
                let children = c.children();
                let global = children.iter().any(|a| a.kind() == CXCursor_CUDAGlobalAttr);
                if global && children.iter().any(|b| b.kind() == CXCursor_CompoundStmt) {
                    out.insert(c.spelling());
                }
            }
        }
        out
    }

    /// The files the unit read, the main file among them.
    pub fn inclusions(&self) -> Vec<String> {
        extern "C" fn visit(
            file: CXFile,
            _stack: *mut CXSourceLocation,
            _depth: c_uint,
            data: CXClientData,
        ) {
            // SAFETY: `data` is the `Vec` handed to clang_getInclusions below, alive for the call
            let out = unsafe { &mut *(data as *mut Vec<String>) };
            out.push(unsafe { take(clang_getFileName(file)) });
        }
        let mut out: Vec<String> = Vec::new();
        unsafe {
            clang_getInclusions(
                self.raw,
                visit,
                &mut out as *mut Vec<String> as CXClientData,
            )
        };
        out
    }

    /// Saves the unit as a precompiled header at `path`.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let c_path = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|_| format!("{}: path has a NUL byte", path.display()))?;
        let err = unsafe {
            clang_saveTranslationUnit(
                self.raw,
                c_path.as_ptr(),
                clang_defaultSaveOptions(self.raw),
            )
        };
        match err {
            0 => Ok(()),
            e => Err(format!(
                "{}: libclang could not save the unit ({e})",
                path.display()
            )),
        }
    }

    /// Whether clang refused the precompiled header the unit was told to load (a header it
    /// was built from changed, or a flag differs).
    pub(crate) fn refused_precompiled(&self) -> bool {
        self.diagnostics().iter().any(|d| {
            d.severity == Severity::Fatal
                && (d.message.contains("precompiled header") || d.message.contains("AST file"))
        })
    }

    pub fn cursor(&self) -> Cursor<'_> {
        Cursor::new(unsafe { clang_getTranslationUnitCursor(self.raw) })
    }

    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let n = unsafe { clang_getNumDiagnostics(self.raw) };
        (0..n)
            .map(|i| unsafe {
                let d = clang_getDiagnostic(self.raw, i);
                let severity = match clang_getDiagnosticSeverity(d) {
                    CXDiagnostic_Fatal => Severity::Fatal,
                    CXDiagnostic_Error => Severity::Error,
                    CXDiagnostic_Warning => Severity::Warning,
                    _ => Severity::Note,
                };
                let (file, line, col, _) = file_location(clang_getDiagnosticLocation(d));
                let message = take(clang_getDiagnosticSpelling(d));
                clang_disposeDiagnostic(d);
                Diagnostic {
                    severity,
                    file,
                    line,
                    col,
                    message,
                }
            })
            .filter(|d: &Diagnostic| {
                !matches!(&self.extra_from, Some((f, l)) if d.file == *f && d.line >= *l)
            })
            .collect()
    }

    /// The explicit instantiation definitions of function templates written at namespace scope
    /// in `file` (`template void f<float>(float*, int);`), as declarations that take each
    /// instance's address. clang instantiates them, but its AST (through libclang) has no
    /// node for them, so nothing in the unit names an instance another unit calls; a
    /// reference added after the file ([`Index::parse_with`]) makes the instance's body
    /// reachable. A name with qualifiers gets a second reference as a member function: the one
    /// of the two that does not compile is left out with its diagnostics. Empty when there are
    /// none.
    pub fn explicit_instance_refs(&self, file: &Path) -> String {
        let size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0) as u32;
        let name = file.to_string_lossy();
        let toks = self.tokens_spelled(&name, 0, size);
        let mut out = String::new();
        let mut n = 0;
        for (i, (t, offset)) in toks.iter().enumerate() {
            if t != "template" {
                continue;
            }
            let prev = if i > 0 { toks[i - 1].0.as_str() } else { "" };
            let next = toks.get(i + 1).map(|t| t.0.as_str()).unwrap_or("");
            // `template<…>` declares a template or a specialization; `extern template` only
            // declares an instance; `x.template f<…>`, `T::template X<…>` name a member.
            if matches!(next, "<" | "class" | "struct" | "union")
                || matches!(prev, "extern" | "." | "->" | "::")
            {
                continue;
            }
            // Only at namespace scope: inside a function the keyword is something else.
            let at = self.cursor_at(&name, *offset);
            if !matches!(
                at.map(|c| c.kind()),
                None | Some(CXCursor_Namespace | CXCursor_LinkageSpec | CXCursor_NoDeclFound)
                    | Some(CXCursor_TranslationUnit)
            ) {
                continue;
            }
            let decl: Vec<&str> = toks[i + 1..]
                .iter()
                .map(|t| t.0.as_str())
                .take_while(|t| *t != ";" && *t != "{")
                .collect();
            // A kernel's instance is device code: no host body to reach.
            if decl.contains(&"__global__") {
                continue;
            }
            for r in instance_refs(&decl) {
                out.push_str(&format!(
                    "static const auto __kerncast_instance_{n} = {r};\n"
                ));
                n += 1;
            }
        }
        out
    }

    /// The most specific cursor at byte `offset` of `file`, when there is one.
    fn cursor_at(&self, file: &str, offset: u32) -> Option<Cursor<'_>> {
        let name = CString::new(file.as_bytes()).ok()?;
        unsafe {
            let f = clang_getFile(self.raw, name.as_ptr());
            if f.is_null() {
                return None;
            }
            let c = clang_getCursor(self.raw, clang_getLocationForOffset(self.raw, f, offset));
            (clang_Cursor_isNull(c) == 0).then(|| Cursor::new(c))
        }
    }

    /// The spellings of the tokens from `from` (inclusive) to `to` (exclusive), with their
    /// byte offsets.
    pub fn tokens_between(&self, from: &Cursor<'_>, to: &Cursor<'_>) -> Vec<(String, u32)> {
        unsafe {
            let start = clang_getRangeStart(clang_getCursorExtent(from.raw));
            let end = clang_getRangeStart(clang_getCursorExtent(to.raw));
            self.tokens_in(clang_getRange(start, end))
        }
    }

    /// The tokens of `file` from byte `from` to byte `to`, as written there: for code a
    /// macro expands, the macro definition's own tokens. Comments are left out (libclang's
    /// tokenizer keeps them), as in every token list here.
    pub fn tokens_spelled(&self, file: &str, from: u32, to: u32) -> Vec<(String, u32)> {
        let Ok(name) = CString::new(file.as_bytes()) else {
            return Vec::new();
        };
        unsafe {
            let f = clang_getFile(self.raw, name.as_ptr());
            if f.is_null() {
                return Vec::new();
            }
            let start = clang_getLocationForOffset(self.raw, f, from);
            let end = clang_getLocationForOffset(self.raw, f, to);
            let mut tokens: *mut CXToken = std::ptr::null_mut();
            let mut n: c_uint = 0;
            clang_tokenize(self.raw, clang_getRange(start, end), &mut tokens, &mut n);
            if tokens.is_null() {
                return Vec::new();
            }
            let out = (0..n as usize)
                .map(|i| *tokens.add(i))
                .filter(|t| clang_getTokenKind(*t) != CXToken_Comment)
                .map(|t| {
                    let spelling = take(clang_getTokenSpelling(self.raw, t));
                    let (_, offset) =
                        spelling_location(clang_getRangeStart(clang_getTokenExtent(self.raw, t)));
                    (spelling, offset)
                })
                .collect();
            clang_disposeTokens(self.raw, tokens, n);
            out
        }
    }

    /// The tokens of a cursor's whole extent.
    pub fn tokens_of(&self, c: &Cursor<'_>) -> Vec<(String, u32)> {
        unsafe { self.tokens_in(clang_getCursorExtent(c.raw)) }
    }

    /// The tokens of a range, without its comments: the token before `{` in `else // why\n{`
    /// is `else`.
    unsafe fn tokens_in(&self, range: CXSourceRange) -> Vec<(String, u32)> {
        let mut tokens: *mut CXToken = std::ptr::null_mut();
        let mut n: c_uint = 0;
        clang_tokenize(self.raw, range, &mut tokens, &mut n);
        if tokens.is_null() {
            return Vec::new();
        }
        let out = (0..n as usize)
            .map(|i| *tokens.add(i))
            .filter(|t| clang_getTokenKind(*t) != CXToken_Comment)
            .map(|t| {
                let spelling = take(clang_getTokenSpelling(self.raw, t));
                let (_, _, _, offset) =
                    file_location(clang_getRangeStart(clang_getTokenExtent(self.raw, t)));
                (spelling, offset)
            })
            .collect();
        clang_disposeTokens(self.raw, tokens, n);
        out
    }
}

/// A string literal token of a file: its spelling as written (prefix, quotes, escapes and
/// line continuations included), and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiteralToken {
    pub spelling: String,
    pub line: u32,
    pub col: u32,
    /// Whether the token right before it is a string literal too (C joins the two).
    pub joined: bool,
}

// Decoding sits with the tokens: the lowering reads literals' values, and the embedded
// programs their bytes with lines, and both come through here.
impl LiteralToken {
    /// A literal token's bytes as the compiler decodes them, each with its host line.
    pub(crate) fn decode(&self) -> Vec<(u8, u32)> {
        let s = self.spelling.as_bytes();
        let Some(quote) = s.iter().position(|c| *c == b'"') else {
            return Vec::new();
        };
        let raw = s[..quote].ends_with(b"R");
        let mut line = self.line;
        let mut out = Vec::new();
        if raw {
            // R"delim( … )delim"
            let Some(open) = s[quote..].iter().position(|c| *c == b'(') else {
                return out;
            };
            let delim = &s[quote + 1..quote + open];
            let body_start = quote + open + 1;
            let end = s.len().saturating_sub(delim.len() + 2);
            for (i, c) in s.iter().enumerate() {
                if i >= body_start && i < end {
                    out.push((*c, line));
                }
                if *c == b'\n' {
                    line += 1;
                }
            }
            return out;
        }
        // Up to the closing quote, or to the end where the spelling has none: libclang gives a
        // spelling as a C string, so a literal holding a NUL byte arrives cut after its opening quote.
        let close = match s.last() {
            Some(b'"') if s.len() > quote + 1 => s.len() - 1,
            _ => s.len(),
        };
        let body = &s[quote + 1..close];
        let mut i = 0;
        while i < body.len() {
            let c = body[i];
            if c == b'\n' {
                line += 1;
                i += 1;
                continue;
            }
            if c != b'\\' {
                out.push((c, line));
                i += 1;
                continue;
            }
            let Some(&e) = body.get(i + 1) else { break };
            i += 2;
            let byte = match e {
                b'\n' => {
                    // a line continuation: neither character is in the string
                    line += 1;
                    continue;
                }
                b'n' => b'\n',
                b't' => b'\t',
                b'r' => b'\r',
                b'a' => 0x07,
                b'b' => 0x08,
                b'f' => 0x0c,
                b'v' => 0x0b,
                b'x' => {
                    let digits = body[i..]
                        .iter()
                        .take_while(|d| d.is_ascii_hexdigit())
                        .count();
                    let v = std::str::from_utf8(&body[i..i + digits])
                        .ok()
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                        .unwrap_or(0);
                    i += digits;
                    v as u8
                }
                b'0'..=b'7' => {
                    let digits = 1 + body[i..]
                        .iter()
                        .take(2)
                        .take_while(|d| (b'0'..=b'7').contains(*d))
                        .count();
                    let start = i - 1;
                    let v = std::str::from_utf8(&body[start..start + digits])
                        .ok()
                        .and_then(|o| u32::from_str_radix(o, 8).ok())
                        .unwrap_or(0);
                    i = start + digits;
                    v as u8
                }
                other => other,
            };
            out.push((byte, line));
        }
        out
    }
}

/// The value of a string literal written as the tokens `spellings` (adjacent ones joined), as
/// the compiler decodes it.
pub(crate) fn decode_literal<'a>(spellings: impl IntoIterator<Item = &'a str>) -> String {
    let bytes: Vec<u8> = spellings
        .into_iter()
        .flat_map(|s| {
            LiteralToken {
                spelling: s.to_string(),
                line: 1,
                col: 1,
                joined: false,
            }
            .decode()
        })
        .map(|(b, _)| b)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

impl Unit<'_> {
    /// The string literal tokens of `file` (one of the unit's own files), in order.
    pub fn string_literals(&self, file: &Path) -> Vec<LiteralToken> {
        let Ok(c_file) = CString::new(file.to_string_lossy().as_bytes()) else {
            return Vec::new();
        };
        let size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0) as u32;
        let mut out: Vec<LiteralToken> = Vec::new();
        unsafe {
            let f = clang_getFile(self.raw, c_file.as_ptr());
            if f.is_null() {
                return out;
            }
            let start = clang_getLocationForOffset(self.raw, f, 0);
            let end = clang_getLocationForOffset(self.raw, f, size);
            let mut tokens: *mut CXToken = std::ptr::null_mut();
            let mut n: c_uint = 0;
            clang_tokenize(self.raw, clang_getRange(start, end), &mut tokens, &mut n);
            if tokens.is_null() {
                return out;
            }
            let mut previous_literal = false;
            for i in 0..n as usize {
                let t = *tokens.add(i);
                let spelling = take(clang_getTokenSpelling(self.raw, t));
                let literal =
                    clang_getTokenKind(t) == CXToken_Literal && is_string_token(&spelling);
                if literal {
                    let (_, line, col, _) =
                        file_location(clang_getRangeStart(clang_getTokenExtent(self.raw, t)));
                    out.push(LiteralToken {
                        spelling,
                        line,
                        col,
                        joined: previous_literal,
                    });
                }
                previous_literal = literal;
            }
            clang_disposeTokens(self.raw, tokens, n);
        }
        out
    }
}

/// Whether a literal token's spelling is a string's (`"…"`, `u8"…"`, `R"(…)"`), not a
/// character's or a number's.
fn is_string_token(spelling: &str) -> bool {
    let body = spelling.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
    body.starts_with('"')
}

impl Drop for Unit<'_> {
    fn drop(&mut self) {
        unsafe { clang_disposeTranslationUnit(self.raw) }
    }
}

/// A node of a unit's AST.
#[derive(Clone, Copy)]
pub struct Cursor<'u> {
    raw: CXCursor,
    _unit: PhantomData<&'u ()>,
}

/// Where a cursor is: file, line, column (1-based) and byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub offset: u32,
}

/// A constant clang's evaluator computed.
#[derive(Clone, Debug, PartialEq)]
pub enum Evaluated {
    Int(i128),
    Float(f64),
    Str(String),
}

unsafe fn take(s: CXString) -> String {
    let p = clang_getCString(s);
    let out = if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    };
    clang_disposeString(s);
    out
}

unsafe fn file_location(loc: CXSourceLocation) -> (String, u32, u32, u32) {
    let mut file: CXFile = std::ptr::null_mut();
    let (mut line, mut col, mut offset) = (0, 0, 0);
    clang_getExpansionLocation(loc, &mut file, &mut line, &mut col, &mut offset);
    let name = if file.is_null() {
        String::new()
    } else {
        take(clang_getFileName(file))
    };
    (name, line, col, offset)
}

/// Where the text at `loc` is written: in a macro's definition for code the macro expands.
unsafe fn spelling_location(loc: CXSourceLocation) -> (String, u32) {
    let mut file: CXFile = std::ptr::null_mut();
    let (mut line, mut col, mut offset) = (0, 0, 0);
    clang_getSpellingLocation(loc, &mut file, &mut line, &mut col, &mut offset);
    let name = if file.is_null() {
        String::new()
    } else {
        take(clang_getFileName(file))
    };
    (name, offset)
}

extern "C" fn collect_child(
    child: CXCursor,
    _parent: CXCursor,
    data: *mut c_void,
) -> CXChildVisitResult {
    // SAFETY: `data` is the `Vec<CXCursor>` that `children` passes.
    let out = unsafe { &mut *(data as *mut Vec<CXCursor>) };
    out.push(child);
    CXChildVisit_Continue
}

extern "C" fn collect_field(field: CXCursor, data: *mut c_void) -> CXVisitorResult {
    // SAFETY: `data` is the `Vec<CXCursor>` that `Type::fields` passes.
    let out = unsafe { &mut *(data as *mut Vec<CXCursor>) };
    out.push(field);
    CXVisit_Continue
}

impl<'u> Cursor<'u> {
    fn new(raw: CXCursor) -> Cursor<'u> {
        Cursor {
            raw,
            _unit: PhantomData,
        }
    }

    pub fn is_null(&self) -> bool {
        unsafe { clang_Cursor_isNull(self.raw) != 0 }
    }

    /// A field's byte offset in its record as clang lays it out; `None` for a bit-field that
    /// does not start a byte, or where clang cannot say (a dependent type).
    pub fn field_offset(&self) -> Option<u64> {
        let bits = unsafe { clang_Cursor_getOffsetOfField(self.raw) };
        (bits >= 0 && bits % 8 == 0).then_some(bits as u64 / 8)
    }

    fn non_null(raw: CXCursor) -> Option<Cursor<'u>> {
        let c = Cursor::new(raw);
        (!c.is_null()).then_some(c)
    }

    pub fn kind(&self) -> CXCursorKind {
        unsafe { clang_getCursorKind(self.raw) }
    }

    pub fn spelling(&self) -> String {
        unsafe { take(clang_getCursorSpelling(self.raw)) }
    }

    pub fn children(&self) -> Vec<Cursor<'u>> {
        let mut raw: Vec<CXCursor> = Vec::new();
        unsafe {
            clang_visitChildren(
                self.raw,
                collect_child,
                &mut raw as *mut Vec<CXCursor> as *mut c_void,
            );
        }
        raw.into_iter().map(Cursor::new).collect()
    }

    pub fn referenced(&self) -> Option<Cursor<'u>> {
        Cursor::non_null(unsafe { clang_getCursorReferenced(self.raw) })
    }

    pub fn definition(&self) -> Option<Cursor<'u>> {
        Cursor::non_null(unsafe { clang_getCursorDefinition(self.raw) })
    }

    pub fn semantic_parent(&self) -> Option<Cursor<'u>> {
        Cursor::non_null(unsafe { clang_getCursorSemanticParent(self.raw) })
    }

    /// A hash of the cursor, equal for two cursors of the same declaration in a unit.
    pub fn hash(&self) -> u32 {
        unsafe { clang_hashCursor(self.raw) }
    }

    pub fn usr(&self) -> String {
        unsafe { take(clang_getCursorUSR(self.raw)) }
    }

    pub fn mangling(&self) -> String {
        unsafe { take(clang_Cursor_getMangling(self.raw)) }
    }

    pub fn location(&self) -> Location {
        let (file, line, col, offset) = unsafe { file_location(clang_getCursorLocation(self.raw)) };
        Location {
            file,
            line,
            col,
            offset,
        }
    }

    /// The file and the (line, column) where the cursor's extent starts and ends, as expanded.
    pub fn extent(&self) -> (String, (u32, u32), (u32, u32)) {
        let range = unsafe { clang_getCursorExtent(self.raw) };
        let (file, l0, c0, _) = unsafe { file_location(clang_getRangeStart(range)) };
        let (_, l1, c1, _) = unsafe { file_location(clang_getRangeEnd(range)) };
        (file, (l0, c0), (l1, c1))
    }

    /// The byte offset where the cursor's extent starts.
    pub fn start_offset(&self) -> u32 {
        unsafe { file_location(clang_getRangeStart(clang_getCursorExtent(self.raw))).3 }
    }

    /// Where the cursor's extent starts as written (file, byte offset): inside a macro's
    /// definition for code the macro expands.
    pub fn spelled_start(&self) -> (String, u32) {
        unsafe { spelling_location(clang_getRangeStart(clang_getCursorExtent(self.raw))) }
    }

    /// Whether the cursor is code a macro expands (its written and expanded places differ).
    pub fn in_macro(&self) -> bool {
        let (file, offset) = self.spelled_start();
        let expanded =
            unsafe { file_location(clang_getRangeStart(clang_getCursorExtent(self.raw))) };
        file != expanded.0 || offset != expanded.3
    }

    pub fn in_system_header(&self) -> bool {
        unsafe { clang_Location_isInSystemHeader(clang_getCursorLocation(self.raw)) != 0 }
    }

    pub fn ty(&self) -> Type<'u> {
        Type::new(unsafe { clang_getCursorType(self.raw) })
    }

    pub fn result_type(&self) -> Type<'u> {
        Type::new(unsafe { clang_getCursorResultType(self.raw) })
    }

    pub fn binary_operator(&self) -> CXBinaryOperatorKind {
        unsafe { clang_getCursorBinaryOperatorKind(self.raw) }
    }

    pub fn unary_operator(&self) -> CXUnaryOperatorKind {
        unsafe { clang_getCursorUnaryOperatorKind(self.raw) }
    }

    /// The arguments of a call or the parameters of a function declaration.
    pub fn arguments(&self) -> Option<Vec<Cursor<'u>>> {
        let n = unsafe { clang_Cursor_getNumArguments(self.raw) };
        (n >= 0).then(|| {
            (0..n as u32)
                .map(|i| Cursor::new(unsafe { clang_Cursor_getArgument(self.raw, i) }))
                .collect()
        })
    }

    pub fn var_initializer(&self) -> Option<Cursor<'u>> {
        Cursor::non_null(unsafe { clang_Cursor_getVarDeclInitializer(self.raw) })
    }

    pub fn is_static_storage(&self) -> bool {
        unsafe { clang_Cursor_getStorageClass(self.raw) == CX_SC_Static }
    }

    /// Declared `extern` (`extern char *optarg;`).
    pub fn is_extern(&self) -> bool {
        unsafe { clang_Cursor_getStorageClass(self.raw) == CX_SC_Extern }
    }

    pub fn has_global_storage(&self) -> bool {
        unsafe { clang_Cursor_hasVarDeclGlobalStorage(self.raw) == 1 }
    }

    pub fn is_const_method(&self) -> bool {
        unsafe { clang_CXXMethod_isConst(self.raw) != 0 }
    }

    pub fn is_static_method(&self) -> bool {
        unsafe { clang_CXXMethod_isStatic(self.raw) != 0 }
    }

    /// Whether a function is a copy or move constructor or assignment that is defaulted
    /// (implicitly, or `= default`): it copies the object member by member.
    pub fn is_defaulted_copy_or_move(&self) -> bool {
        unsafe {
            clang_CXXMethod_isDefaulted(self.raw) != 0
                && (clang_CXXConstructor_isCopyConstructor(self.raw) != 0
                    || clang_CXXConstructor_isMoveConstructor(self.raw) != 0
                    || clang_CXXMethod_isCopyAssignmentOperator(self.raw) != 0
                    || clang_CXXMethod_isMoveAssignmentOperator(self.raw) != 0)
        }
    }

    /// The virtual methods a method overrides (those of its direct bases).
    pub fn overridden(&self) -> Vec<Cursor<'u>> {
        let mut out = Vec::new();
        unsafe {
            let mut list: *mut CXCursor = std::ptr::null_mut();
            let mut n: c_uint = 0;
            clang_getOverriddenCursors(self.raw, &mut list, &mut n);
            if !list.is_null() {
                for i in 0..n as usize {
                    out.push(Cursor::new(*list.add(i)));
                }
                clang_disposeOverriddenCursors(list);
            }
        }
        out
    }

    pub fn enum_value(&self) -> i64 {
        unsafe { clang_getEnumConstantDeclValue(self.raw) }
    }

    /// clang's constant evaluation of an expression, where it has a value.
    pub fn evaluate(&self) -> Option<Evaluated> {
        unsafe {
            let r = clang_Cursor_Evaluate(self.raw);
            if r.is_null() {
                return None;
            }
            let out = match clang_EvalResult_getKind(r) {
                CXEval_Int => Some(if clang_EvalResult_isUnsignedInt(r) != 0 {
                    Evaluated::Int(clang_EvalResult_getAsUnsigned(r) as i128)
                } else {
                    Evaluated::Int(clang_EvalResult_getAsLongLong(r) as i128)
                }),
                CXEval_Float => Some(Evaluated::Float(clang_EvalResult_getAsDouble(r))),
                CXEval_StrLiteral => {
                    let p = clang_EvalResult_getAsStr(r);
                    (!p.is_null())
                        .then(|| Evaluated::Str(CStr::from_ptr(p).to_string_lossy().into_owned()))
                }
                _ => None,
            };
            clang_EvalResult_dispose(r);
            out
        }
    }

    /// Whether a function declaration carries the given CUDA attribute cursor kind
    /// (`CXCursor_CUDAGlobalAttr`, `CXCursor_CUDADeviceAttr`, `CXCursor_CUDAHostAttr`).
    pub fn has_attr(&self, attr: CXCursorKind) -> bool {
        self.children().iter().any(|c| c.kind() == attr)
    }

    /// The name with its enclosing namespaces and classes (`fp32::axpy`, `std::vector::size`).
    pub fn qualified_name(&self) -> String {
        let mut parts = vec![self.spelling()];
        let mut p = self.semantic_parent();
        while let Some(c) = p {
            match c.kind() {
                CXCursor_Namespace
                | CXCursor_StructDecl
                | CXCursor_ClassDecl
                | CXCursor_ClassTemplate
                | CXCursor_UnionDecl
                | CXCursor_ClassTemplatePartialSpecialization => {
                    let s = c.spelling();
                    if !s.is_empty() {
                        parts.push(s);
                    }
                }
                _ => break,
            }
            p = c.semantic_parent();
        }
        parts.reverse();
        parts.join("::")
    }

    pub fn raw_equal(&self, other: &Cursor<'_>) -> bool {
        unsafe { clang_equalCursors(self.raw, other.raw) != 0 }
    }
}

/// A C/C++ type of a cursor.
#[derive(Clone, Copy)]
pub struct Type<'u> {
    raw: CXType,
    _unit: PhantomData<&'u ()>,
}

impl<'u> Type<'u> {
    fn new(raw: CXType) -> Type<'u> {
        Type {
            raw,
            _unit: PhantomData,
        }
    }

    pub fn kind(&self) -> CXTypeKind {
        self.raw.kind
    }

    /// References seen through, typedefs and `auto` resolved.
    pub fn canonical(&self) -> Type<'u> {
        if self.raw.kind == CXType_Invalid {
            return *self;
        }
        unsafe {
            let t = match self.raw.kind {
                CXType_LValueReference | CXType_RValueReference => clang_getPointeeType(self.raw),
                _ => self.raw,
            };
            Type::new(clang_getCanonicalType(t))
        }
    }

    pub fn spelling(&self) -> String {
        unsafe { take(clang_getTypeSpelling(self.raw)) }
    }

    pub fn size_of(&self) -> Option<u64> {
        let s = unsafe { clang_Type_getSizeOf(self.raw) };
        (s >= 0).then_some(s as u64)
    }

    /// Whether what a reference or pointer type refers to is `const`.
    pub fn canonical_pointee_const(&self) -> bool {
        unsafe { clang_isConstQualifiedType(clang_getPointeeType(self.raw)) != 0 }
    }

    pub fn is_const(&self) -> bool {
        unsafe { clang_isConstQualifiedType(self.raw) != 0 }
    }

    pub fn pointee(&self) -> Type<'u> {
        Type::new(unsafe { clang_getPointeeType(self.raw) })
    }

    pub fn element(&self) -> Type<'u> {
        Type::new(unsafe { clang_getArrayElementType(self.raw) })
    }

    pub fn array_size(&self) -> Option<u64> {
        let s = unsafe { clang_getArraySize(self.raw) };
        (s >= 0).then_some(s as u64)
    }

    pub fn declaration(&self) -> Option<Cursor<'u>> {
        Cursor::non_null(unsafe { clang_getTypeDeclaration(self.raw) })
    }

    /// A record type's fields, in order; unlike a declaration's children, also those of a
    /// template's implicit instance (`std::array<int, 2>`).
    pub fn fields(&self) -> Vec<Cursor<'u>> {
        let mut raw: Vec<CXCursor> = Vec::new();
        unsafe {
            clang_Type_visitFields(
                self.raw,
                collect_field,
                &mut raw as *mut Vec<CXCursor> as *mut c_void,
            );
        }
        raw.into_iter().map(Cursor::new).collect()
    }

    pub fn enum_integer(&self) -> Option<Type<'u>> {
        self.declaration()
            .map(|d| Type::new(unsafe { clang_getEnumDeclIntegerType(d.raw) }))
    }
}
