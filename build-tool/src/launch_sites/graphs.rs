//! CUDA graphs: the launches a stream capture records run when the graph made from it is
//! launched, not where they are written:
//!
//! ```text
//! cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
//! for (int k = 0; k < 4; ++k) step<<<g, b, 0, s>>>(x, n);   // 4 nodes of the graph
//! cudaStreamEndCapture(s, &graph);
//! cudaGraphInstantiate(&exec, graph, 0);
//! for (int i = 0; i < 100; ++i) cudaGraphLaunch(exec, s);   // step runs 400 times
//! ```
//!
//! A capture ([`capture_around`]) is a body whose calls are its graph's launches
//! ([`graph_launches`]): the loops inside it repeat a launch within the graph, the loops around
//! each `cudaGraphLaunch` repeat the graph, and a loop around the capture repeats neither (it
//! captures again). The driver API's `cuStreamBeginCapture`, `cuStreamEndCapture`,
//! `cuGraphInstantiate` and `cuGraphLaunch` are read the same way. A capture whose graph the
//! file launches nowhere (instantiated and handed on, say) is read as the code around it.

use super::c_text::arg_texts;
use super::callers::{Call, Enclosing, How, Kind};
use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

static BEGIN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bcu(?:da)?StreamBeginCapture\s*\(").unwrap());
static END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bcu(?:da)?StreamEndCapture\s*\(").unwrap());
static INSTANTIATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bcu(?:da)?GraphInstantiate(?:WithFlags|WithParams)?\s*\(").unwrap()
});
static LAUNCH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bcu(?:da)?GraphLaunch\s*\(").unwrap());

/// The stream capture in `within` (the body of what runs `at`) that records the code at `at`:
/// the last `cudaStreamBeginCapture(s, …)` before it, with no end between, and the first
/// `cudaStreamEndCapture(s, &graph)` of the same stream after it, where the file launches that
/// graph. Its name is the graph's.
pub(super) fn capture_around(code: &str, at: usize, within: Range<usize>) -> Option<Enclosing> {
    if at < within.start || at > within.end {
        return None;
    }
    let begin = BEGIN.find_iter(&code[within.start..at]).last()?;
    let (begin_close, begin_args) = arg_texts(code, within.start + begin.end() - 1)?;
    let stream = begin_args.first()?.to_string();
    let body_start = begin_close + code[begin_close..].find(';')? + 1;
    if body_start > at || END.is_match(&code[begin_close..at]) {
        return None;
    }
    let end = END.find(&code[at..within.end])?;
    let (_, end_args) = arg_texts(code, at + end.end() - 1)?;
    if end_args.first() != Some(&stream.as_str()) {
        return None;
    }
    let graph = end_args.get(1)?.trim_start_matches('&').trim();
    let capture = Enclosing {
        name: graph.to_string(),
        params: Vec::new(),
        defaults: Vec::new(),
        template_params: Vec::new(),
        at: within.start + begin.start(),
        body: body_start..at + end.start(),
        kind: Kind::Capture,
    };
    (!graph_launches(code, &capture).is_empty()).then_some(capture)
}

/// The launches of the graph that `capture` records: each `cudaGraphLaunch(exec, …)` of an
/// `exec` instantiated from it (`cudaGraphInstantiate(&exec, graph, …)`) after the capture.
pub(super) fn graph_launches(code: &str, capture: &Enclosing) -> Vec<Call> {
    let after = capture.body.end;
    let execs: Vec<String> = INSTANTIATE
        .find_iter(&code[after..])
        .filter_map(|m| {
            let (_, args) = arg_texts(code, after + m.end() - 1)?;
            let exec = args.first()?.trim_start_matches('&').trim();
            (args.get(1) == Some(&capture.name.as_str())).then(|| exec.to_string())
        })
        .collect();
    LAUNCH
        .find_iter(&code[after..])
        .filter_map(|m| {
            let at = after + m.start();
            let (_, args) = arg_texts(code, after + m.end() - 1)?;
            execs
                .iter()
                .any(|e| args.first() == Some(&e.as_str()))
                .then(|| Call {
                    line: code[..at].matches('\n').count() + 1,
                    at,
                    args: Vec::new(),
                    template_args: Vec::new(),
                    how: How::Graph,
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::callers;
    use super::*;

    const GRAPH: &str = "int main() {\n  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n  for (int k = 0; k < 4; ++k) step<<<g, b, 0, s>>>(x, n);\n  cudaStreamEndCapture(s, &graph);\n  cudaGraphInstantiate(&exec, graph, 0);\n  cudaGraphLaunch(exec, s);\n  for (int i = 0; i < 100; ++i) cudaGraphLaunch(exec, s);\n  cudaGraphLaunch(other, s);\n  step<<<g, b>>>(x, n);\n}\n";

    #[test]
    fn a_captured_launch_is_called_by_its_graph_s_launches() {
        let code = GRAPH;
        let f = callers::enclosing_callable(code, code.find("step<<<").unwrap()).unwrap();
        assert_eq!((f.name.as_str(), &f.kind), ("graph", &Kind::Capture));
        let calls = callers::calls(code, &f);
        let shown: Vec<String> = calls
            .iter()
            .map(|c| c.called_at(&format!("line {}", c.line)))
            .collect();
        assert_eq!(
            shown,
            [
                "in the graph launched at line 6",
                "in the graph launched at line 7"
            ]
        );
        // the launch after the capture is `main`'s
        let f = callers::enclosing_callable(code, code.rfind("step<<<").unwrap()).unwrap();
        assert_eq!(f.name, "main");
    }

    #[test]
    fn a_capture_of_another_stream_or_whose_graph_is_not_launched_is_not_one() {
        let other_stream = GRAPH.replace("EndCapture(s,", "EndCapture(t,");
        let not_launched = GRAPH.replace("cudaGraphInstantiate(&exec", "cudaGraphInstantiate(&e2");
        for code in [other_stream, not_launched] {
            let f = callers::enclosing_callable(&code, code.find("step<<<").unwrap()).unwrap();
            assert_eq!(f.name, "main", "{code}");
        }
    }
}
