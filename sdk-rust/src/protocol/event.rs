//! The `event` payload: errors and messages.

use super::{Timestamp, Uuid};
use serde::Serialize;
use std::collections::BTreeMap;

/// Severity of an event or breadcrumb.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Default)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Level {
    /// Debugging detail.
    Debug,
    /// Informational.
    Info,
    /// A warning.
    Warning,
    /// An error (the default for events).
    #[default]
    Error,
    /// A crash.
    Fatal,
}

/// An error or message report.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Event {
    /// Unique id of this event.
    pub event_id: Uuid,
    /// When the event happened.
    pub timestamp: Timestamp,
    /// The platform; always `native` for this SDK.
    pub platform: &'static str,
    /// Severity.
    pub level: Level,
    /// Name of the logger or `tracing` target that produced it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// A plain message (for message events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The exception chain, oldest (innermost cause) first, the raised error last.
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "serialize_values"
    )]
    pub exception: Vec<Exception>,
    /// Custom grouping fingerprint; empty means default grouping.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fingerprint: Vec<String>,
    /// Release label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// Environment label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
    /// Tags (sorted by key on the wire).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
    /// The affected user.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<User>,
    /// Trail of breadcrumbs, oldest first.
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "serialize_values"
    )]
    pub breadcrumbs: Vec<Breadcrumb>,
    /// The SDK that sent it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sdk: Option<SdkInfo>,
}

impl Event {
    /// An empty event with a fresh id, the current time and level `error`.
    pub fn new() -> Self {
        Self::with_id(Uuid::new_v4(), Timestamp::now())
    }

    /// An empty event with the given id and time.
    pub fn with_id(event_id: Uuid, timestamp: Timestamp) -> Self {
        Self {
            event_id,
            timestamp,
            platform: "native",
            level: Level::Error,
            logger: None,
            message: None,
            exception: Vec::new(),
            fingerprint: Vec::new(),
            release: None,
            environment: None,
            tags: BTreeMap::new(),
            user: None,
            breadcrumbs: Vec::new(),
            sdk: None,
        }
    }

    /// Whether this event counts as an error for release health.
    pub fn is_error(&self) -> bool {
        !self.exception.is_empty() || self.level >= Level::Error
    }
}

impl Default for Event {
    fn default() -> Self {
        Self::new()
    }
}

/// Writes a list as `{"values":[...]}`.
fn serialize_values<T: Serialize, S: serde::Serializer>(
    values: &[T],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Values<'a, T> {
        values: &'a [T],
    }
    Values { values }.serialize(serializer)
}

/// One exception in a chain.
#[derive(Clone, Debug, PartialEq, Serialize, Default)]
#[non_exhaustive]
pub struct Exception {
    /// The exception type, e.g. `std::io::Error` or `panic`.
    #[serde(rename = "type")]
    pub ty: String,
    /// The exception message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// How the exception was captured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mechanism: Option<Mechanism>,
    /// Where it was raised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stacktrace: Option<Stacktrace>,
}

/// How an exception reached the SDK.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mechanism {
    /// The capturing mechanism, e.g. `generic` or `panic`.
    #[serde(rename = "type")]
    pub ty: String,
    /// Whether the application handled the error itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handled: Option<bool>,
}

/// A stack trace; frames are ordered caller first, crash site last.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Default)]
#[non_exhaustive]
pub struct Stacktrace {
    /// The frames.
    pub frames: Vec<Frame>,
}

/// One stack frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Default)]
#[non_exhaustive]
pub struct Frame {
    /// Function name (demangled, without the hash suffix).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// Source file as recorded in debug info.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// 1-based line number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lineno: Option<u32>,
    /// 1-based column number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colno: Option<u32>,
    /// Whether the frame belongs to the application (not std or the SDK).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_app: Option<bool>,
}

/// The user an event affected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Default)]
#[non_exhaustive]
pub struct User {
    /// Application-specific id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// E-mail address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// User name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// IP address (`{{auto}}` asks the server to use the client address).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_address: Option<String>,
}

/// Something that happened before an event.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Breadcrumb {
    /// When it happened.
    pub timestamp: Timestamp,
    /// Breadcrumb type, `default` unless set.
    #[serde(rename = "type")]
    pub ty: String,
    /// Category, e.g. a `tracing` target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Human-readable text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Severity.
    pub level: Level,
    /// Structured extra data.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub data: BTreeMap<String, serde_json::Value>,
}

impl Breadcrumb {
    /// An `info` breadcrumb of type `default` with a message, stamped now.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            timestamp: Timestamp::now(),
            ty: "default".to_owned(),
            category: None,
            message: Some(message.into()),
            level: Level::Info,
            data: BTreeMap::new(),
        }
    }
}

/// Name and version of the sending SDK.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SdkInfo {
    /// SDK name, e.g. `ingest.rust`.
    pub name: String,
    /// SDK version.
    pub version: String,
}
