//! The serializer reproduces `fixtures/envelopes/rust-sdk/*.envelope` byte for byte.
//!
//! The fixtures were written by this serializer with fixed ids and timestamps; after an
//! intended wire change, regenerate them with `UPDATE_FIXTURES=1 cargo test --test fixtures`
//! and review the diff.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ingest_sdk::protocol::{
    Breadcrumb, CheckIn, CheckInStatus, ClientReport, DataCategory, DiscardReason, DiscardedEvent,
    Envelope, Event, Exception, Frame, Item, Level, Mechanism, MonitorConfig, MonitorSchedule,
    SdkInfo, SessionAttributes, SessionStatus, SessionUpdate, Stacktrace, Timestamp, User, Uuid,
};
use std::collections::BTreeMap;
use std::path::PathBuf;

const T0: f64 = 1_767_225_600.25; // 2026-01-01T00:00:00.250Z
const EVENT_ID: Uuid = Uuid::from_u128(0x9ec7_9c33_ec99_42ab_8353_589f_cb2e_04dc);
const SID: Uuid = Uuid::from_u128(0x0c7a_1b2d_3e4f_40a1_b2c3_d4e5_f6a7_b8c9);

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/envelopes/rust-sdk")
}

fn sdk() -> Option<SdkInfo> {
    Some(SdkInfo {
        name: "ingest.rust".into(),
        version: "0.1.0".into(),
    })
}

fn attrs() -> SessionAttributes {
    SessionAttributes {
        release: "shop@1.2.3".into(),
        environment: Some("production".into()),
    }
}

fn session(init: bool, status: SessionStatus, errors: u64, duration: Option<f64>) -> Item {
    Item::Session(SessionUpdate {
        sid: SID,
        init,
        started: Timestamp::from_unix_secs(T0 - 60.0),
        timestamp: Timestamp::from_unix_secs(T0),
        status,
        errors,
        duration,
        attrs: attrs(),
    })
}

fn frame(function: &str, file: &str, line: u32, in_app: bool) -> Frame {
    let mut frame = Frame::default();
    frame.function = Some(function.into());
    frame.filename = Some(file.into());
    frame.lineno = Some(line);
    frame.colno = Some(9);
    frame.in_app = Some(in_app);
    frame
}

fn stacktrace(frames: Vec<Frame>) -> Stacktrace {
    let mut trace = Stacktrace::default();
    trace.frames = frames;
    trace
}

fn breadcrumb(message: &str, level: Level, data: Option<(&str, serde_json::Value)>) -> Breadcrumb {
    let mut crumb = Breadcrumb::new(message);
    crumb.timestamp = Timestamp::from_unix_secs(T0 - 1.5);
    crumb.ty = "default".into();
    crumb.category = Some("shop::checkout".into());
    crumb.level = level;
    crumb.data = data.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    crumb
}

fn base_event(level: Level) -> Event {
    let mut event = Event::with_id(EVENT_ID, Timestamp::from_unix_secs(T0));
    event.level = level;
    event.release = Some("shop@1.2.3".into());
    event.environment = Some("production".into());
    event.sdk = sdk();
    event
}

fn error_chain_with_session() -> Envelope {
    let mut event = base_event(Level::Error);
    let mut cause = Exception::default();
    cause.ty = "Os".into();
    cause.value = Some("No such file or directory (os error 2)".into());
    let mut error = Exception::default();
    error.ty = "shop::ConfigError".into();
    error.value = Some("loading config failed".into());
    error.mechanism = Some(Mechanism {
        ty: "generic".into(),
        handled: Some(true),
    });
    error.stacktrace = Some(stacktrace(vec![
        frame(
            "std::rt::lang_start_internal",
            "/rustc/library/std/src/rt.rs",
            175,
            false,
        ),
        frame("shop::main", "./src/main.rs", 12, true),
        frame("shop::config::load", "./src/config.rs", 40, true),
    ]));
    event.exception = vec![cause, error];
    event.tags = BTreeMap::from([
        ("region".into(), "eu".into()),
        ("tier".into(), "paid".into()),
    ]);
    let mut user = User::default();
    user.id = Some("u-7".into());
    user.email = Some("bob@example.com".into());
    user.ip_address = Some("{{auto}}".into());
    event.user = Some(user);
    event.breadcrumbs = vec![
        breadcrumb(
            "opening cart",
            Level::Info,
            Some(("items", serde_json::json!(3))),
        ),
        breadcrumb("cart total is \"12.50\" €", Level::Warning, None),
    ];
    Envelope::new()
        .with_item(Item::Event(Box::new(event)))
        .with_item(session(true, SessionStatus::Ok, 1, None))
}

fn message_with_fingerprint() -> Envelope {
    let mut event = base_event(Level::Info);
    event.message = Some("payment provider slow\nsecond line".into());
    event.logger = Some("shop::payments".into());
    event.fingerprint = vec!["{{ default }}".into(), "payments".into()];
    Envelope::new().with_item(Item::Event(Box::new(event)))
}

fn panic_crash() -> Envelope {
    let mut event = base_event(Level::Fatal);
    let mut panic = Exception::default();
    panic.ty = "panic".into();
    panic.value = Some("index out of bounds: the len is 3 but the index is 7".into());
    panic.mechanism = Some(Mechanism {
        ty: "panic".into(),
        handled: Some(false),
    });
    panic.stacktrace = Some(stacktrace(vec![
        frame("shop::main", "./src/main.rs", 20, true),
        frame("shop::worker::{{closure}}", "./src/worker.rs", 8, true),
    ]));
    event.exception = vec![panic];
    let report = ClientReport {
        timestamp: Timestamp::from_unix_secs(T0),
        discarded_events: vec![DiscardedEvent {
            reason: DiscardReason::QueueOverflow,
            category: DataCategory::Error,
            quantity: 2,
        }],
    };
    Envelope::new()
        .with_item(Item::Event(Box::new(event)))
        .with_item(session(false, SessionStatus::Crashed, 2, Some(60.0)))
        .with_item(Item::ClientReport(report))
}

fn session_exited() -> Envelope {
    Envelope::new().with_item(session(true, SessionStatus::Exited, 0, Some(60.0)))
}

fn check_in_open() -> Envelope {
    let mut check_in = CheckIn::new("nightly-report", CheckInStatus::InProgress);
    check_in.check_in_id = Uuid::from_u128(0xa460_c25f_f255_4577_b920_fcfa_cae4_e5eb);
    check_in.release = Some("shop@1.2.3".into());
    check_in.environment = Some("production".into());
    let mut config = MonitorConfig::new(MonitorSchedule::Crontab {
        value: "0 3 * * *".into(),
    });
    config.checkin_margin = Some(5);
    config.max_runtime = Some(30);
    config.timezone = Some("Europe/Berlin".into());
    check_in.monitor_config = Some(config);
    Envelope::new().with_item(Item::CheckIn(check_in))
}

fn check_in_close() -> Envelope {
    let mut open = CheckIn::new("hourly-sync", CheckInStatus::InProgress);
    open.check_in_id = Uuid::from_u128(0xb5a2_43e7_119f_4248_920f_4b50_7ec9_c627);
    open.monitor_config = Some(MonitorConfig::new(MonitorSchedule::Interval {
        value: 1,
        unit: "hour".into(),
    }));
    let mut closed = open.finish(CheckInStatus::Error, 12.5);
    closed.monitor_config = open.monitor_config.clone();
    Envelope::new().with_item(Item::CheckIn(closed))
}

fn client_report() -> Envelope {
    let discarded = [
        (DiscardReason::RatelimitBackoff, DataCategory::Error, 3),
        (DiscardReason::QueueOverflow, DataCategory::Session, 1),
        (DiscardReason::NetworkError, DataCategory::Monitor, 2),
        (DiscardReason::SendError, DataCategory::Error, 1),
    ];
    let report = ClientReport {
        timestamp: Timestamp::from_unix_secs(T0),
        discarded_events: discarded
            .into_iter()
            .map(|(reason, category, quantity)| DiscardedEvent {
                reason,
                category,
                quantity,
            })
            .collect(),
    };
    Envelope::new().with_item(Item::ClientReport(report))
}

fn check(name: &str, envelope: Envelope) {
    let bytes = envelope.to_bytes().unwrap();
    let path = fixture_dir().join(format!("{name}.envelope"));
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::create_dir_all(fixture_dir()).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        return;
    }
    let expected = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (create it with UPDATE_FIXTURES=1)", path.display()));
    assert!(
        bytes == expected,
        "{name}: serializer output differs from the fixture\n--- fixture\n{}\n--- produced\n{}",
        String::from_utf8_lossy(&expected),
        String::from_utf8_lossy(&bytes)
    );
}

#[test]
fn error_chain_with_session_matches_fixture() {
    check(
        "ingest-rust-error-chain-with-session",
        error_chain_with_session(),
    );
}

#[test]
fn message_with_fingerprint_matches_fixture() {
    check(
        "ingest-rust-message-fingerprint",
        message_with_fingerprint(),
    );
}

#[test]
fn panic_crash_matches_fixture() {
    check("ingest-rust-panic-crashed-session", panic_crash());
}

#[test]
fn session_exited_matches_fixture() {
    check("ingest-rust-session-exited", session_exited());
}

#[test]
fn check_in_open_matches_fixture() {
    check("ingest-rust-check-in-crontab", check_in_open());
}

#[test]
fn check_in_close_matches_fixture() {
    check("ingest-rust-check-in-interval-error", check_in_close());
}

#[test]
fn client_report_matches_fixture() {
    check("ingest-rust-client-report", client_report());
}

/// A hand-written envelope: guards against the serializer and its fixtures drifting
/// together (the framing itself is pinned here, independent of the generated files).
#[test]
fn framing_is_pinned_independently() {
    let mut event = Event::with_id(Uuid::from_u128(0xab), Timestamp::from_unix_secs(1.5));
    event.message = Some("hi".into());
    let bytes = Envelope::new()
        .with_item(Item::Event(Box::new(event)))
        .to_bytes()
        .unwrap();
    let payload = r#"{"event_id":"000000000000000000000000000000ab","timestamp":1.5,"platform":"native","level":"error","message":"hi"}"#;
    let expected = format!(
        "{{\"event_id\":\"000000000000000000000000000000ab\"}}\n{{\"type\":\"event\",\"length\":{}}}\n{payload}\n",
        payload.len()
    );
    assert_eq!(String::from_utf8(bytes).unwrap(), expected);
}
