//! The wire types: only the fields the ingest service reads.

mod checkin;
mod client_report;
mod envelope;
mod event;
mod session;

pub use checkin::{CheckIn, CheckInStatus, MonitorConfig, MonitorSchedule};
pub use client_report::{ClientReport, DataCategory, DiscardReason, DiscardedEvent};
pub use envelope::{Envelope, Item};
pub use event::{Breadcrumb, Event, Exception, Frame, Level, Mechanism, SdkInfo, Stacktrace, User};
pub use session::{SessionAttributes, SessionStatus, SessionUpdate};

use serde::{Serialize, Serializer};
use std::fmt;

/// A 128-bit identifier (event ids, session ids, check-in ids), written as 32 hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uuid(u128);

impl Uuid {
    /// A random (version 4) id.
    pub fn new_v4() -> Self {
        let raw = crate::platform::random_u128();
        // Version nibble 4 and the RFC 4122 variant bits.
        let raw = (raw & !(0xf << 76) & !(0b11 << 62)) | (0x4 << 76) | (0b10 << 62);
        Self(raw)
    }

    /// An id with the given bits (useful for fixed ids in tests).
    pub const fn from_u128(value: u128) -> Self {
        Self(value)
    }

    /// The id's bits.
    pub const fn as_u128(self) -> u128 {
        self.0
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl fmt::Debug for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Uuid({self})")
    }
}

impl Serialize for Uuid {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A point in time, stored as seconds since the Unix epoch.
///
/// Serialises as a float (events, breadcrumbs, client reports); session updates
/// write it as RFC 3339 text instead.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Timestamp(f64);

impl Timestamp {
    /// The current wall-clock time.
    pub fn now() -> Self {
        Self(crate::platform::now_unix_secs())
    }

    /// A timestamp from Unix seconds.
    pub const fn from_unix_secs(secs: f64) -> Self {
        Self(secs)
    }

    /// Seconds since the Unix epoch.
    pub const fn as_unix_secs(self) -> f64 {
        self.0
    }

    /// RFC 3339 text in UTC with milliseconds, e.g. `2026-01-01T00:00:00.000Z`.
    pub fn to_rfc3339(self) -> String {
        crate::time::format_rfc3339(self.0)
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.0)
    }
}

/// Serialises a [`Timestamp`] as RFC 3339 text (for `serialize_with`).
fn serialize_rfc3339<S: Serializer>(ts: &Timestamp, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&ts.to_rfc3339())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_v4_has_version_and_variant() {
        let id = Uuid::new_v4().to_string();
        assert_eq!(id.len(), 32);
        assert_eq!(&id[12..13], "4");
        assert!(matches!(&id[16..17], "8" | "9" | "a" | "b"), "{id}");
        assert_ne!(Uuid::new_v4(), Uuid::new_v4());
    }

    #[test]
    fn uuid_serialises_as_hex_string() {
        let id = Uuid::from_u128(0xab);
        assert_eq!(
            serde_json::to_string(&id).unwrap(),
            "\"000000000000000000000000000000ab\""
        );
    }
}
