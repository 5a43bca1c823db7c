//! The client: turns captures into envelopes and hands them to the transport.

use crate::options::ClientOptions;
use crate::protocol::{CheckIn, Envelope, Event, Item, Level, SdkInfo, SessionStatus, Uuid};
use crate::scope::Scope;
use crate::session::Session;
use crate::stacktrace;
use crate::transport::{NoopTransport, SDK_NAME, Transport, default_transport};
use std::error::Error;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Sends events, sessions and check-ins for one DSN.
///
/// Most programs use the global functions ([`capture_error`](crate::capture_error) and
/// friends) after [`init`](crate::init), which add the current [`Hub`](crate::Hub)'s scope;
/// a `Client` can also be used directly. Without a DSN it sends nothing.
pub struct Client {
    options: ClientOptions,
    transport: Arc<dyn Transport>,
    session: Mutex<Option<Session>>,
    last_event_id: Mutex<Option<Uuid>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Client {
    /// A client with the transport from `options` (or the default sender).
    pub fn new(options: ClientOptions) -> Self {
        let transport = match (&options.transport, &options.dsn) {
            (_, None) => Arc::new(NoopTransport),
            (Some(factory), Some(_)) => factory.create_transport(&options),
            (None, Some(_)) => default_transport(&options),
        };
        Self {
            options,
            transport,
            session: Mutex::new(None),
            last_event_id: Mutex::new(None),
        }
    }

    /// The options this client was built with.
    pub fn options(&self) -> &ClientOptions {
        &self.options
    }

    /// Whether this client sends anything (it has a DSN).
    pub fn is_enabled(&self) -> bool {
        self.options.dsn.is_some()
    }

    /// Sends `event` after filling in release, environment, SDK and `scope`.
    pub fn capture_event(&self, event: Event, scope: Option<&Scope>) -> Uuid {
        self.send_event(event, scope, false)
    }

    /// Captures an error and its `source()` chain as one event, without a scope.
    pub fn capture_error<E: Error + ?Sized>(&self, error: &E) -> Uuid {
        self.capture_event(self.event_from_error(error), None)
    }

    /// The event for `error`: its exception chain, and a stack trace if configured.
    pub(crate) fn event_from_error<E: Error + ?Sized>(&self, error: &E) -> Event {
        let mut event = Event::new();
        event.exception = stacktrace::exception_chain(error, "generic", true);
        if self.options.attach_stacktrace
            && let Some(last) = event.exception.last_mut()
        {
            last.stacktrace = stacktrace::capture();
        }
        event
    }

    /// Captures a plain message at `level`, without a scope.
    pub fn capture_message(&self, message: &str, level: Level) -> Uuid {
        let mut event = Event::new();
        event.message = Some(message.to_owned());
        event.level = level;
        self.capture_event(event, None)
    }

    /// Sends a crash report: the session ends as `crashed` in the same envelope.
    pub(crate) fn capture_crash(&self, event: Event, scope: Option<&Scope>) -> Uuid {
        self.send_event(event, scope, true)
    }

    /// Sends a cron check-in (release and environment default to the options).
    pub fn capture_check_in(&self, mut check_in: CheckIn) -> Uuid {
        if check_in.release.is_none() {
            check_in.release.clone_from(&self.options.release);
        }
        if check_in.environment.is_none() {
            check_in.environment.clone_from(&self.options.environment);
        }
        let id = check_in.check_in_id;
        self.transport
            .send_envelope(Envelope::new().with_item(Item::CheckIn(check_in)));
        id
    }

    /// The id of the last event this client sent.
    pub fn last_event_id(&self) -> Option<Uuid> {
        *lock(&self.last_event_id)
    }

    fn send_event(&self, mut event: Event, scope: Option<&Scope>, crashed: bool) -> Uuid {
        if event.release.is_none() {
            event.release.clone_from(&self.options.release);
        }
        if event.environment.is_none() {
            event.environment.clone_from(&self.options.environment);
        }
        event.sdk.get_or_insert_with(|| SdkInfo {
            name: SDK_NAME.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        });
        if let Some(scope) = scope {
            scope.apply_to(&mut event);
        }
        let id = event.event_id;
        let session_update = if crashed || event.is_error() {
            lock(&self.session)
                .as_mut()
                .and_then(|s| s.record_error(crashed))
        } else {
            None
        };
        let mut envelope = Envelope::new().with_item(Item::Event(Box::new(event)));
        if let Some(update) = session_update {
            envelope.add_item(Item::Session(update));
        }
        self.transport.send_envelope(envelope);
        *lock(&self.last_event_id) = Some(id);
        id
    }

    /// Starts a release-health session (ending any running one as `exited`).
    /// Does nothing without a release.
    pub fn start_session(&self) {
        self.end_session(SessionStatus::Exited);
        *lock(&self.session) = Session::start(
            self.options.release.as_deref(),
            self.options.environment.as_deref(),
        );
    }

    /// Ends the running session with `status` and sends its final update.
    pub fn end_session(&self, status: SessionStatus) {
        let update = lock(&self.session).take().and_then(|mut s| s.end(status));
        if let Some(update) = update {
            self.transport
                .send_envelope(Envelope::new().with_item(Item::Session(update)));
        }
    }

    /// Waits up to `timeout` for queued envelopes (and pending client reports) to go out.
    pub fn flush(&self, timeout: Duration) -> bool {
        self.transport.flush(timeout)
    }

    /// [`Client::flush`] for targets that cannot block (the `web` sender).
    pub async fn flush_async(&self, timeout: Duration) -> bool {
        self.transport.flush_async(timeout).await
    }

    /// Ends the session as `exited` and flushes within `timeout`; later sends are dropped.
    pub fn close(&self, timeout: Duration) -> bool {
        self.end_session(SessionStatus::Exited);
        self.transport.shutdown(timeout)
    }

    /// Flushes after a crash report, within the shutdown timeout.
    pub(crate) fn flush_for_crash(&self) {
        self.transport.flush(self.options.shutdown_timeout);
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}
