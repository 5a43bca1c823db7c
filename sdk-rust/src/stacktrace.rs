//! Exception chains from `std::error::Error` values, and stack traces from the `backtrace`
//! crate's structured frames (std's `Backtrace` offers only a text form of unspecified format).

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
    let frames = trim(raw_frames());
    (!frames.is_empty()).then_some(Stacktrace { frames })
}

/// Every resolved frame of the current thread, innermost first (inlined functions each get
/// their own frame, as in `Backtrace`'s own output).
#[cfg(not(target_arch = "wasm32"))]
fn raw_frames() -> Vec<Frame> {
    let mut frames = Vec::new();
    backtrace::trace(|frame| {
        backtrace::resolve_frame(frame, |symbol| {
            // `{:#}` is the demangled name without the trailing hash.
            let Some(function) = symbol.name().map(|name| format!("{name:#}")) else {
                return;
            };
            frames.push(Frame {
                in_app: Some(is_in_app(&function)),
                function: Some(function),
                filename: symbol.filename().map(|f| f.display().to_string()),
                lineno: symbol.lineno(),
                colno: symbol.colno(),
            });
        });
        frames.len() < MAX_FRAMES * 2
    });
    frames
}

/// wasm32-unknown-unknown cannot walk its own stack.
#[cfg(target_arch = "wasm32")]
fn raw_frames() -> Vec<Frame> {
    Vec::new()
}

/// Drops the leading run of std/core/SDK frames (capture and panic machinery) and orders
/// the rest caller first, as the protocol wants.
fn trim(frames: Vec<Frame>) -> Vec<Frame> {
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

/// Frames of std, core, alloc, the runtime shims and this SDK.
fn is_machinery(function: &str) -> bool {
    const PREFIXES: [&str; 12] = [
        "backtrace::",
        "<backtrace::",
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

#[cfg_attr(target_arch = "wasm32", allow(dead_code))] // no stack walking there
/// Application frames are Rust paths outside std and the SDK; C symbols of libc and the
/// runtime (`main`, `clone3`, `__rust_try`, ...) are not.
fn is_in_app(function: &str) -> bool {
    !is_machinery(function) && function.contains("::") && !function.starts_with("__")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt;

    fn named(functions: &[&str]) -> Vec<Frame> {
        functions
            .iter()
            .map(|f| Frame {
                function: Some((*f).to_owned()),
                in_app: Some(is_in_app(f)),
                ..Frame::default()
            })
            .collect()
    }

    #[test]
    fn trims_machinery_and_orders_caller_first() {
        let frames = trim(named(&[
            "backtrace::backtrace::trace",
            "ingest_sdk::integrations::panic::hook",
            "<alloc::boxed::Box<F,A> as core::ops::function::Fn<Args>>::call",
            "__rustc::rust_begin_unwind",
            "core::panicking::panic_fmt",
            "app::worker::{{closure}}",
            "app::main",
            "std::rt::lang_start_internal",
            "main",
            "__rust_try",
        ]));
        let names: Vec<_> = frames
            .iter()
            .filter_map(|f| f.function.as_deref())
            .collect();
        assert_eq!(
            names,
            [
                "__rust_try",
                "main",
                "std::rt::lang_start_internal",
                "app::main",
                "app::worker::{{closure}}"
            ]
        );
        let in_app: Vec<_> = frames.iter().map(|f| f.in_app == Some(true)).collect();
        assert_eq!(in_app, [false, false, false, true, true]);
        assert!(trim(Vec::new()).is_empty());
    }

    #[test]
    fn raw_frames_are_structured() {
        let frames = raw_frames();
        let own = frames
            .iter()
            .find(|f| {
                f.function
                    .as_deref()
                    .is_some_and(|name| name.ends_with("tests::raw_frames_are_structured"))
            })
            .expect("the test's own frame");
        assert!(own.filename.as_deref().unwrap().ends_with("stacktrace.rs"));
        assert!(own.lineno.is_some_and(|line| line > 1));
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
