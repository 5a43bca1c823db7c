//! Wall-clock time and random ids on native targets and in the browser/Node.
//!
//! `std::time::SystemTime::now` panics on `wasm32-unknown-unknown`, and std has no
//! randomness there, so the `web` build asks JavaScript instead.

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

/// 64 unpredictable bits for ids (not for cryptography).
///
/// Each `RandomState` is keyed from the operating system's randomness (the keys of
/// later instances on a thread are derived from the first), so SipHash over a
/// process-wide counter and the clock gives distinct, unguessable values.
#[cfg(not(all(target_arch = "wasm32", feature = "web")))]
pub(crate) fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher, RandomState};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u64(now_unix_secs().to_bits());
    hasher.finish()
}

/// 64 random bits for ids, from `Math.random` (not for cryptography).
#[cfg(all(target_arch = "wasm32", feature = "web"))]
pub(crate) fn random_u64() -> u64 {
    // Math.random has at least 52 random bits; take 32 from each of two draws.
    let half = || (js_sys::Math::random() * 4_294_967_296.0) as u64 & 0xffff_ffff;
    (half() << 32) | half()
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
        let values: std::collections::HashSet<u64> = (0..1000).map(|_| random_u64()).collect();
        assert_eq!(values.len(), 1000);
    }
}
