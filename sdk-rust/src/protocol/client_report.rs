//! The `client_report` payload: what the SDK dropped, and why.

use super::Timestamp;
use serde::Serialize;
use std::fmt;

/// Why the SDK dropped something.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DiscardReason {
    /// A rate limit announced by the server was still active.
    RatelimitBackoff,
    /// The send queue was full.
    QueueOverflow,
    /// The request failed without an HTTP response.
    NetworkError,
    /// The server answered with an error status (other than 429).
    SendError,
}

/// Rate-limit and outcome category of an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DataCategory {
    /// Error and message events.
    Error,
    /// Session updates.
    Session,
    /// Cron check-ins.
    Monitor,
    /// The SDK's own reports (limited only by an "all categories" limit).
    Internal,
}

impl DataCategory {
    /// The category's name in rate-limit headers and client reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Session => "session",
            Self::Monitor => "monitor",
            Self::Internal => "internal",
        }
    }
}

impl fmt::Display for DataCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One counter of dropped items.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DiscardedEvent {
    /// Why they were dropped.
    pub reason: DiscardReason,
    /// What was dropped.
    pub category: DataCategory,
    /// How many.
    pub quantity: u64,
}

/// A client report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClientReport {
    /// When the report was made.
    pub timestamp: Timestamp,
    /// The drop counters.
    pub discarded_events: Vec<DiscardedEvent>,
}
