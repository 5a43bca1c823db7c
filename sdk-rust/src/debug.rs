//! The SDK's own diagnostics, printed to stderr only with [`ClientOptions::debug`] on (the
//! stock SDK's `debug` option): an error-reporting library must not write to a program's
//! output by default.

use crate::options::ClientOptions;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the "disabled" notice was already given in this process.
static DISABLED_NOTICE: AtomicBool = AtomicBool::new(false);

/// Prints `message` when `options.debug` is on.
pub(crate) fn log(options: &ClientOptions, message: &str) {
    if options.debug {
        eprintln!("[ingest-sdk] {message}");
    }
}

/// Says once per process that the SDK is disabled; `true` the first time it was due.
pub(crate) fn disabled_once(options: &ClientOptions) -> bool {
    let first = !DISABLED_NOTICE.swap(true, Ordering::Relaxed);
    if first {
        log(
            options,
            "no DSN (options and SENTRY_DSN are empty): the SDK is disabled, every call is a no-op",
        );
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_disabled_notice_is_given_once() {
        // No unit test calls `init`, so this test owns the process-wide flag.
        let options = ClientOptions::default().debug(true);
        assert!(disabled_once(&options));
        assert!(!disabled_once(&options));
    }
}
