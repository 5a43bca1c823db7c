//! Conformance driver for the native SDK (`conformance/drivers/rust-sdk`).
//!
//! ```text
//! SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> conformance <scenario>
//! ```
//!
//! Scenarios:
//! - `grouping`: the same error twice from one call site, and two messages differing only in
//!   a number (shared with the stock-SDK drivers).
//! - `full`: the same error twice, a message, a cron check-in pair (`rust-conformance-job`),
//!   a panic in a thread (the program continues), and a `tracing` ERROR record after two
//!   INFO records (breadcrumbs).
//! - `ratelimit`: with a quota of 3 events per 4 s: 3 events, a 4th answered 429, 3 the SDK
//!   must hold back (client report `ratelimit_backoff`), then one more after the window.
//!
//! Prints one JSON line `{"sdk","scenario","event_ids","groups"}` (groups: expected issue
//! label -> event ids) after dropping the guard.

use ingest_sdk::protocol::{MonitorConfig, MonitorSchedule};
use ingest_sdk::{CheckIn, CheckInStatus, ClientOptions, Level, Uuid};
use serde_json::json;
use std::collections::BTreeMap;
use std::fmt;
use std::process::ExitCode;
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The window of the quota the `ratelimit` scenario runs against.
const WINDOW: Duration = Duration::from_secs(4);

type Groups = BTreeMap<&'static str, Vec<Uuid>>;

/// The error captured twice; both events must group into one issue.
#[derive(Debug)]
struct ConformanceError;

impl fmt::Display for ConformanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("conformance boom")
    }
}

impl std::error::Error for ConformanceError {}

/// One call site for every capture of the error, so both events carry identical data.
fn boom() -> Option<Uuid> {
    ingest_sdk::capture_error(&ConformanceError)
}

fn grouping(groups: &mut Groups) {
    for order in [17, 42] {
        groups.entry("exception").or_default().extend(boom());
        let text = format!("conformance order {order} failed");
        let id = ingest_sdk::capture_message(&text, Level::Info);
        groups.entry("message").or_default().extend(id);
    }
}

fn full(groups: &mut Groups) {
    groups.entry("exception").or_default().extend(boom());
    groups.entry("exception").or_default().extend(boom());
    let id = ingest_sdk::capture_message("conformance hello", Level::Info);
    groups.entry("message").or_default().extend(id);

    let mut opening = CheckIn::new("rust-conformance-job", CheckInStatus::InProgress);
    let mut config = MonitorConfig::new(MonitorSchedule::Crontab {
        value: "*/5 * * * *".to_owned(),
    });
    config.checkin_margin = Some(1);
    config.max_runtime = Some(5);
    config.timezone = Some("UTC".to_owned());
    opening.monitor_config = Some(config);
    ingest_sdk::capture_check_in(opening.clone());
    ingest_sdk::capture_check_in(opening.finish(CheckInStatus::Ok, 1.5));

    let panicked = std::thread::spawn(|| panic!("conformance panic in a thread")).join();
    if panicked.is_err() {
        groups
            .entry("panic")
            .or_default()
            .extend(ingest_sdk::last_event_id());
    }

    tracing::info!(step = 1, "conformance step one");
    tracing::info!(step = 2, "conformance step two");
    tracing::error!("conformance tracing failure");
    groups
        .entry("tracing")
        .or_default()
        .extend(ingest_sdk::last_event_id());
}

/// Captures one error message and waits until it was sent (or dropped).
fn capture_one(text: &str) -> Option<Uuid> {
    let id = ingest_sdk::capture_message(text, Level::Error);
    ingest_sdk::flush(Duration::from_secs(5));
    id
}

fn ratelimit(groups: &mut Groups) {
    for i in 0..3 {
        let id = capture_one(&format!("ratelimit {i}"));
        groups.entry("accepted").or_default().extend(id);
    }
    let id = capture_one("ratelimit over quota");
    groups.entry("refused").or_default().extend(id);
    for i in 0..3 {
        let id = capture_one(&format!("held back {i}"));
        groups.entry("held_back").or_default().extend(id);
    }
    std::thread::sleep(WINDOW + Duration::from_millis(500));
    let id = capture_one("after the window");
    groups.entry("after_window").or_default().extend(id);
}

fn main() -> ExitCode {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let run: fn(&mut Groups) = match scenario.as_str() {
        "grouping" => grouping,
        "full" => full,
        "ratelimit" => ratelimit,
        _ => {
            eprintln!("usage: conformance <grouping|full|ratelimit>");
            return ExitCode::from(2);
        }
    };
    let Ok(dsn) = std::env::var("SENTRY_TEST_DSN") else {
        eprintln!("SENTRY_TEST_DSN is not set");
        return ExitCode::from(2);
    };
    let options = match ClientOptions::new(&dsn) {
        Ok(options) => options
            .release("rust-conformance@1.0.0")
            .environment("test"),
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::from(2);
        }
    };
    let guard = ingest_sdk::init(options);
    tracing_subscriber::registry()
        .with(ingest_sdk::integrations::tracing_layer::layer())
        .init();

    let mut groups = Groups::new();
    run(&mut groups);
    let flushed = guard.flush(Duration::from_secs(10));
    drop(guard);

    let as_strings = |ids: &[Uuid]| ids.iter().map(Uuid::to_string).collect::<Vec<_>>();
    let event_ids: Vec<String> = groups.values().flat_map(|ids| as_strings(ids)).collect();
    let groups: BTreeMap<_, _> = groups.iter().map(|(k, v)| (*k, as_strings(v))).collect();
    let report = json!({
        "sdk": { "package": "ingest-sdk", "version": env!("CARGO_PKG_VERSION") },
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
