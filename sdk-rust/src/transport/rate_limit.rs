//! Rate limits announced by the server through `X-Sentry-Rate-Limits` and `Retry-After`.
//!
//! Header grammar: `limit *("," limit)`, `limit = seconds ":" categories ":" scope [":" reason]`,
//! `categories = "" | category *(";" category)` where an empty list means every category.
//! Entries whose seconds do not parse are skipped; the scope and reason are not needed to
//! enforce a limit, so an entry with only `seconds:categories` is honoured too.

use crate::protocol::DataCategory;
use std::collections::BTreeMap;

/// Back-off used for a 429 that names no duration.
const DEFAULT_RETRY_AFTER_SECS: f64 = 60.0;

/// One parsed entry of an `X-Sentry-Rate-Limits` header.
#[derive(Clone, Debug, PartialEq)]
pub struct RateLimit {
    /// How long the limit lasts, in whole seconds (rounded up).
    pub seconds: f64,
    /// Limited categories, lower-cased; empty means all categories.
    pub categories: Vec<String>,
}

/// Parses an `X-Sentry-Rate-Limits` header value, skipping malformed entries.
pub fn parse_rate_limits(header: &str) -> Vec<RateLimit> {
    header
        .split(',')
        .filter_map(|entry| {
            let mut fields = entry.trim().split(':');
            let seconds = fields.next()?.trim().parse::<f64>().ok()?;
            if !seconds.is_finite() || seconds < 0.0 {
                return None;
            }
            let categories = fields
                .next()?
                .split(';')
                .map(|c| c.trim().to_ascii_lowercase())
                .filter(|c| !c.is_empty())
                .collect();
            Some(RateLimit {
                seconds: seconds.ceil(),
                categories,
            })
        })
        .collect()
}

/// Parses a `Retry-After` value (delay seconds or an HTTP date) into a delay from `now`.
pub fn parse_retry_after(value: &str, now: f64) -> Option<f64> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| secs.ceil());
    }
    crate::time::parse_http_date(value).map(|at| (at - now).max(0.0))
}

/// Active limits: a deadline (Unix seconds) per category plus one for all categories.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RateLimits {
    all_until: Option<f64>,
    category_until: BTreeMap<String, f64>,
}

impl RateLimits {
    /// No active limits.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies an `X-Sentry-Rate-Limits` header received at `now`.
    pub fn update_from_header(&mut self, header: &str, now: f64) {
        for limit in parse_rate_limits(header) {
            let until = now + limit.seconds;
            if limit.categories.is_empty() {
                extend(&mut self.all_until, until);
            } else {
                for category in limit.categories {
                    let slot = self.category_until.entry(category).or_insert(until);
                    *slot = slot.max(until);
                }
            }
        }
    }

    /// Applies a 429 response's `Retry-After` (60 seconds if absent or unparsable).
    pub fn update_from_429(&mut self, retry_after: Option<&str>, now: f64) {
        let delay = retry_after
            .and_then(|v| parse_retry_after(v, now))
            .unwrap_or(DEFAULT_RETRY_AFTER_SECS);
        extend(&mut self.all_until, now + delay);
    }

    /// Whether items of `category` must be dropped at `now`.
    pub fn is_limited(&self, category: DataCategory, now: f64) -> bool {
        let active = |until: Option<&f64>| until.is_some_and(|u| *u > now);
        if active(self.all_until.as_ref()) {
            return true;
        }
        match category {
            // Client reports are only held back by an all-categories limit.
            DataCategory::Internal => false,
            // Message events are `default` in the server's taxonomy, errors `error`.
            DataCategory::Error => {
                active(self.category_until.get("error"))
                    || active(self.category_until.get("default"))
            }
            other => active(self.category_until.get(other.as_str())),
        }
    }
}

fn extend(slot: &mut Option<f64>, until: f64) {
    *slot = Some(slot.map_or(until, |u| u.max(until)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_full_and_short_entries() {
        let limits = parse_rate_limits(
            "60:error;Session:project:quota_exceeded, 3600::organization, 2.5:monitor",
        );
        assert_eq!(
            limits,
            vec![
                RateLimit {
                    seconds: 60.0,
                    categories: vec!["error".into(), "session".into()]
                },
                RateLimit {
                    seconds: 3600.0,
                    categories: vec![]
                },
                RateLimit {
                    seconds: 3.0,
                    categories: vec!["monitor".into()]
                },
            ]
        );
    }

    #[test]
    fn skips_malformed_entries() {
        let limits =
            parse_rate_limits("abc:error:project, 60, -5:error:key, inf::key, 7:session:key");
        assert_eq!(
            limits,
            vec![RateLimit {
                seconds: 7.0,
                categories: vec!["session".into()]
            }]
        );
        assert!(parse_rate_limits("").is_empty());
    }

    #[test]
    fn category_limit_only_hits_that_category() {
        let mut limits = RateLimits::new();
        limits.update_from_header("60:error:project:quota_exceeded", 1000.0);
        assert!(limits.is_limited(DataCategory::Error, 1000.0));
        assert!(limits.is_limited(DataCategory::Error, 1059.0));
        assert!(!limits.is_limited(DataCategory::Error, 1060.0));
        assert!(!limits.is_limited(DataCategory::Session, 1000.0));
        assert!(!limits.is_limited(DataCategory::Monitor, 1000.0));
        assert!(!limits.is_limited(DataCategory::Internal, 1000.0));
    }

    #[test]
    fn default_category_limits_events() {
        let mut limits = RateLimits::new();
        limits.update_from_header("10:default:project", 0.0);
        assert!(limits.is_limited(DataCategory::Error, 5.0));
    }

    #[test]
    fn empty_categories_limit_everything() {
        let mut limits = RateLimits::new();
        limits.update_from_header("30::organization:monthly", 0.0);
        for category in [
            DataCategory::Error,
            DataCategory::Session,
            DataCategory::Monitor,
            DataCategory::Internal,
        ] {
            assert!(limits.is_limited(category, 29.0), "{category}");
            assert!(!limits.is_limited(category, 30.0), "{category}");
        }
    }

    #[test]
    fn keeps_the_longer_deadline() {
        let mut limits = RateLimits::new();
        limits.update_from_header("100:error:key", 0.0);
        limits.update_from_header("10:error:key", 0.0);
        assert!(limits.is_limited(DataCategory::Error, 50.0));
    }

    #[test]
    fn retry_after_seconds_date_and_default() {
        assert_eq!(parse_retry_after("120", 0.0), Some(120.0));
        assert_eq!(parse_retry_after("1.2", 0.0), Some(2.0));
        assert_eq!(
            parse_retry_after("Thu, 01 Jan 1970 00:01:40 GMT", 40.0),
            Some(60.0)
        );
        assert_eq!(
            parse_retry_after("Thu, 01 Jan 1970 00:01:40 GMT", 500.0),
            Some(0.0)
        );
        assert_eq!(parse_retry_after("soon", 0.0), None);

        let mut limits = RateLimits::new();
        limits.update_from_429(Some("5"), 0.0);
        assert!(limits.is_limited(DataCategory::Monitor, 4.0));
        assert!(!limits.is_limited(DataCategory::Monitor, 5.0));

        let mut limits = RateLimits::new();
        limits.update_from_429(None, 0.0);
        assert!(limits.is_limited(DataCategory::Error, 59.0));
        assert!(!limits.is_limited(DataCategory::Error, 60.0));
    }
}
