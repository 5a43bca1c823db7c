//! The `session` payload: one update of a release-health session.

use super::{Timestamp, Uuid, serialize_rfc3339};
use serde::Serialize;

/// State of a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SessionStatus {
    /// Running.
    Ok,
    /// Ended normally.
    Exited,
    /// Ended by a crash (a panic).
    Crashed,
    /// Ended in an unknown way.
    Abnormal,
}

impl SessionStatus {
    /// Whether this status ends the session.
    pub fn is_terminal(self) -> bool {
        self != Self::Ok
    }
}

/// Release and environment a session belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SessionAttributes {
    /// Release label (required by the service).
    pub release: String,
    /// Environment label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
}

/// One update of a session, as sent in a `session` item.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SessionUpdate {
    /// Session id.
    pub sid: Uuid,
    /// `true` on the first update of the session.
    pub init: bool,
    /// When the session started.
    #[serde(serialize_with = "serialize_rfc3339")]
    pub started: Timestamp,
    /// When this update was made.
    #[serde(serialize_with = "serialize_rfc3339")]
    pub timestamp: Timestamp,
    /// Current state.
    pub status: SessionStatus,
    /// Errors seen so far in the session.
    pub errors: u64,
    /// Seconds from start to end, sent once the session has ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    /// Release and environment.
    pub attrs: SessionAttributes,
}
