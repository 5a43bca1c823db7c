//! Exception chains from `std::error::Error` values, and stack traces from
//! `std::backtrace::Backtrace` (parsed from its text form: std exposes no frame API).

use crate::protocol::{Exception, Frame, Mechanism, Stacktrace};
use std::error::Error;

/// Longest `source()` chain followed.
const MAX_CHAIN: usize = 16;
/// Most frames kept (innermost first).
const MAX_FRAMES: usize = 250;

/// The exception chain of `error`, root cause first and `error` itself last; the last
/// entry carries the mechanism.
pub(crate) fn exception_chain<E: Error + ?Sized>(
    error: &E,
    mechanism: &str,
    handled: bool,
) -> Vec<Exception> {
    let name = std::any::type_name::<E>();
    let top_type = if name.contains("dyn ") {
        type_from_debug(&format!("{error:?}"))
    } else {
        name.to_owned()
    };
    let mut chain = vec![Exception {
        ty: top_type,
        value: Some(error.to_string()),
        ..Exception::default()
    }];
    let mut source = error.source();
    while let Some(cause) = source {
        if chain.len() >= MAX_CHAIN {
            break;
        }
        chain.push(Exception {
            ty: type_from_debug(&format!("{cause:?}")),
            value: Some(cause.to_string()),
            ..Exception::default()
        });
        source = cause.source();
    }
    chain.reverse();
    if let Some(last) = chain.last_mut() {
        last.mechanism = Some(Mechanism {
            ty: mechanism.to_owned(),
            handled: Some(handled),
        });
    }
    chain
}

/// The leading identifier of a `Debug` rendering, e.g. `ParseIntError` from
/// `ParseIntError { kind: InvalidDigit }`.
fn type_from_debug(debug: &str) -> String {
    let name: String = debug
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    if name.is_empty() {
        "Error".to_owned()
    } else {
        name
    }
}

/// A stack trace of the caller, without the SDK's and the panic machinery's own frames.
pub(crate) fn capture() -> Option<Stacktrace> {
    let text = std::backtrace::Backtrace::force_capture().to_string();
    let frames = parse_backtrace(&text);
    (!frames.is_empty()).then_some(Stacktrace { frames })
}

/// Parses `Backtrace`'s display text into frames ordered caller first, dropping the
/// leading run of std/core/SDK frames (capture and panic machinery).
pub(crate) fn parse_backtrace(text: &str) -> Vec<Frame> {
    let mut frames: Vec<Frame> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(location) = trimmed.strip_prefix("at ") {
            if let Some(frame) = frames.last_mut().filter(|f| f.filename.is_none()) {
                apply_location(frame, location);
            }
            continue;
        }
        let symbol = match trimmed.split_once(": ") {
            Some((index, rest)) if index.chars().all(|c| c.is_ascii_digit()) => rest,
            // An inlined symbol of the same frame is printed without an index.
            _ if line.starts_with("      ") => trimmed,
            _ => continue,
        };
        frames.push(Frame {
            function: Some(symbol.to_owned()),
            in_app: Some(is_in_app(symbol)),
            ..Frame::default()
        });
    }
    let first_app = frames
        .iter()
        .position(|f| !f.function.as_deref().is_some_and(is_machinery))
        .unwrap_or(frames.len());
    let mut frames: Vec<Frame> = frames
        .into_iter()
        .skip(first_app)
        .take(MAX_FRAMES)
        .collect();
    frames.reverse();
    frames
}

fn apply_location(frame: &mut Frame, location: &str) {
    let mut parts = location.rsplitn(3, ':');
    let (col, line, file) = (parts.next(), parts.next(), parts.next());
    match (
        file,
        line.and_then(|l| l.parse().ok()),
        col.and_then(|c| c.parse().ok()),
    ) {
        (Some(file), Some(line), Some(col)) => {
            frame.filename = Some(file.to_owned());
            frame.lineno = Some(line);
            frame.colno = Some(col);
        }
        _ => frame.filename = Some(location.to_owned()),
    }
}

/// Frames of std, core, alloc, the runtime shims and this SDK.
fn is_machinery(function: &str) -> bool {
    const PREFIXES: [&str; 10] = [
        "std::",
        "core::",
        "alloc::",
        "ingest_sdk::",
        "<std::",
        "<core::",
        "<alloc::",
        "<ingest_sdk::",
        "__rustc::",
        "rust_begin_unwind",
    ];
    PREFIXES.iter().any(|p| function.starts_with(p))
}

/// Application frames are Rust paths outside std and the SDK; C symbols of libc and the
/// runtime (`main`, `clone3`, `__rust_try`, ...) are not.
fn is_in_app(function: &str) -> bool {
    !is_machinery(function) && function.contains("::") && !function.starts_with("__")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt;

    const PANIC_TRACE: &str = "   0: std::backtrace::Backtrace::force_capture
             at /rustc/x/library/std/src/backtrace.rs:312:9
   1: ingest_sdk::integrations::panic::hook
             at ./src/integrations/panic.rs:40:5
   2: <alloc::boxed::Box<F,A> as core::ops::function::Fn<Args>>::call
   3: __rustc::rust_begin_unwind
             at /rustc/x/library/std/src/panicking.rs:689:5
   4: core::panicking::panic_fmt
   5: app::worker::{{closure}}
             at ./src/main.rs:12:9
      app::inlined_helper
             at ./src/main.rs:30:1
   6: app::main
             at ./src/main.rs:5:5
   7: std::rt::lang_start_internal
   8: main
   9: clone3
  10: __rust_try
";

    #[test]
    fn parses_and_trims_a_panic_backtrace() {
        let frames = parse_backtrace(PANIC_TRACE);
        let names: Vec<_> = frames
            .iter()
            .filter_map(|f| f.function.as_deref())
            .collect();
        assert_eq!(
            names,
            [
                "__rust_try",
                "clone3",
                "main",
                "std::rt::lang_start_internal",
                "app::main",
                "app::inlined_helper",
                "app::worker::{{closure}}"
            ]
        );
        let in_app: Vec<_> = frames.iter().map(|f| f.in_app == Some(true)).collect();
        assert_eq!(in_app, [false, false, false, false, true, true, true]);
        let crash_site = frames.last().unwrap();
        assert_eq!(crash_site.filename.as_deref(), Some("./src/main.rs"));
        assert_eq!((crash_site.lineno, crash_site.colno), (Some(12), Some(9)));
        assert_eq!(crash_site.in_app, Some(true));
        assert_eq!(frames[3].filename, None);
    }

    #[test]
    fn unsupported_backtraces_have_no_frames() {
        assert!(parse_backtrace("disabled backtrace").is_empty());
        assert!(parse_backtrace("").is_empty());
    }

    #[derive(Debug)]
    struct Outer(Inner);
    #[derive(Debug)]
    struct Inner;

    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("loading config failed")
        }
    }
    impl fmt::Display for Inner {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("file missing")
        }
    }
    impl Error for Outer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }
    impl Error for Inner {}

    #[test]
    fn chain_is_root_cause_first() {
        let chain = exception_chain(&Outer(Inner), "generic", true);
        let summary: Vec<_> = chain
            .iter()
            .map(|e| (e.ty.as_str(), e.value.as_deref()))
            .collect();
        assert_eq!(
            summary,
            [
                ("Inner", Some("file missing")),
                (
                    "ingest_sdk::stacktrace::tests::Outer",
                    Some("loading config failed")
                ),
            ]
        );
        assert_eq!(chain[0].mechanism, None);
        assert_eq!(
            chain[1].mechanism,
            Some(Mechanism {
                ty: "generic".into(),
                handled: Some(true)
            })
        );
    }

    #[test]
    fn dyn_errors_are_named_from_debug() {
        let err: Box<dyn Error> = "7x".parse::<u8>().unwrap_err().into();
        let chain = exception_chain(&*err, "generic", true);
        assert_eq!(chain[0].ty, "ParseIntError");
        assert_eq!(type_from_debug("\"text\""), "Error");
    }
}
