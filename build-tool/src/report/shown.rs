//! What the Markdown and HTML reports share in how they show a report to a person: paths
//! relative to the project's folder, and notes that several entries share gathered once.
//!
//! Why at render time: the JSON keeps every path as given (baselines key on them), while a
//! report read in a browser or a CI summary should not carry the absolute path of the machine's
//! checkout (a device profile's file in a model's error, a source given with its full path) in
//! every section.

use super::{KernelReport, Report};
use std::path::{Component, Path, PathBuf};

/// `root` made absolute against the working directory, with `.` and `..` resolved in words.
pub fn absolute(root: &Path) -> Option<PathBuf> {
    let abs = if root.is_absolute() {
        root.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(root)
    };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}

/// The deepest folder that holds every one of `paths` (absolute ones; a file stands for its
/// folder): the project root of a run given files and folders.
pub fn common_folder(paths: &[PathBuf]) -> Option<PathBuf> {
    let mut common: Option<PathBuf> = None;
    for p in paths {
        let p = absolute(p)?;
        let folder = if p.is_file() {
            p.parent().map(Path::to_path_buf).unwrap_or(p)
        } else {
            p
        };
        common = Some(match common {
            None => folder,
            Some(c) => c
                .components()
                .zip(folder.components())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a.as_os_str())
                .collect(),
        });
    }
    common
}

/// A character that can be part of a path in a message.
fn in_path(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '~' | '/' | '+' | '@' | '%')
}

/// Whether a `/` after `before` can start a path: not inside a word or path, and not the `/`
/// of an HTML end tag (`</code>`).
fn starts_path(before: Option<char>) -> bool {
    !before.is_some_and(|b| in_path(b) || b == '<')
}

/// `text` with every absolute path under a folder it shares with `root` written relative to
/// `root` (`/ws/devices/a.toml` with root `/ws/examples` reads `../devices/a.toml`); a path
/// that shares nothing with it (`/usr/bin/nvcc`) stays as it is.
pub fn relative_paths(text: &str, root: Option<&Path>) -> String {
    let Some(root) = root.and_then(|r| r.to_str()).filter(|r| r.starts_with('/')) else {
        return text.to_string();
    };
    let names: Vec<&str> = root.split('/').filter(|c| !c.is_empty()).collect();
    // (prefix, what it becomes), longest first: `/ws/examples/` -> ``, `/ws/` -> `../`
    let prefixes: Vec<(String, String)> = (1..=names.len())
        .rev()
        .map(|k| {
            (
                format!("/{}/", names[..k].join("/")),
                "../".repeat(names.len() - k),
            )
        })
        .collect();
    let whole = format!("/{}", names.join("/"));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut before: Option<char> = None;
    while let Some(c) = rest.chars().next() {
        if c == '/' && starts_path(before) {
            // the root itself, then the longest folder of it that the path is under
            let after = rest.get(whole.len()..).and_then(|a| a.chars().next());
            if !names.is_empty() && rest.starts_with(&whole) && !after.is_some_and(in_path) {
                out.push('.');
                rest = &rest[whole.len()..];
                before = Some('.');
                continue;
            }
            if let Some((p, to)) = prefixes.iter().find(|(p, _)| rest.starts_with(p.as_str())) {
                out.push_str(to);
                rest = &rest[p.len()..];
                before = Some('/');
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
        before = Some(c);
    }
    out
}

/// A note several entries share, with the entries (indices into the report's kernels) it
/// applies to.
pub struct Shared {
    pub text: String,
    pub entries: Vec<usize>,
}

/// The notes of a report that more than one entry has, each once, in the order they first
/// appear: an entry's own notes, and a model's error at the default clocks (a device profile
/// that lacks what a model needs fails alike for every kernel on it).
pub struct SharedNotes {
    pub notes: Vec<Shared>,
}

/// How a model's error reads as a note.
fn model_note(model: &str, error: &str) -> String {
    format!("the {model} model could not predict: {error}")
}

impl SharedNotes {
    pub fn of(r: &Report) -> SharedNotes {
        let mut all: Vec<Shared> = Vec::new();
        for (i, k) in r.kernels.iter().enumerate() {
            let errors = k
                .models
                .iter()
                .filter(|m| m.time_s.is_none())
                .filter_map(|m| Some(model_note(&m.model, m.error.as_deref()?)));
            for text in k.notes.iter().cloned().chain(errors) {
                match all.iter_mut().find(|s| s.text == text) {
                    Some(s) if !s.entries.contains(&i) => s.entries.push(i),
                    Some(_) => {}
                    None => all.push(Shared {
                        text,
                        entries: vec![i],
                    }),
                }
            }
        }
        all.retain(|s| s.entries.len() > 1);
        SharedNotes { notes: all }
    }

    /// The number (from 1) of `text` among the shared notes.
    pub fn number(&self, text: &str) -> Option<usize> {
        self.notes
            .iter()
            .position(|s| s.text == text)
            .map(|i| i + 1)
    }

    /// The numbers of the shared notes that apply to entry `i`.
    pub fn of_entry(&self, i: usize) -> Vec<usize> {
        self.notes
            .iter()
            .enumerate()
            .filter(|(_, s)| s.entries.contains(&i))
            .map(|(n, _)| n + 1)
            .collect()
    }

    /// The notes of `k` that are not shared: those its own section shows.
    pub fn own<'a>(&self, k: &'a KernelReport) -> Vec<&'a String> {
        k.notes
            .iter()
            .filter(|n| self.number(n).is_none())
            .collect()
    }

    /// The number of the shared note that stands for `model`'s `error`, if it is one.
    pub fn model_error(&self, model: &str, error: &str) -> Option<usize> {
        self.number(&model_note(model, error))
    }
}

/// `dvfs 1.2 ms (dram); schedule: see note 2; linear: needs …` for the text renderers: every
/// model's time and bottleneck, or its error, or the number of the shared note that holds it.
pub fn models_line(k: &KernelReport, shared: &SharedNotes) -> String {
    k.models
        .iter()
        .map(|m| match (m.time_s, &m.error) {
            (Some(t), _) => format!(
                "{} {} ({})",
                m.model,
                super::fmt_time(t),
                m.bottleneck.as_deref().unwrap_or("–")
            ),
            (None, Some(e)) => match shared.model_error(&m.model, e) {
                Some(n) => format!("{}: see note {n}", m.model),
                None => format!("{}: {e}", m.model),
            },
            (None, None) => format!("{}: no result", m.model),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// `1`, `1 and 3`, `1, 2 and 4`.
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_under_the_root_and_beside_it_are_relative() {
        let root = Some(Path::new("/ws/examples/kernels"));
        let text =
            "add it to /ws/devices/a100.toml with a source; `/ws/examples/kernels/saxpy.cu:3` \
                    and <code>/ws/examples/kernels</code>, not /usr/bin/nvcc nor a/ws/x or </code>";
        assert_eq!(
            relative_paths(text, root),
            "add it to ../../devices/a100.toml with a source; `saxpy.cu:3` and <code>.</code>, \
             not /usr/bin/nvcc nor a/ws/x or </code>"
        );
        assert_eq!(relative_paths("/wsx/a", root), "/wsx/a");
        assert_eq!(relative_paths(text, None), text);
        // a root that is an end tag's name leaves the tag alone
        assert_eq!(
            relative_paths("<code>/code/a.cu</code>", Some(Path::new("/code"))),
            "<code>a.cu</code>"
        );
    }

    #[test]
    fn the_common_folder_of_inputs() {
        let got = common_folder(&[PathBuf::from("/a/b/c"), PathBuf::from("/a/b/d/e")]);
        assert_eq!(got, Some(PathBuf::from("/a/b")));
        assert_eq!(
            and_list(&["1".into(), "2".into(), "4".into()]),
            "1, 2 and 4"
        );
    }

    /// A note two entries have is shared and numbered; one entry's own note stays its own; a
    /// model's error that repeats is a shared note too.
    #[test]
    fn notes_of_several_entries_are_shared() {
        let mut r = crate::report::sample::report();
        let mut k = r.kernels[0].clone();
        k.notes = vec!["common".into(), "only mine".into()];
        k.models[0].time_s = None;
        k.models[0].error = Some("device lacks `x`".into());
        let mut other = k.clone();
        other.notes = vec!["common".into()];
        other.display_name = "other".into();
        r.kernels = vec![k, other];
        let s = SharedNotes::of(&r);
        let texts: Vec<&str> = s.notes.iter().map(|n| n.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "common",
                "the schedule model could not predict: device lacks `x`"
            ]
        );
        assert_eq!(s.of_entry(0), [1, 2]);
        assert_eq!(s.own(&r.kernels[0]), [&"only mine".to_string()]);
        assert_eq!(models_line(&r.kernels[1], &s), "schedule: see note 2");
    }
}
