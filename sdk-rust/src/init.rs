//! `init` and the guard that flushes on drop.

use crate::client::Client;
use crate::hub::{self, Hub};
use crate::options::ClientOptions;
use std::sync::Arc;
use std::time::Duration;

/// Creates the process-wide client, installs the panic hook and starts the session.
///
/// Options left unset are read from `SENTRY_DSN`, `SENTRY_RELEASE` and `SENTRY_ENVIRONMENT`
/// ([`ClientOptions::apply_env`]). Without any DSN the SDK is disabled: nothing is bound,
/// every capture returns `None`, and [`InitGuard::is_enabled`] is `false` (said once on
/// stderr with [`ClientOptions::debug`]).
///
/// Keep the returned guard alive for the life of the program (`let _guard = init(..)`,
/// not `let _ = init(..)`): dropping it ends the session and flushes the send queue,
/// waiting at most [`ClientOptions::shutdown_timeout`].
pub fn init(options: ClientOptions) -> InitGuard {
    let options = options.apply_env();
    if options.dsn.is_none() {
        crate::debug::disabled_once(&options);
        return InitGuard { client: None };
    }
    // The thread that calls `init` is the one that uses the process hub itself.
    let _ = Hub::main();
    let client = Arc::new(Client::new(options));
    if client.options().panic_reporting {
        crate::integrations::panic::install();
    }
    if client.options().session_tracking {
        client.start_session();
    }
    if let Some(previous) = hub::bind_client(Some(Arc::clone(&client))) {
        previous.close(previous.options().shutdown_timeout);
    }
    InitGuard {
        client: Some(client),
    }
}

/// Keeps the SDK running; dropping it ends the session (`exited`) and flushes.
#[must_use = "dropping the guard immediately shuts the SDK down; bind it: `let _guard = init(..)`"]
#[derive(Debug)]
pub struct InitGuard {
    client: Option<Arc<Client>>,
}

impl InitGuard {
    /// The client this guard keeps alive (`None` when the SDK is disabled).
    pub fn client(&self) -> Option<&Arc<Client>> {
        self.client.as_ref()
    }

    /// Whether the SDK is sending (`init` found a DSN).
    pub fn is_enabled(&self) -> bool {
        self.client.as_ref().is_some_and(|c| c.is_enabled())
    }

    /// Flushes without shutting down; `true` if everything was sent in time.
    pub fn flush(&self, timeout: Duration) -> bool {
        self.client.as_ref().is_none_or(|c| c.flush(timeout))
    }

    /// Shuts down like dropping the guard, but awaits the flush: use this on targets that
    /// cannot block (the `web` sender), where dropping only starts the last requests.
    pub async fn close_async(mut self, timeout: Duration) -> bool {
        let Some(client) = self.client.take() else {
            return true;
        };
        hub::unbind_if_current(&client);
        client.end_session(crate::protocol::SessionStatus::Exited);
        client.flush_async(timeout).await
    }
}

impl Drop for InitGuard {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            hub::unbind_if_current(&client);
            client.close(client.options().shutdown_timeout);
        }
    }
}
