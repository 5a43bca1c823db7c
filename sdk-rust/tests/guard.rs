//! The init guard: dropping it flushes the sender within a bounded time, and the
//! session ends `exited` (or `crashed` after a panic).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{CaptureServer, Reply};
use ingest_sdk::{ClientOptions, Level};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The tests share the process-wide client.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn slow_server() -> CaptureServer {
    CaptureServer::start(|_| Reply {
        delay: Duration::from_millis(40),
        ..Reply::ok()
    })
}

fn sessions(server: &CaptureServer) -> Vec<Value> {
    server
        .requests()
        .iter()
        .flat_map(|r| r.items())
        .filter(|(ty, _)| ty == "session")
        .map(|(_, payload)| payload)
        .collect()
}

#[test]
fn dropping_the_guard_sends_everything_still_queued() {
    let _serial = serial();
    let server = slow_server();
    let options = ClientOptions::new(&server.dsn())
        .unwrap()
        .release("guard@1.0.0");
    let guard = ingest_sdk::init(options);
    let ids: Vec<_> = (0..5)
        .map(|i| ingest_sdk::capture_message(&format!("queued {i}"), Level::Info).unwrap())
        .collect();
    // Each request takes 40 ms, so most of the queue is still waiting here.
    assert!(
        server.requests().len() < 5,
        "the server is slower than the captures"
    );
    drop(guard);

    let requests = server.requests();
    let sent: Vec<String> = requests
        .iter()
        .flat_map(|r| r.items())
        .filter(|(ty, _)| ty == "event")
        .map(|(_, e)| e["event_id"].as_str().unwrap().to_owned())
        .collect();
    let expected: Vec<String> = ids.iter().map(ToString::to_string).collect();
    assert_eq!(
        sent, expected,
        "every queued event was sent before drop returned"
    );
    for r in &requests {
        assert_eq!(r.method, "POST");
        assert_eq!(r.path, "/api/42/envelope/");
        let auth = r.header("x-sentry-auth").unwrap();
        assert!(
            auth.starts_with(
                "Sentry sentry_key=abc123, sentry_version=7, sentry_client=ingest.rust/"
            ),
            "{auth}"
        );
    }
    let sessions = sessions(&server);
    assert_eq!(
        sessions.len(),
        1,
        "messages are not errors: only the final update"
    );
    assert_eq!(sessions[0]["status"], "exited");
    assert_eq!(sessions[0]["init"], true);
    assert_eq!(sessions[0]["attrs"]["release"], "guard@1.0.0");
    assert!(ingest_sdk::capture_message("after drop", Level::Info).is_none());
}

#[test]
fn drop_returns_within_the_shutdown_timeout_when_the_server_hangs() {
    let _serial = serial();
    let server = CaptureServer::start(|_| Reply {
        delay: Duration::from_secs(60),
        ..Reply::ok()
    });
    let options = ClientOptions::new(&server.dsn())
        .unwrap()
        .shutdown_timeout(Duration::from_millis(300));
    let guard = ingest_sdk::init(options);
    ingest_sdk::capture_message("stuck", Level::Error);
    let started = Instant::now();
    drop(guard);
    let elapsed = started.elapsed();
    assert!(
        elapsed >= Duration::from_millis(250),
        "it did wait: {elapsed:?}"
    );
    assert!(elapsed < Duration::from_secs(3), "bounded: {elapsed:?}");
}

#[test]
fn errors_open_the_session_and_a_panic_ends_it_crashed() {
    let _serial = serial();
    let server = CaptureServer::start(|_| Reply::ok());
    let options = ClientOptions::new(&server.dsn())
        .unwrap()
        .release("crash@2.0.0")
        .environment("test");
    let guard = ingest_sdk::init(options);
    ingest_sdk::capture_error(&std::io::Error::other("first"));
    let worker = std::thread::spawn(|| panic!("worker exploded"));
    assert!(worker.join().is_err());
    let panic_id = ingest_sdk::last_event_id().unwrap();
    drop(guard);

    let requests = server.requests();
    let panic_event = requests
        .iter()
        .flat_map(|r| r.items())
        .find(|(ty, e)| ty == "event" && e["event_id"] == panic_id.to_string())
        .map(|(_, e)| e)
        .expect("the panic was reported");
    assert_eq!(panic_event["level"], "fatal");
    let exception = &panic_event["exception"]["values"][0];
    assert_eq!(exception["type"], "panic");
    assert_eq!(exception["value"], "worker exploded");
    assert_eq!(
        exception["mechanism"],
        serde_json::json!({"type": "panic", "handled": false})
    );
    let frames = exception["stacktrace"]["frames"].as_array().unwrap();
    let crash_site = frames.last().unwrap();
    assert!(
        crash_site["function"]
            .as_str()
            .unwrap()
            .starts_with("guard::"),
        "innermost frame is the test's closure, not panic machinery: {crash_site}"
    );
    assert_eq!(crash_site["in_app"], true);

    let sessions = sessions(&server);
    let summary: Vec<_> = sessions
        .iter()
        .map(|s| {
            (
                s["init"].as_bool().unwrap(),
                s["status"].as_str().unwrap(),
                s["errors"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [(true, "ok", 1), (false, "crashed", 2)],
        "no `exited` after a crash"
    );
    assert_eq!(sessions[0]["sid"], sessions[1]["sid"]);
}

#[test]
fn a_panic_while_the_scope_is_locked_is_still_reported() {
    let _serial = serial();
    let recorder = common::Recorder::default();
    let transport = recorder.clone();
    let options = ClientOptions::new("http://abc123@127.0.0.1:9/42")
        .unwrap()
        .transport(move |_: &ClientOptions| {
            Arc::new(transport.clone()) as Arc<dyn ingest_sdk::transport::Transport>
        });
    let guard = ingest_sdk::init(options);
    ingest_sdk::set_tag("before", "panic");
    let result = std::panic::catch_unwind(|| {
        ingest_sdk::configure_scope(|_| panic!("inside configure_scope"));
    });
    assert!(result.is_err());
    // The scope survived the poisoning and still applies to later events.
    ingest_sdk::capture_message("after", Level::Info);
    drop(guard);

    let events: Vec<_> = recorder
        .envelopes()
        .iter()
        .flat_map(|e| e.items().to_vec())
        .filter_map(|item| match item {
            ingest_sdk::protocol::Item::Event(event) => Some(event),
            _ => None,
        })
        .collect();
    assert_eq!(events.len(), 2);
    assert_eq!(
        events[0].exception[0].value.as_deref(),
        Some("inside configure_scope")
    );
    assert_eq!(
        events[1].tags.get("before").map(String::as_str),
        Some("panic")
    );
}
