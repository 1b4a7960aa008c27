//! Progress bars on stderr, drawn only where someone watches: a terminal, outside CI.
//! Elsewhere (a CI log, a build log, a pipe) a bar prints a plain line at a steady pace instead,
//! `kerncast: analysing kernels: 12/40 (30 %), 20 s`, every `$KERNCAST_PROGRESS_SECS` seconds
//! (default 10; 0 for none), so a long run shows it is alive; a run shorter than that prints
//! nothing.
//!
//! `analyze` and `check` draw one bar over their jobs, `rank` one over its variants. The
//! single-kernel commands (`predict`, `count`, `emulate`) turn on [`enable_launch_bars`], and
//! then every emulated launch, the one step of theirs that can take seconds, draws a bar over
//! its blocks. The batch commands leave
//! it off, so their workers never draw over their own bar.

use indicatif::{ProgressBar, ProgressStyle};
use kerncast_passes::emu::{self, EmuError, EmuResult, KernelArg};
use kerncast_passes::ptx::Module;
use kerncast_passes::stats::Launch;
use std::io::IsTerminal;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static LAUNCH_BARS: AtomicBool = AtomicBool::new(false);

/// Show a bar for each emulated launch from now on (single-kernel commands).
pub fn enable_launch_bars() {
    LAUNCH_BARS.store(true, Ordering::Relaxed);
}

fn watched() -> bool {
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    !ci && std::io::stderr().is_terminal()
}

/// A bar of `len` steps in `template` (indicatif's syntax), drawn when watched; otherwise
/// hidden, with progress lines on stderr at a steady pace.
pub fn bar(len: u64, template: &str) -> ProgressBar {
    if !watched() {
        let pb = ProgressBar::hidden();
        pb.set_length(len);
        let secs = std::env::var("KERNCAST_PROGRESS_SECS")
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(10.0);
        if secs > 0.0 && secs.is_finite() {
            log_lines(
                &pb,
                label(template),
                Duration::from_secs_f64(secs),
                Box::new(std::io::stderr()),
            );
        }
        return pb;
    }
    let pb = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb
}

/// The words of an indicatif template, without its placeholders: what the bar counts.
fn label(template: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in template.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            '[' | ']' | '(' | ')' | '/' => {}
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Writes `kerncast: LABEL: pos/len (p %), t s` to `out` every `every` while `pb` is alive and
/// unfinished, from a thread of its own that holds only a weak reference to the bar.
fn log_lines(pb: &ProgressBar, label: String, every: Duration, mut out: Box<dyn Write + Send>) {
    let weak = pb.downgrade();
    let start = Instant::now();
    let spawned = std::thread::Builder::new()
        .name("kerncast-progress".into())
        .spawn(move || {
            let mut next = start + every;
            loop {
                // sleep in short steps so a finished bar stops the thread soon
                while Instant::now() < next {
                    std::thread::sleep(every.min(Duration::from_millis(100)));
                    match weak.upgrade() {
                        Some(pb) if !pb.is_finished() => {}
                        _ => return,
                    }
                }
                let Some(pb) = weak.upgrade() else { return };
                if pb.is_finished() {
                    return;
                }
                let (pos, len) = (pb.position(), pb.length().unwrap_or(0));
                let pct = (pos * 100).checked_div(len).unwrap_or(0);
                // one write, so a process that exits meanwhile leaves no half line (stderr is
                // unbuffered: `writeln!` writes each piece of the format on its own)
                let line = format!(
                    "kerncast: {label}: {pos}/{len} ({pct} %), {} s\n",
                    start.elapsed().as_secs()
                );
                let _ = out.write_all(line.as_bytes());
                let _ = out.flush();
                next += every;
            }
        });
    // without a thread there are no lines, and nothing else changes
    drop(spawned);
}

/// `emu::run_with` under a bar over the launch's blocks, shown when launch bars are on.
pub fn emulate(
    module: &Module,
    kernel: &str,
    launch: &Launch,
    args: &[KernelArg],
    opts: &emu::Options,
) -> Result<EmuResult, EmuError> {
    let blocks = opts.blocks_of(launch);
    let bar = launch_bar(kernel, blocks);
    let r = emu::run_observed(module, kernel, launch, args, opts, &mut |done, _| {
        bar.set_position(done)
    });
    bar.finish_and_clear();
    r
}

fn launch_bar(kernel: &str, blocks: u64) -> ProgressBar {
    if !LAUNCH_BARS.load(Ordering::Relaxed) {
        return ProgressBar::hidden();
    }
    let pb = bar(
        blocks,
        "{spinner} emulating {msg} [{bar:30}] {pos}/{len} blocks, {elapsed} (eta {eta})",
    );
    pb.set_message(crate::names::demangle(kernel));
    pb
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_label_is_the_templates_words() {
        assert_eq!(
            label("{spinner} analysing kernels [{bar:30}] {pos}/{len} {elapsed}"),
            "analysing kernels"
        );
    }

    /// Unwatched, a bar logs a line per interval while it runs, and none after it finishes.
    #[test]
    fn an_unwatched_bar_logs_lines_at_a_steady_pace() {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let pb = ProgressBar::hidden();
        pb.set_length(4);
        log_lines(
            &pb,
            "analysing kernels".into(),
            Duration::from_millis(40),
            Box::new(Shared(buf.clone())),
        );
        for _ in 0..4 {
            std::thread::sleep(Duration::from_millis(60));
            pb.inc(1);
        }
        pb.finish();
        std::thread::sleep(Duration::from_millis(250));
        let lines_then = buf.lock().unwrap().len();
        std::thread::sleep(Duration::from_millis(200));
        let text = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text.len(),
            lines_then,
            "no line after the bar finished:\n{text}"
        );
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() >= 2, "{text}");
        for l in &lines {
            assert!(l.starts_with("kerncast: analysing kernels: "), "{l}");
            assert!(l.contains("/4 ("), "{l}");
        }
    }
}
