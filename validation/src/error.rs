//! Errors of the validation crate: every one names the file (and line) it comes from.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("data set not found: {0} (set KERNCAST_GPUPTXMODEL_DATA or put it at ../shared/data/gpuptxmodel relative to the workspace root)")]
    DataMissing(PathBuf),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {msg}")]
    Parse {
        path: PathBuf,
        line: usize,
        msg: String,
    },
    #[error("{0}")]
    Inconsistent(String),
    #[error("model: {0}")]
    Model(String),
    #[error("candle: {0}")]
    Candle(#[from] candle_core::Error),
    #[error("plot {path}: {msg}")]
    Plot { path: PathBuf, msg: String },
}

pub type Result<T> = std::result::Result<T, Error>;

pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}
