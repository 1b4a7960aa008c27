//! The Python interpreter's state and the types its parts share. It is apart from the
//! evaluator and the library models (`impl Interp` blocks and functions of the interpreter, in
//! files of their own) so that each can import it without importing the others.

use super::script::Script;
use super::value::{Origin, Scope, Val};
use crate::ast::Span;
use crate::clang::lower::ProgramAst;
use crate::heap::Registry;
use crate::interp::launches::Recorder;
use crate::output::EmbeddedSource;
use crate::program::Options;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

/// Why interpretation of a path stopped.
#[derive(Debug)]
pub enum Halt {
    /// `sys.exit()`, `exit()`, an exception the script raises (`raise`), or one Python would
    /// raise (the reason).
    Exit(String),
    /// A work budget ran out: which, and where.
    Budget(String),
}

pub enum Flow<'a> {
    Normal,
    Break,
    Continue,
    Return(Val<'a>),
}

pub type Exec<T> = Result<T, Halt>;

/// A call's arguments: positional, then keywords.
#[derive(Default, Clone)]
pub struct Args<'a> {
    pub pos: Vec<Val<'a>>,
    pub kw: Vec<(Rc<str>, Val<'a>)>,
}

impl<'a> Args<'a> {
    pub fn get(&self, i: usize, name: &str) -> Option<Val<'a>> {
        self.kw
            .iter()
            .find(|(k, _)| &**k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| self.pos.get(i).cloned())
    }

    pub fn kw(&self, name: &str) -> Option<Val<'a>> {
        self.kw
            .iter()
            .find(|(k, _)| &**k == name)
            .map(|(_, v)| v.clone())
    }
}

/// The state of one reading of a program's scripts.
pub struct Interp<'a> {
    pub scripts: &'a [Script],
    /// Each module's globals, once it has run (or while it runs).
    pub modules: Vec<Option<Rc<Scope<'a>>>>,
    pub opts: &'a Options,
    /// `sys.argv` of the script being run, and the list the script sees it as.
    pub argv: Vec<String>,
    pub argv_list: Option<Rc<RefCell<Vec<Val<'a>>>>>,
    /// Whether the command line was given.
    pub args_given: bool,
    pub steps: u64,
    pub recorder: Recorder,
    pub guards: Vec<Rc<str>>,
    pub stack: Vec<(Arc<str>, Span)>,
    pub assumptions: BTreeMap<String, String>,
    /// The given values (`Options::params`) the script read.
    pub used: std::collections::BTreeSet<String>,
    pub embedded: Vec<EmbeddedSource>,
    pub notes: Vec<String>,
    pub diagnostics: Vec<String>,
    /// Where string literals long enough to be programs come from, by the address of their
    /// text (the `Rc` is kept so the address stays theirs).
    pub origins: HashMap<usize, (Rc<str>, Origin)>,
    /// The extensions a `setup.py` builds, by the name Python imports them as.
    pub setup_extensions: BTreeMap<String, (Vec<Rc<str>>, std::path::PathBuf)>,
    pub extensions: Builder,
    /// Above zero while both sides of an undecided condition run.
    pub uncertain: usize,
    /// The module being run (for spans).
    pub module: usize,
    pub(super) scope: Vec<Rc<Scope<'a>>>,
    /// The lists, dicts, objects, classes and scopes made: swept when the interpreter is
    /// dropped. Last, so that it is dropped last: its sweep then finds alive only what
    /// cycles hold, and what it counts still alive after is a leak ([`crate::heap`]).
    pub heap: Registry<'a>,
}

/// The extensions built so far: each its own program (two extensions may define the same
/// function).
#[derive(Default)]
pub struct Builder {
    pub built: Vec<Built>,
    /// The program's files read as extension sources (not read again on their own).
    pub files: Vec<PathBuf>,
}

pub struct Built {
    pub ast: ProgramAst,
    /// Temporary source files and where their lines are in the script.
    pub remap: Vec<Remap>,
}

/// A temporary file holding a string of the script.
#[derive(Clone, Debug)]
pub struct Remap {
    pub temp: String,
    /// The script, and the line of the string's first character of text; or, for a string
    /// the script computes, a name for it.
    pub shown: String,
    pub first_line: Option<u32>,
}
