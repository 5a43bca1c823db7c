//! Senders: how envelopes leave the process.
//!
//! The default on native targets (feature `native`) is [`ThreadTransport`], a background
//! thread with a bounded queue. With feature `web` on `wasm32`, it is [`FetchTransport`],
//! which hands each envelope to the platform `fetch`. Both honour server rate limits and
//! count what they drop for client reports (see [`Delivery`]).

mod delivery;
pub mod rate_limit;
#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
mod thread;
#[cfg(feature = "web")]
mod web;

pub use delivery::{Delivery, ResponseInfo};
#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
#[cfg_attr(docsrs, doc(cfg(feature = "native")))]
pub use thread::ThreadTransport;
#[cfg(feature = "web")]
#[cfg_attr(docsrs, doc(cfg(feature = "web")))]
pub use web::FetchTransport;

use crate::options::ClientOptions;
use crate::protocol::Envelope;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// A future returned by [`Transport::flush_async`].
pub type FlushFuture = Pin<Box<dyn Future<Output = bool>>>;

/// Something that delivers envelopes.
pub trait Transport: Send + Sync {
    /// Queues an envelope for sending; must not block on the network.
    fn send_envelope(&self, envelope: Envelope);

    /// Waits up to `timeout` until everything queued (and any pending client report) is
    /// sent; `true` if the queue drained in time.
    fn flush(&self, timeout: Duration) -> bool;

    /// Like [`Transport::flush`], for single-threaded targets that cannot block.
    fn flush_async(&self, timeout: Duration) -> FlushFuture {
        Box::pin(std::future::ready(self.flush(timeout)))
    }

    /// Flushes, then stops accepting envelopes.
    fn shutdown(&self, timeout: Duration) -> bool {
        self.flush(timeout)
    }
}

/// Builds the transport for a client.
pub trait TransportFactory: Send + Sync {
    /// Creates a transport for `options`.
    fn create_transport(&self, options: &ClientOptions) -> Arc<dyn Transport>;
}

impl<F> TransportFactory for F
where
    F: Fn(&ClientOptions) -> Arc<dyn Transport> + Send + Sync,
{
    fn create_transport(&self, options: &ClientOptions) -> Arc<dyn Transport> {
        self(options)
    }
}

/// The SDK name sent in `sentry_client` and the event `sdk` block.
pub const SDK_NAME: &str = "ingest.rust";

/// `name/version` of this SDK, as sent in `X-Sentry-Auth`.
pub fn sdk_client_name() -> String {
    format!("{SDK_NAME}/{}", env!("CARGO_PKG_VERSION"))
}

/// A transport that drops everything (used when no sender is compiled in).
#[derive(Debug, Default)]
pub struct NoopTransport;

impl Transport for NoopTransport {
    fn send_envelope(&self, _envelope: Envelope) {}

    fn flush(&self, _timeout: Duration) -> bool {
        true
    }
}

/// The sender compiled in for this target and feature set.
pub(crate) fn default_transport(options: &ClientOptions) -> Arc<dyn Transport> {
    #[cfg(all(target_arch = "wasm32", feature = "web"))]
    {
        Arc::new(FetchTransport::new(options))
    }
    #[cfg(all(not(target_arch = "wasm32"), feature = "native"))]
    {
        Arc::new(ThreadTransport::new(options))
    }
    #[cfg(not(any(
        all(target_arch = "wasm32", feature = "web"),
        all(not(target_arch = "wasm32"), feature = "native")
    )))]
    {
        let _ = options;
        Arc::new(NoopTransport)
    }
}
