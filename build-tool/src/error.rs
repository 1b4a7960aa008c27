//! The library's error: what went wrong, by kind, so a caller (the CLI, `cargo kerncast`, a
//! `build.rs`, a test) can tell a bad flag from a kernel that does not compile without reading
//! the text. Each message is complete on its own: it names the file and line, the kernel or the
//! flag. Rendering (colours, carets, exit codes) is the front end's: the CLI draws these with
//! miette, which reads the spans that [`Error::Ptx`] and [`Error::Config`] carry.

use crate::config::ConfigError;
use miette::{NamedSource, SourceSpan};

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum Error {
    /// A command-line flag or its value (`--grid`, `--param`, `--clocks`, `--folds`).
    #[error("{0}")]
    Flag(String),
    /// An input that cannot be read or is not what it should be: a missing file, a CSV or JSON
    /// that does not parse, a written file that would not read back.
    #[error("{0}")]
    Input(String),
    /// Malformed PTX, with its file, line and column (and the line, under a caret).
    #[error(transparent)]
    #[diagnostic(transparent)]
    Ptx(Box<PtxSyntaxError>),
    /// A `kerncast.toml` that does not hold, pointed into the TOML.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Config(Box<ConfigError>),
    /// A source that does not lower to PTX: the compiler's own message.
    #[error("{0}")]
    Lower(String),
    /// No kernel, workload or launch for what was asked, or one that does not resolve.
    #[error("{0}")]
    Workload(String),
    /// An unknown device or model, or a device profile that cannot be used.
    #[error("{0}")]
    Device(String),
    /// Counting, emulating, a model or a fit failed on what it was given.
    #[error("{0}")]
    Analysis(String),
    /// Writing an output failed.
    #[error("{0}")]
    Output(String),
}

/// Malformed PTX, rendered with the file name and a caret under the offending token.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{file}:{line}:{col}: {message}")]
#[diagnostic(code(kerncast::ptx::parse))]
pub struct PtxSyntaxError {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
    #[source_code]
    pub src: NamedSource<String>,
    #[label("{message}")]
    pub at: SourceSpan,
}

/// Renders a diagnostic the way the CLI prints it, without colours (for tests and logs).
pub fn render(r: &dyn miette::Diagnostic) -> String {
    let mut s = String::new();
    let h = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(100);
    match h.render_report(&mut s, r) {
        Ok(()) => s,
        Err(_) => format!("{r:?}"),
    }
}

/// The library's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The error for a failure the pipeline reports at `stage` (`report::Failure::stage`).
    pub fn at_stage(stage: &str, message: String) -> Error {
        match stage {
            "lower" => Error::Lower(message),
            "parse" | "host" | "setup" => Error::Input(message),
            "annotation" => Error::Workload(message),
            "param" => Error::Flag(message),
            "device" => Error::Device(message),
            _ => Error::Analysis(message),
        }
    }
}

impl From<PtxSyntaxError> for Error {
    fn from(e: PtxSyntaxError) -> Self {
        Error::Ptx(Box::new(e))
    }
}

impl From<Box<ConfigError>> for Error {
    fn from(e: Box<ConfigError>) -> Self {
        Error::Config(e)
    }
}
