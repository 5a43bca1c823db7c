//! A `tracing-subscriber` layer. By default (as `sentry-tracing`'s `default_event_filter`)
//! ERROR records become events, WARN and INFO records breadcrumbs on the current hub's scope
//! (so they show up on the next event), DEBUG and TRACE records are ignored; an
//! [`TracingLayer::event_filter`] decides otherwise.
//!
//! ```
//! use ingest_sdk::integrations::tracing_layer::{self, EventFilter};
//! use tracing_subscriber::layer::SubscriberExt;
//!
//! // Also keep DEBUG records as breadcrumbs; WARN records become events.
//! let layer = tracing_layer::layer().event_filter(|metadata| match *metadata.level() {
//!     tracing_core::Level::ERROR | tracing_core::Level::WARN => EventFilter::Event,
//!     tracing_core::Level::TRACE => EventFilter::Ignore,
//!     _ => EventFilter::Breadcrumb,
//! });
//! let subscriber = tracing_subscriber::registry().with(layer);
//! # drop(subscriber);
//! ```
//!
//! The record's `message` becomes the event message or breadcrumb text; a field recorded
//! as an error (`error = &err as &dyn std::error::Error`) becomes the event's exception
//! chain. Other fields become breadcrumb data; on events they are not sent.

use crate::hub::Hub;
use crate::protocol::{Breadcrumb, Event, Level, Timestamp};
use crate::stacktrace::exception_chain;
use serde_json::Value;
use std::collections::BTreeMap;
use std::error::Error;
use std::fmt;
use std::sync::Arc;
use tracing_core::field::{Field, Visit};
use tracing_core::{Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

/// What the layer makes of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EventFilter {
    /// Nothing.
    Ignore,
    /// A breadcrumb on the current scope.
    Breadcrumb,
    /// An event.
    Event,
}

/// The default filter: ERROR → event, WARN and INFO → breadcrumb, DEBUG and TRACE ignored.
pub fn default_event_filter(metadata: &Metadata<'_>) -> EventFilter {
    match *metadata.level() {
        tracing_core::Level::ERROR => EventFilter::Event,
        tracing_core::Level::WARN | tracing_core::Level::INFO => EventFilter::Breadcrumb,
        _ => EventFilter::Ignore,
    }
}

type Filter = dyn Fn(&Metadata<'_>) -> EventFilter + Send + Sync;

/// The layer; see the module docs.
#[derive(Clone)]
pub struct TracingLayer {
    filter: Arc<Filter>,
}

impl Default for TracingLayer {
    fn default() -> Self {
        Self {
            filter: Arc::new(default_event_filter),
        }
    }
}

impl fmt::Debug for TracingLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TracingLayer").finish_non_exhaustive()
    }
}

impl TracingLayer {
    /// Replaces the [`default_event_filter`].
    pub fn event_filter(
        mut self,
        filter: impl Fn(&Metadata<'_>) -> EventFilter + Send + Sync + 'static,
    ) -> Self {
        self.filter = Arc::new(filter);
        self
    }
}

/// A new [`TracingLayer`] with the [`default_event_filter`].
pub fn layer() -> TracingLayer {
    TracingLayer::default()
}

impl<S: Subscriber> Layer<S> for TracingLayer {
    fn on_event(&self, event: &tracing_core::Event<'_>, _ctx: Context<'_, S>) {
        let metadata = event.metadata();
        let action = (self.filter)(metadata);
        if action == EventFilter::Ignore {
            return;
        }
        let hub = Hub::current();
        if hub.client().is_none() {
            return;
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        if action == EventFilter::Event {
            let mut captured = fields.into_event(metadata);
            captured.level = level(metadata.level());
            hub.capture_event(captured);
        } else {
            hub.add_breadcrumb(fields.into_breadcrumb(metadata));
        }
    }
}

/// Maps a `tracing` level to an event level.
pub fn level(level: &tracing_core::Level) -> Level {
    match *level {
        tracing_core::Level::ERROR => Level::Error,
        tracing_core::Level::WARN => Level::Warning,
        tracing_core::Level::INFO => Level::Info,
        _ => Level::Debug,
    }
}

#[derive(Default)]
struct Fields {
    message: Option<String>,
    error: Option<Event>,
    data: BTreeMap<String, Value>,
}

impl Fields {
    fn text(&self) -> Option<String> {
        self.message.clone().or_else(|| {
            (!self.data.is_empty()).then(|| {
                let parts: Vec<String> =
                    self.data.iter().map(|(k, v)| format!("{k}={v}")).collect();
                parts.join(" ")
            })
        })
    }

    fn into_event(self, metadata: &Metadata<'_>) -> Event {
        let message = self.text();
        let mut event = self.error.unwrap_or_default();
        event.level = Level::Error;
        event.logger = Some(metadata.target().to_owned());
        event.message = message;
        event
    }

    fn into_breadcrumb(self, metadata: &Metadata<'_>) -> Breadcrumb {
        Breadcrumb {
            timestamp: Timestamp::now(),
            ty: "default".to_owned(),
            category: Some(metadata.target().to_owned()),
            message: self.text(),
            level: level(metadata.level()),
            data: if self.message.is_some() {
                self.data
            } else {
                BTreeMap::new()
            },
        }
    }

    fn insert(&mut self, field: &Field, value: Value) {
        self.data.insert(field.name().to_owned(), value);
    }
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let text = format!("{value:?}");
        if field.name() == "message" {
            self.message = Some(text);
        } else {
            self.insert(field, Value::String(text));
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message = Some(value.to_owned());
        } else {
            self.insert(field, Value::String(value.to_owned()));
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.insert(field, Value::from(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.insert(field, Value::from(value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.insert(field, Value::from(value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.insert(field, Value::from(value));
    }

    fn record_error(&mut self, field: &Field, value: &(dyn Error + 'static)) {
        let mut event = Event::new();
        event.exception = exception_chain(value, "tracing", true);
        self.error = Some(event);
        self.insert(field, Value::String(value.to_string()));
    }
}
