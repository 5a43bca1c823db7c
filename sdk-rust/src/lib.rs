#![doc = include_str!("../README.md")]
//!
//! Panic reporting and session tracking are on by default: a panic is sent as a fatal event and
//! ends the session as `crashed`; dropping the guard ends it as `exited`. Sessions need a
//! release ([`release_name!`] gives one).
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod client;
mod debug;
mod dsn;
mod hub;
mod init;
pub mod integrations;
mod options;
mod platform;
pub mod protocol;
mod scope;
mod session;
mod stacktrace;
mod time;
pub mod transport;

pub use client::Client;
pub use dsn::{Dsn, DsnError, Scheme};
pub use hub::{Hub, HubBound, HubFutureExt, ScopeGuard, bind_client, current_client, with_client};
pub use init::{InitGuard, init};
pub use options::ClientOptions;
pub use protocol::{Breadcrumb, CheckIn, CheckInStatus, Event, Level, User, Uuid};
pub use scope::Scope;

use std::error::Error;
use std::time::Duration;

/// Captures an error and its `source()` chain with the current hub (its client and scope).
///
/// Returns the event id, or `None` when the SDK is not initialised or disabled.
pub fn capture_error<E: Error + ?Sized>(error: &E) -> Option<Uuid> {
    Hub::current().capture_error(error)
}

/// Captures a message at `level` with the current hub.
pub fn capture_message(message: &str, level: Level) -> Option<Uuid> {
    Hub::current().capture_message(message, level)
}

/// Captures a fully built event with the current hub.
pub fn capture_event(event: Event) -> Option<Uuid> {
    Hub::current().capture_event(event)
}

/// Sends a cron check-in with the current hub's client; returns its check-in id.
pub fn capture_check_in(check_in: CheckIn) -> Option<Uuid> {
    with_client(|c| c.capture_check_in(check_in))
}

/// Records a breadcrumb on the current hub's scope.
pub fn add_breadcrumb(breadcrumb: Breadcrumb) {
    Hub::current().add_breadcrumb(breadcrumb);
}

/// Runs `f` on the current hub's scope (tags, user, fingerprint, breadcrumbs): this
/// thread's, or the task's bound with [`HubFutureExt::bind_hub`].
///
/// The scope is locked while `f` runs: do not capture events from inside `f`.
pub fn configure_scope(f: impl FnOnce(&mut Scope)) {
    Hub::current().configure_scope(f);
}

/// Runs `f` with a temporary scope that `configure` prepared; see [`Hub::with_scope`].
///
/// ```
/// ingest_sdk::with_scope(
///     |scope| scope.set_tag("job", "nightly-export"),
///     || ingest_sdk::capture_message("export finished", ingest_sdk::Level::Info),
/// );
/// ```
pub fn with_scope<R>(configure: impl FnOnce(&mut Scope), f: impl FnOnce() -> R) -> R {
    Hub::current().with_scope(configure, f)
}

/// Pushes a copy of the current scope; it is popped when the guard drops.
pub fn push_scope() -> ScopeGuard {
    Hub::current().push_scope()
}

/// Sets a tag on later events.
pub fn set_tag(key: &str, value: &str) {
    configure_scope(|scope| scope.set_tag(key, value));
}

/// Sets (or clears) the user on later events.
pub fn set_user(user: Option<User>) {
    configure_scope(|scope| scope.set_user(user));
}

/// The id of the last event the current hub's client sent.
pub fn last_event_id() -> Option<Uuid> {
    Hub::current().client().and_then(|c| c.last_event_id())
}

/// Waits up to `timeout` until the current client's queue is sent; `true` if it drained.
pub fn flush(timeout: Duration) -> bool {
    with_client(|c| c.flush(timeout)).unwrap_or(true)
}

/// [`flush`] for targets that cannot block (the `web` sender); works everywhere.
pub async fn flush_async(timeout: Duration) -> bool {
    match Hub::current().client() {
        Some(client) => client.flush_async(timeout).await,
        None => true,
    }
}
