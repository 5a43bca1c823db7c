//! Conformance driver for the stock Rust SDK (the `sentry` crate), unmodified.
//!
//! ```text
//! SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> rust-stock-driver <scenario>
//! ```
//!
//! Scenarios:
//! - `grouping`: the same error twice from one call site, and two messages differing only in
//!   a number.
//! - `ratelimit`: with a quota of 3 events per 4 s: 3 events, a 4th answered 429, 3 the SDK
//!   must hold back, then one more after the window (which carries the SDK's client report).
//!
//! Prints one JSON line `{"sdk","scenario","event_ids","groups"}` (groups: expected issue
//! label -> event ids). Exit code 0 only if the final flush completed.

use sentry::types::Uuid;
use serde_json::json;
use std::collections::BTreeMap;
use std::fmt;
use std::process::ExitCode;
use std::time::Duration;

/// The `sentry` version in Cargo.toml / Cargo.lock (the crate exports no version constant).
const SENTRY_VERSION: &str = "0.49.5";
/// The window of the quota the `ratelimit` scenario runs against.
const WINDOW: Duration = Duration::from_secs(4);

type Groups = BTreeMap<&'static str, Vec<Uuid>>;

#[derive(Debug)]
struct ConformanceError;

impl fmt::Display for ConformanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("conformance boom")
    }
}

impl std::error::Error for ConformanceError {}

/// One call site for every capture of the error, so both events carry identical data.
fn boom() -> Uuid {
    sentry::capture_error(&ConformanceError)
}

fn flush() -> bool {
    sentry::Hub::current()
        .client()
        .is_some_and(|client| client.flush(Some(Duration::from_secs(5))))
}

fn grouping(groups: &mut Groups) {
    for order in [17, 42] {
        groups.entry("exception").or_default().push(boom());
        let text = format!("conformance order {order} failed");
        let id = sentry::capture_message(&text, sentry::Level::Info);
        groups.entry("message").or_default().push(id);
    }
}

/// Captures one error message and waits until the SDK sent (or dropped) it.
fn capture_one(text: &str) -> Uuid {
    let id = sentry::capture_message(text, sentry::Level::Error);
    flush();
    id
}

fn ratelimit(groups: &mut Groups) {
    for i in 0..3 {
        groups
            .entry("accepted")
            .or_default()
            .push(capture_one(&format!("ratelimit {i}")));
    }
    groups
        .entry("refused")
        .or_default()
        .push(capture_one("ratelimit over quota"));
    for i in 0..3 {
        groups
            .entry("held_back")
            .or_default()
            .push(capture_one(&format!("held back {i}")));
    }
    std::thread::sleep(WINDOW + Duration::from_millis(500));
    groups
        .entry("after_window")
        .or_default()
        .push(capture_one("after the window"));
}

fn main() -> ExitCode {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let run: fn(&mut Groups) = match scenario.as_str() {
        "grouping" => grouping,
        "ratelimit" => ratelimit,
        _ => {
            eprintln!("usage: rust-stock-driver <grouping|ratelimit>");
            return ExitCode::from(2);
        }
    };
    let dsn = match std::env::var("SENTRY_TEST_DSN").map(|d| d.parse::<sentry::types::Dsn>()) {
        Ok(Ok(dsn)) => dsn,
        _ => {
            eprintln!("SENTRY_TEST_DSN is missing or not a DSN");
            return ExitCode::from(2);
        }
    };
    let mut options = sentry::ClientOptions::new()
        .release("conformance@1.0.0")
        .environment("test")
        .traces_sample_rate(0.0);
    options.dsn = Some(dsn);
    let guard = sentry::init(options);

    let mut groups = Groups::new();
    run(&mut groups);
    let flushed = flush();
    drop(guard);

    let as_strings = |ids: &[Uuid]| {
        ids.iter()
            .map(|id| id.simple().to_string())
            .collect::<Vec<_>>()
    };
    let event_ids: Vec<String> = groups.values().flat_map(|ids| as_strings(ids)).collect();
    let groups: BTreeMap<_, _> = groups.iter().map(|(k, v)| (*k, as_strings(v))).collect();
    let report = json!({
        "sdk": { "package": "sentry (rust)", "version": SENTRY_VERSION },
        "scenario": scenario,
        "event_ids": event_ids,
        "groups": groups,
    });
    println!("{report}");
    if flushed {
        ExitCode::SUCCESS
    } else {
        eprintln!("flush timed out");
        ExitCode::FAILURE
    }
}
