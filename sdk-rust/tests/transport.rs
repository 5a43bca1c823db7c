//! The native sender against a loopback server: rate limits, and client reports for
//! everything it drops.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{CaptureServer, Reply};
use ingest_sdk::protocol::{CheckIn, CheckInStatus};
use ingest_sdk::{Client, ClientOptions, Level};
use serde_json::{Value, json};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(5);

fn client(dsn: &str) -> Client {
    Client::new(ClientOptions::new(dsn).unwrap().session_tracking(false))
}

/// The `discarded_events` of every client report the server received.
fn reports(server: &CaptureServer) -> Vec<Value> {
    server
        .requests()
        .iter()
        .flat_map(|r| r.items())
        .filter(|(ty, _)| ty == "client_report")
        .flat_map(|(_, p)| p["discarded_events"].as_array().unwrap().clone())
        .collect()
}

#[test]
fn rate_limited_errors_are_dropped_and_reported_with_the_next_envelope() {
    let server = CaptureServer::start(|i| match i {
        0 => Reply {
            status: 429,
            headers: vec![
                (
                    "X-Sentry-Rate-Limits",
                    "60:error:project:quota_exceeded".into(),
                ),
                ("Retry-After", "60".into()),
            ],
            ..Reply::ok()
        },
        _ => Reply::ok(),
    });
    let client = client(&server.dsn());
    client.capture_message("first", Level::Error);
    assert!(client.flush(WAIT));
    client.capture_message("limited 1", Level::Error);
    client.capture_message("limited 2", Level::Warning);
    client.capture_check_in(CheckIn::new("nightly", CheckInStatus::Ok));
    assert!(client.flush(WAIT));

    let requests = server.requests();
    let types: Vec<Vec<String>> = requests
        .iter()
        .map(|r| r.items().into_iter().map(|(ty, _)| ty).collect())
        .collect();
    assert_eq!(
        types,
        [vec!["event"], vec!["check_in", "client_report"]],
        "limited events never left the process; the report rode on the check-in"
    );
    assert_eq!(
        reports(&server),
        [json!({"reason": "ratelimit_backoff", "category": "error", "quantity": 2})]
    );
}

#[test]
fn a_bare_429_limits_everything_for_retry_after() {
    let server = CaptureServer::start(|i| match i {
        0 => Reply {
            status: 429,
            headers: vec![("Retry-After", "30".into())],
            ..Reply::ok()
        },
        _ => Reply::ok(),
    });
    let client = client(&server.dsn());
    client.capture_message("first", Level::Error);
    assert!(client.flush(WAIT));
    client.capture_check_in(CheckIn::new("nightly", CheckInStatus::Ok));
    assert!(client.flush(WAIT));
    // The check-in was dropped; the flush report is limited too (all categories).
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn server_errors_are_reported_as_send_error_on_flush() {
    let server = CaptureServer::start(|i| match i {
        0 => Reply {
            status: 500,
            ..Reply::ok()
        },
        _ => Reply::ok(),
    });
    let client = client(&server.dsn());
    client.capture_message("lost", Level::Error);
    assert!(client.flush(WAIT));
    let requests = server.requests();
    assert_eq!(
        requests.len(),
        2,
        "the event, then a standalone report on flush"
    );
    let (header, items) = common::parse_envelope(&requests[1].body);
    assert_eq!(header, json!({}));
    assert_eq!(items.len(), 1);
    assert_eq!(
        items[0].1["discarded_events"],
        json!([{"reason": "send_error", "category": "error", "quantity": 1}])
    );
    assert!(items[0].1["timestamp"].as_f64().unwrap() > 1.7e9);
    assert!(client.flush(WAIT));
    assert_eq!(server.requests().len(), 2, "a report is sent once");
}

#[test]
fn network_errors_are_counted_and_reported_on_flush() {
    let server = CaptureServer::start(|i| if i < 2 { Reply::hang_up() } else { Reply::ok() });
    let client = client(&server.dsn());
    client.capture_message("cut off", Level::Error);
    server.wait_for(1, WAIT);
    client.capture_check_in(CheckIn::new("nightly", CheckInStatus::InProgress));
    assert!(client.flush(WAIT));
    assert_eq!(server.requests().len(), 3);
    assert_eq!(
        reports(&server),
        [
            json!({"reason": "network_error", "category": "error", "quantity": 1}),
            json!({"reason": "network_error", "category": "monitor", "quantity": 1}),
        ]
    );
}

#[test]
fn a_full_queue_drops_with_queue_overflow() {
    let server = CaptureServer::start(|_| Reply {
        delay: Duration::from_millis(200),
        ..Reply::ok()
    });
    let options = ClientOptions::new(&server.dsn())
        .unwrap()
        .session_tracking(false)
        .queue_size(1);
    let client = Client::new(options);
    client.capture_message("in flight", Level::Error);
    server.wait_for(1, WAIT);
    client.capture_message("queued", Level::Error);
    client.capture_message("overflow 1", Level::Error);
    client.capture_message("overflow 2", Level::Error);
    assert!(client.flush(WAIT));
    let events = server
        .requests()
        .iter()
        .flat_map(|r| r.items())
        .filter(|(ty, _)| ty == "event")
        .count();
    assert_eq!(events, 2);
    assert_eq!(
        reports(&server),
        [json!({"reason": "queue_overflow", "category": "error", "quantity": 2})]
    );
}
