//! Wall-clock time and random ids on native targets and in the browser/Node.
//!
//! `std::time::SystemTime::now` panics on `wasm32-unknown-unknown`, so the `web` build asks
//! JavaScript for the time; randomness comes from `getrandom` everywhere.

/// Seconds since the Unix epoch, with sub-second precision.
#[cfg(not(all(target_arch = "wasm32", feature = "web")))]
pub(crate) fn now_unix_secs() -> f64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Seconds since the Unix epoch, with sub-second precision.
#[cfg(all(target_arch = "wasm32", feature = "web"))]
pub(crate) fn now_unix_secs() -> f64 {
    js_sys::Date::now() / 1000.0
}

/// 128 random bits for ids, from the operating system (`crypto.getRandomValues` on the web).
///
/// If the source fails (it does not on supported platforms), the clock and a counter stand in:
/// an id must never stop an event from being sent.
pub(crate) fn random_u128() -> u128 {
    let mut bytes = [0u8; 16];
    match getrandom::fill(&mut bytes) {
        Ok(()) => u128::from_le_bytes(bytes),
        Err(_) => {
            use std::sync::atomic::{AtomicU64, Ordering};
            static COUNTER: AtomicU64 = AtomicU64::new(0);
            (u128::from(now_unix_secs().to_bits()) << 64)
                | u128::from(COUNTER.fetch_add(1, Ordering::Relaxed))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_is_after_2024() {
        assert!(now_unix_secs() > 1_704_067_200.0);
    }

    #[test]
    fn random_values_differ() {
        let values: std::collections::HashSet<u128> = (0..1000).map(|_| random_u128()).collect();
        assert_eq!(values.len(), 1000);
    }
}
