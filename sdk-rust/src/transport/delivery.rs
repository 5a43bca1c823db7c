//! What every sender does around the HTTP call: drop rate-limited items, count every
//! drop for client reports, attach pending reports, and read limits from responses.

use super::rate_limit::RateLimits;
use crate::protocol::{
    ClientReport, DataCategory, DiscardReason, DiscardedEvent, Envelope, Item, Timestamp,
};
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The parts of an HTTP response a sender needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResponseInfo {
    /// HTTP status code.
    pub status: u16,
    /// The `X-Sentry-Rate-Limits` header.
    pub rate_limits: Option<String>,
    /// The `Retry-After` header.
    pub retry_after: Option<String>,
}

/// Shared bookkeeping of one sender: active rate limits and drop counters.
#[derive(Debug, Default)]
pub struct Delivery {
    limits: Mutex<RateLimits>,
    discarded: Mutex<BTreeMap<(DiscardReason, DataCategory), u64>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Delivery {
    /// Fresh bookkeeping with no limits and no drops.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts `items` as dropped for `reason` (client reports themselves are not counted).
    pub fn record(&self, reason: DiscardReason, items: &[Item]) {
        let mut discarded = lock(&self.discarded);
        for item in items {
            let category = item.category();
            if category != DataCategory::Internal {
                *discarded.entry((reason, category)).or_insert(0) += 1;
            }
        }
    }

    /// Counts one dropped item of `category`.
    pub fn record_one(&self, reason: DiscardReason, category: DataCategory) {
        *lock(&self.discarded).entry((reason, category)).or_insert(0) += 1;
    }

    /// Takes the pending drop counters as a report, if there are any.
    pub fn take_report(&self, now: f64) -> Option<ClientReport> {
        let discarded = std::mem::take(&mut *lock(&self.discarded));
        if discarded.is_empty() {
            return None;
        }
        let discarded_events = discarded
            .into_iter()
            .map(|((reason, category), quantity)| DiscardedEvent {
                reason,
                category,
                quantity,
            })
            .collect();
        Some(ClientReport {
            timestamp: Timestamp::from_unix_secs(now),
            discarded_events,
        })
    }

    /// A standalone envelope carrying the pending report, if there is one.
    pub fn take_report_envelope(&self, now: f64) -> Option<Envelope> {
        self.take_report(now)
            .map(|report| Envelope::new().with_item(Item::ClientReport(report)))
    }

    /// Drops rate-limited items (counted as `ratelimit_backoff`) and appends the pending
    /// report. Returns `None` when nothing is left to send.
    pub fn prepare(&self, mut envelope: Envelope, now: f64) -> Option<Envelope> {
        let dropped = {
            let limits = lock(&self.limits);
            envelope.take_items_where(|item| limits.is_limited(item.category(), now))
        };
        self.record(DiscardReason::RatelimitBackoff, &dropped);
        if envelope.is_empty() {
            return None;
        }
        let carries_report = envelope
            .items()
            .iter()
            .any(|i| matches!(i, Item::ClientReport(_)));
        if !carries_report && let Some(report) = self.take_report(now) {
            envelope.add_item(Item::ClientReport(report));
        }
        Some(envelope)
    }

    /// Reads limits from a response to `sent` and counts its items if the server refused them.
    pub fn on_response(&self, response: &ResponseInfo, sent: &Envelope, now: f64) {
        {
            let mut limits = lock(&self.limits);
            if let Some(header) = &response.rate_limits {
                limits.update_from_header(header, now);
            } else if response.status == 429 {
                limits.update_from_429(response.retry_after.as_deref(), now);
            }
        }
        // A 429 is already counted by the server as rate limited; other errors are ours.
        if (400..600).contains(&response.status) && response.status != 429 {
            self.record(DiscardReason::SendError, sent.items());
        }
    }

    /// Counts the items of `sent` as lost to a network error.
    pub fn on_network_error(&self, sent: &Envelope) {
        self.record(DiscardReason::NetworkError, sent.items());
    }

    /// Whether `category` is currently rate limited.
    pub fn is_limited(&self, category: DataCategory, now: f64) -> bool {
        lock(&self.limits).is_limited(category, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{CheckIn, CheckInStatus, Event, Uuid};

    fn event() -> Item {
        Item::Event(Box::new(Event::with_id(
            Uuid::from_u128(1),
            Timestamp::from_unix_secs(0.0),
        )))
    }

    fn check_in() -> Item {
        Item::CheckIn(CheckIn::new("job", CheckInStatus::Ok))
    }

    fn counts(report: &ClientReport) -> Vec<(DiscardReason, DataCategory, u64)> {
        report
            .discarded_events
            .iter()
            .map(|d| (d.reason, d.category, d.quantity))
            .collect()
    }

    fn response(status: u16, rate_limits: Option<&str>) -> ResponseInfo {
        ResponseInfo {
            status,
            rate_limits: rate_limits.map(str::to_owned),
            retry_after: None,
        }
    }

    #[test]
    fn limited_items_are_dropped_and_reported_with_the_next_envelope() {
        let d = Delivery::new();
        let sent = Envelope::new().with_item(event());
        d.on_response(
            &response(429, Some("60:error:project:quota_exceeded")),
            &sent,
            0.0,
        );
        assert!(d.prepare(Envelope::new().with_item(event()), 1.0).is_none());
        assert!(d.prepare(Envelope::new().with_item(event()), 2.0).is_none());

        let out = d
            .prepare(Envelope::new().with_item(check_in()), 3.0)
            .unwrap();
        assert_eq!(out.items().len(), 2);
        let Item::ClientReport(report) = &out.items()[1] else {
            panic!("expected a client report, got {:?}", out.items()[1]);
        };
        assert_eq!(
            counts(report),
            vec![(DiscardReason::RatelimitBackoff, DataCategory::Error, 2)]
        );
        assert!(
            d.take_report(4.0).is_none(),
            "the report is taken only once"
        );
        assert!(
            d.prepare(Envelope::new().with_item(event()), 61.0)
                .is_some()
        );
    }

    #[test]
    fn server_errors_count_as_send_error_but_429_does_not() {
        let d = Delivery::new();
        let sent = Envelope::new().with_item(event()).with_item(check_in());
        d.on_response(&response(500, None), &sent, 0.0);
        d.on_response(&response(429, None), &sent, 0.0);
        d.on_response(&response(200, None), &sent, 0.0);
        let report = d.take_report(0.0).unwrap();
        assert_eq!(
            counts(&report),
            vec![
                (DiscardReason::SendError, DataCategory::Error, 1),
                (DiscardReason::SendError, DataCategory::Monitor, 1),
            ]
        );
        // The bare 429 limited everything for 60 s.
        assert!(d.is_limited(DataCategory::Monitor, 59.0));
        assert!(!d.is_limited(DataCategory::Monitor, 60.0));
    }

    #[test]
    fn rate_limit_header_wins_over_retry_after() {
        let d = Delivery::new();
        let resp = ResponseInfo {
            status: 429,
            rate_limits: Some("10:session:key".into()),
            retry_after: Some("100".into()),
        };
        d.on_response(&resp, &Envelope::new(), 0.0);
        assert!(d.is_limited(DataCategory::Session, 5.0));
        assert!(!d.is_limited(DataCategory::Error, 5.0));
    }

    #[test]
    fn network_errors_are_counted_without_reports_counting_themselves() {
        let d = Delivery::new();
        d.record_one(DiscardReason::QueueOverflow, DataCategory::Session);
        let sent = d.prepare(Envelope::new().with_item(event()), 0.0).unwrap();
        d.on_network_error(&sent);
        let report = d.take_report(0.0).unwrap();
        assert_eq!(
            counts(&report),
            vec![(DiscardReason::NetworkError, DataCategory::Error, 1)]
        );
    }

    #[test]
    fn report_envelope_is_sent_alone_when_pending() {
        let d = Delivery::new();
        assert!(d.take_report_envelope(0.0).is_none());
        d.record_one(DiscardReason::QueueOverflow, DataCategory::Error);
        let env = d.take_report_envelope(0.0).unwrap();
        let env = d.prepare(env, 0.0).unwrap();
        assert_eq!(env.items().len(), 1);
        assert_eq!(env.event_id(), None);
    }
}
