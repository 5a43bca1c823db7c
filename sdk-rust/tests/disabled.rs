//! Without a DSN (and without `SENTRY_DSN`) the SDK is disabled: every call is a no-op.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ingest_sdk::{ClientOptions, Level};

#[test]
fn no_dsn_means_every_call_is_a_no_op() {
    // The test runner's environment must not enable the SDK behind this test's back.
    assert!(
        std::env::var("SENTRY_DSN")
            .unwrap_or_default()
            .trim()
            .is_empty()
    );
    let guard = ingest_sdk::init(ClientOptions::new("").unwrap());
    assert!(!guard.is_enabled());
    assert!(guard.client().is_none());
    assert_eq!(ingest_sdk::capture_message("dropped", Level::Error), None);
    assert_eq!(
        ingest_sdk::capture_error(&std::fmt::Error as &dyn std::error::Error),
        None
    );
    let mut ran = false;
    ingest_sdk::configure_scope(|_| ran = true);
    assert!(!ran, "no scope work without a client");
    assert_eq!(ingest_sdk::last_event_id(), None);
    assert!(ingest_sdk::flush(std::time::Duration::from_millis(10)));
    drop(guard);

    // The default options are disabled too.
    assert!(!ingest_sdk::init(ClientOptions::default()).is_enabled());
}
