//! First-party Rust SDK for the error-ingest service.
//!
//! It models only the fields the service reads (events with exception chains and stack
//! frames, session updates, cron check-ins and client reports), writes them as envelopes,
//! and sends them to `POST {base}/api/{project_id}/envelope/` with an `X-Sentry-Auth`
//! header. Server rate limits (`X-Sentry-Rate-Limits`, and `Retry-After` on 429) are
//! honoured, and everything the SDK drops is counted in client reports.
//!
//! # Quick start
//!
//! ```no_run
//! use ingest_sdk::{Breadcrumb, ClientOptions, Level};
//!
//! fn main() -> Result<(), ingest_sdk::DsnError> {
//!     let options = ClientOptions::new("https://abc123@ingest.example.com/42")?
//!         .release("my-app@1.0.0")
//!         .environment("production");
//!     // Hold the guard for the life of the program: dropping it flushes the queue.
//!     let _guard = ingest_sdk::init(options);
//!
//!     ingest_sdk::add_breadcrumb(Breadcrumb::new("loading settings"));
//!     if let Err(err) = std::fs::read_to_string("settings.toml") {
//!         ingest_sdk::capture_error(&err);
//!     }
//!     ingest_sdk::capture_message("started", Level::Info);
//!     Ok(())
//! }
//! ```
//!
//! # Features
//!
//! - `native` (default): a background sender thread with a bounded queue, over `ureq`.
//! - `tls` (default): HTTPS for the native sender.
//! - `web`: for `wasm32-unknown-unknown`, the sender is the platform `fetch` (browsers
//!   and Node). The program cannot block there, so finish with
//!   [`InitGuard::close_async`] or [`flush_async`] instead of relying on the drop.
//! - `tracing-layer`: [`integrations::tracing_layer`], which turns ERROR records into
//!   events and all other records into breadcrumbs.
//!
//! Panic reporting and session tracking are on by default: a panic is sent as a fatal
//! event and ends the session as `crashed`; dropping the guard ends it as `exited`.
//! Sessions need a release.
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
