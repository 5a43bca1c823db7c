//! Conformance driver for the stock Rust SDK (the `sentry` crate), unmodified.
//!
//! ```text
//! SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> rust-stock-driver <scenario>
//! SENTRY_TEST_DSN=… rust-stock-driver sessions <ok|crash> --release <release> --user <id>
//! SENTRY_TEST_DSN=… rust-stock-driver crons interval --slug <slug>
//! ```
//!
//! Scenarios:
//! - `grouping`: the same error twice from one call site, and two messages differing only in
//!   a number.
//! - `ratelimit`: with a quota of 3 events per 4 s: 3 events, a 4th answered 429, 3 the SDK
//!   must hold back, then one more after the window (which carries the SDK's client report).
//! - `sessions ok` / `sessions crash`: a release-health session of the signed-in user, as the
//!   crate tracks it; `crash` panics in the main thread (the `panic` integration reports the
//!   panic and marks the session crashed; the process exits 101 as any panicking program).
//! - `crons interval`: a job on a 10-minute interval schedule (margin 2, max runtime 5), an
//!   `in_progress` check-in, 1.5 s of work, then `ok` with its duration. The crate has the
//!   check-in protocol type (`MonitorCheckIn`) but no capture helper: the check-in goes out
//!   as an envelope item through the client's own transport (`Client::send_envelope`).
//!
//! Prints one JSON line `{"sdk","scenario","event_ids","groups"}` (groups: expected issue
//! label -> event ids), or `{"sdk","scenario","check_in_ids"}` for crons. Exit code 0 only if
//! the final flush completed.

use sentry::protocol::{
    Envelope, MonitorCheckIn, MonitorCheckInStatus, MonitorConfig, MonitorIntervalUnit,
    MonitorSchedule,
};
use sentry::types::Uuid;
use serde_json::{Value, json};
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

/// The value after `--name` on the command line.
fn flag(args: &[String], name: &str) -> Option<String> {
    let at = args.iter().position(|a| a == name)?;
    args.get(at + 1).cloned()
}

fn parse_dsn() -> Option<sentry::types::Dsn> {
    match std::env::var("SENTRY_TEST_DSN").map(|d| d.parse::<sentry::types::Dsn>()) {
        Ok(Ok(dsn)) => Some(dsn),
        _ => {
            eprintln!("SENTRY_TEST_DSN is missing or not a DSN");
            None
        }
    }
}

fn sdk_info() -> Value {
    json!({ "package": "sentry (rust)", "version": SENTRY_VERSION })
}

/// Prints the report line; the exit code says whether the last flush completed.
fn finish(report: &Value, flushed: bool) -> ExitCode {
    println!("{report}");
    if flushed {
        ExitCode::SUCCESS
    } else {
        eprintln!("flush timed out");
        ExitCode::FAILURE
    }
}

/// A release-health session as an application tracks it: the user is known before the session
/// starts (the crate takes the session's `did` from the scope's user at start).
fn sessions(args: &[String]) -> ExitCode {
    let kind = args.first().cloned().unwrap_or_default();
    let (Some(release), Some(user)) = (flag(args, "--release"), flag(args, "--user")) else {
        eprintln!("usage: rust-stock-driver sessions <ok|crash> --release <r> --user <id>");
        return ExitCode::from(2);
    };
    if kind != "ok" && kind != "crash" {
        eprintln!("usage: rust-stock-driver sessions <ok|crash> --release <r> --user <id>");
        return ExitCode::from(2);
    }
    let Some(dsn) = parse_dsn() else {
        return ExitCode::from(2);
    };
    let mut options = sentry::ClientOptions::new()
        .release(release)
        .environment("test")
        .traces_sample_rate(0.0);
    options.dsn = Some(dsn);
    let _guard = sentry::init(options);
    sentry::configure_scope(|scope| {
        scope.set_user(Some(sentry::User {
            id: Some(user.clone()),
            ..Default::default()
        }));
    });
    sentry::start_session();
    let report = json!({ "sdk": sdk_info(), "scenario": kind, "user": user });
    if kind == "crash" {
        // Printed first: the panic ends the program (exit code 101).
        println!("{report}");
        panic!("conformance crash in session of {user}");
    }
    sentry::end_session();
    finish(&report, flush())
}

fn check_in(slug: &str, id: Uuid, status: MonitorCheckInStatus, duration: Option<f64>) {
    let config = MonitorConfig {
        schedule: MonitorSchedule::Interval {
            value: 10,
            unit: MonitorIntervalUnit::Minute,
        },
        checkin_margin: Some(2),
        max_runtime: Some(5),
        timezone: Some("UTC".to_owned()),
        failure_issue_threshold: None,
        recovery_threshold: None,
    };
    let item = MonitorCheckIn {
        check_in_id: id,
        monitor_slug: slug.to_owned(),
        status,
        environment: Some("test".to_owned()),
        duration,
        monitor_config: Some(config),
    };
    if let Some(client) = sentry::Hub::current().client() {
        client.send_envelope(Envelope::from(sentry::protocol::EnvelopeItem::from(item)));
    }
}

/// The `interval` job: `in_progress`, 1.5 s of work, then `ok` with the duration.
fn crons(args: &[String]) -> ExitCode {
    let (Some("interval"), Some(slug)) = (args.first().map(String::as_str), flag(args, "--slug"))
    else {
        eprintln!("usage: rust-stock-driver crons interval --slug <slug>");
        return ExitCode::from(2);
    };
    let Some(dsn) = parse_dsn() else {
        return ExitCode::from(2);
    };
    let mut options = sentry::ClientOptions::new()
        .release("conformance@1.0.0")
        .environment("test")
        .traces_sample_rate(0.0);
    options.dsn = Some(dsn);
    let guard = sentry::init(options);
    let id = sentry::types::random_uuid();
    check_in(&slug, id, MonitorCheckInStatus::InProgress, None);
    flush();
    std::thread::sleep(Duration::from_millis(1500));
    check_in(&slug, id, MonitorCheckInStatus::Ok, Some(1.5));
    let flushed = flush();
    drop(guard);
    let report = json!({
        "sdk": sdk_info(),
        "scenario": "interval",
        "slug": slug,
        "check_in_ids": [id.simple().to_string()],
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
        "ratelimit" => ratelimit,
        _ => {
            eprintln!("usage: rust-stock-driver <grouping|ratelimit|sessions …|crons …>");
            return ExitCode::from(2);
        }
    };
    let Some(dsn) = parse_dsn() else {
        return ExitCode::from(2);
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
        "sdk": sdk_info(),
        "scenario": scenario,
        "event_ids": event_ids,
        "groups": groups,
    });
    finish(&report, flushed)
}
