//! The `tracing-layer` feature: by default ERROR records become events, WARN and INFO
//! breadcrumbs, DEBUG and TRACE nothing; a custom event filter changes that.
#![cfg(feature = "tracing-layer")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::Recorder;
use ingest_sdk::integrations::tracing_layer::EventFilter;
use ingest_sdk::protocol::{Item, Level};
use ingest_sdk::transport::Transport;
use ingest_sdk::{Client, ClientOptions, Hub, Scope, integrations::tracing_layer};
use std::sync::Arc;
use tracing_subscriber::layer::SubscriberExt;

#[derive(Debug)]
struct DiskFull;

impl std::fmt::Display for DiskFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("disk full")
    }
}

impl std::error::Error for DiskFull {}

#[test]
fn error_records_become_events_carrying_earlier_records_as_breadcrumbs() {
    let recorder = Recorder::default();
    let transport = recorder.clone();
    let options = ClientOptions::new("http://abc123@127.0.0.1:9/42")
        .unwrap()
        .session_tracking(false)
        .transport(move |_: &ClientOptions| Arc::new(transport.clone()) as Arc<dyn Transport>);
    let guard = ingest_sdk::init(options);
    let subscriber = tracing_subscriber::registry().with(tracing_layer::layer());
    tracing::subscriber::with_default(subscriber, || {
        tracing::debug!(target: "app::db", "connecting");
        tracing::info!(target: "app::db", rows = 42_u64, ok = true, "query done");
        tracing::warn!(target: "app::db", "slow query");
        tracing::error!(target: "app::jobs", "job failed");
        tracing::error!(target: "app::jobs", error = &DiskFull as &dyn std::error::Error, "flush failed");
    });
    drop(guard);

    let events: Vec<_> = recorder
        .envelopes()
        .into_iter()
        .flat_map(|e| e.items().to_vec())
        .filter_map(|i| match i {
            Item::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(events.len(), 2, "only ERROR records are events");

    let first = &events[0];
    assert_eq!(first.level, Level::Error);
    assert_eq!(first.message.as_deref(), Some("job failed"));
    assert_eq!(first.logger.as_deref(), Some("app::jobs"));
    let crumbs: Vec<_> = first
        .breadcrumbs
        .iter()
        .map(|b| {
            (
                b.category.as_deref().unwrap(),
                b.message.as_deref().unwrap(),
                b.level,
            )
        })
        .collect();
    assert_eq!(
        crumbs,
        [
            ("app::db", "query done", Level::Info),
            ("app::db", "slow query", Level::Warning),
        ]
    );
    let data = &first.breadcrumbs[0].data;
    assert_eq!(data["rows"], serde_json::json!(42));
    assert_eq!(data["ok"], serde_json::json!(true));

    let second = &events[1];
    assert_eq!(second.message.as_deref(), Some("flush failed"));
    assert_eq!(second.exception.len(), 1);
    assert_eq!(second.exception[0].ty, "DiskFull");
    assert_eq!(second.exception[0].value.as_deref(), Some("disk full"));
    assert_eq!(
        second.exception[0].mechanism.as_ref().unwrap().ty,
        "tracing"
    );
}

#[test]
fn a_custom_event_filter_decides_per_record() {
    let recorder = Recorder::default();
    let transport = recorder.clone();
    let options = ClientOptions::new("http://abc123@127.0.0.1:9/42")
        .unwrap()
        .session_tracking(false)
        .transport(move |_: &ClientOptions| Arc::new(transport.clone()) as Arc<dyn Transport>);
    // A hub with a client of its own: no global state shared with the other test.
    let hub = Arc::new(Hub::new(
        Some(Arc::new(Client::new(options))),
        Scope::default(),
    ));
    let layer = tracing_layer::layer().event_filter(|metadata| match *metadata.level() {
        tracing_core::Level::WARN => EventFilter::Event,
        tracing_core::Level::DEBUG => EventFilter::Breadcrumb,
        _ => EventFilter::Ignore,
    });
    let subscriber = tracing_subscriber::registry().with(layer);
    Hub::run(hub, || {
        tracing::subscriber::with_default(subscriber, || {
            tracing::debug!("kept as a breadcrumb");
            tracing::info!("ignored");
            tracing::error!("ignored too");
            tracing::warn!("disk almost full");
        });
    });
    let events: Vec<_> = recorder
        .envelopes()
        .into_iter()
        .flat_map(|e| e.items().to_vec())
        .filter_map(|i| match i {
            Item::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].message.as_deref(), Some("disk almost full"));
    assert_eq!(events[0].level, Level::Warning);
    let crumbs: Vec<_> = events[0]
        .breadcrumbs
        .iter()
        .filter_map(|b| b.message.as_deref())
        .collect();
    assert_eq!(crumbs, ["kept as a breadcrumb"]);
}
