//! Conformance driver for the native SDK (`conformance/drivers/rust-sdk`).
//!
//! ```text
//! SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> conformance <scenario>
//! SENTRY_TEST_DSN=… conformance sessions <ok|crash> --release <release> --user <id>
//! SENTRY_TEST_DSN=… conformance crons interval --slug <slug>
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
//! - `sessions ok` / `sessions crash`: the session the SDK tracks by default (one per `init`);
//!   `crash` panics in the main thread, the panic hook reports it and ends the session
//!   `crashed`, and the process exits 101 as any panicking program. `--user` is echoed only:
//!   the SDK's sessions carry no user.
//! - `crons interval`: a job on a 10-minute interval schedule (margin 2, max runtime 5): an
//!   `in_progress` check-in, 1.5 s of work, then `ok` with its duration.
//!
//! Prints one JSON line `{"sdk","scenario","event_ids","groups"}` (groups: expected issue
//! label -> event ids) after dropping the guard, or `{"sdk","scenario","check_in_ids"}` for
//! crons.

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

/// The value after `--name` on the command line.
fn flag(args: &[String], name: &str) -> Option<String> {
    let at = args.iter().position(|a| a == name)?;
    args.get(at + 1).cloned()
}

fn sdk_info() -> serde_json::Value {
    json!({ "package": "ingest-sdk", "version": env!("CARGO_PKG_VERSION") })
}

/// Prints the report line; the exit code says whether the last flush completed.
fn finish(report: &serde_json::Value, flushed: bool) -> ExitCode {
    println!("{report}");
    if flushed {
        ExitCode::SUCCESS
    } else {
        eprintln!("flush timed out");
        ExitCode::FAILURE
    }
}

/// `init` from `SENTRY_TEST_DSN` with `release`; `None` (after saying why) without a DSN.
fn init_with(release: &str) -> Option<ingest_sdk::InitGuard> {
    let Ok(dsn) = std::env::var("SENTRY_TEST_DSN") else {
        eprintln!("SENTRY_TEST_DSN is not set");
        return None;
    };
    match ClientOptions::new(&dsn) {
        Ok(options) => Some(ingest_sdk::init(
            options.release(release).environment("test"),
        )),
        Err(err) => {
            eprintln!("{err}");
            None
        }
    }
}

/// One process, one session (the SDK's default): exits cleanly, or panics.
fn sessions(args: &[String]) -> ExitCode {
    let kind = args.first().cloned().unwrap_or_default();
    let (Some(release), Some(user)) = (flag(args, "--release"), flag(args, "--user")) else {
        eprintln!("usage: conformance sessions <ok|crash> --release <r> --user <id>");
        return ExitCode::from(2);
    };
    if kind != "ok" && kind != "crash" {
        eprintln!("usage: conformance sessions <ok|crash> --release <r> --user <id>");
        return ExitCode::from(2);
    }
    let Some(guard) = init_with(&release) else {
        return ExitCode::from(2);
    };
    let report = json!({ "sdk": sdk_info(), "scenario": kind, "user": user });
    if kind == "crash" {
        // Printed first: the panic ends the program (exit code 101).
        println!("{report}");
        panic!("conformance crash in the session of {user}");
    }
    // Dropping the guard ends the session `exited` and flushes (bounded by the shutdown
    // timeout); whether it arrived is what the scenario reads back from the server.
    drop(guard);
    finish(&report, true)
}

/// The `interval` job: `in_progress`, 1.5 s of work, then `ok` with the duration.
fn crons(args: &[String]) -> ExitCode {
    let (Some("interval"), Some(slug)) = (args.first().map(String::as_str), flag(args, "--slug"))
    else {
        eprintln!("usage: conformance crons interval --slug <slug>");
        return ExitCode::from(2);
    };
    let Some(guard) = init_with("rust-conformance@1.0.0") else {
        return ExitCode::from(2);
    };
    let mut opening = CheckIn::new(&slug, CheckInStatus::InProgress);
    let mut config = MonitorConfig::new(MonitorSchedule::Interval {
        value: 10,
        unit: "minute".to_owned(),
    });
    config.checkin_margin = Some(2);
    config.max_runtime = Some(5);
    config.timezone = Some("UTC".to_owned());
    opening.monitor_config = Some(config);
    let id = ingest_sdk::capture_check_in(opening.clone());
    guard.flush(Duration::from_secs(5));
    std::thread::sleep(Duration::from_millis(1500));
    ingest_sdk::capture_check_in(opening.finish(CheckInStatus::Ok, 1.5));
    let flushed = guard.flush(Duration::from_secs(10));
    drop(guard);
    let ids: Vec<String> = id.iter().map(Uuid::to_string).collect();
    let report = json!({
        "sdk": sdk_info(),
        "scenario": "interval",
        "slug": slug,
        "check_in_ids": ids,
    });
    finish(&report, flushed)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("sessions") => return sessions(&args[1..]),
        Some("crons") => return crons(&args[1..]),
        _ => {}
    }
    let scenario = args.first().cloned().unwrap_or_default();
    let run: fn(&mut Groups) = match scenario.as_str() {
        "grouping" => grouping,
        "full" => full,
        "ratelimit" => ratelimit,
        _ => {
            eprintln!("usage: conformance <grouping|full|ratelimit|sessions …|crons …>");
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
        "sdk": sdk_info(),
        "scenario": scenario,
        "event_ids": event_ids,
        "groups": groups,
    });
    finish(&report, flushed)
}
