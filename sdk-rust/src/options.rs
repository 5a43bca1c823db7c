//! Client options, built from a DSN string.

use crate::dsn::{Dsn, DsnError};
use crate::transport::TransportFactory;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// Configuration of a [`Client`](crate::Client).
///
/// ```
/// let options = ingest_sdk::ClientOptions::new("https://abc123@ingest.example.com/42")?
///     .release("shop@1.2.3")
///     .environment("production");
/// assert_eq!(options.dsn.project_id(), "42");
/// assert_eq!(options.release.as_deref(), Some("shop@1.2.3"));
/// assert!(ingest_sdk::ClientOptions::new("not a dsn").is_err());
/// # Ok::<(), ingest_sdk::DsnError>(())
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct ClientOptions {
    /// Where to send, and the public key to send with.
    pub dsn: Dsn,
    /// Release label; sessions are only tracked when it is set.
    pub release: Option<String>,
    /// Environment label.
    pub environment: Option<String>,
    /// How many breadcrumbs the scope keeps (oldest dropped first). Default 100.
    pub max_breadcrumbs: usize,
    /// Envelopes the background sender may hold before dropping. Default 30.
    pub queue_size: usize,
    /// How long dropping the init guard may wait for the queue to drain. Default 2 s.
    pub shutdown_timeout: Duration,
    /// Attach a stack trace to captured errors and messages. Default off (panics always
    /// carry one).
    pub attach_stacktrace: bool,
    /// Report panics as fatal events (installs a panic hook). Default on.
    pub panic_reporting: bool,
    /// Track one release-health session per `init`. Default on.
    pub session_tracking: bool,
    /// Replaces the default sender (e.g. for tests).
    pub transport: Option<Arc<dyn TransportFactory>>,
}

impl ClientOptions {
    /// Options for `dsn` with every other setting at its default.
    pub fn new(dsn: &str) -> Result<Self, DsnError> {
        Ok(Self::from_dsn(dsn.parse()?))
    }

    /// Options for an already parsed DSN.
    pub fn from_dsn(dsn: Dsn) -> Self {
        Self {
            dsn,
            release: None,
            environment: None,
            max_breadcrumbs: 100,
            queue_size: 30,
            shutdown_timeout: Duration::from_secs(2),
            attach_stacktrace: false,
            panic_reporting: true,
            session_tracking: true,
            transport: None,
        }
    }

    /// Sets the release label.
    pub fn release(mut self, release: impl Into<String>) -> Self {
        self.release = Some(release.into());
        self
    }

    /// Sets the environment label.
    pub fn environment(mut self, environment: impl Into<String>) -> Self {
        self.environment = Some(environment.into());
        self
    }

    /// Sets the breadcrumb limit.
    pub fn max_breadcrumbs(mut self, max: usize) -> Self {
        self.max_breadcrumbs = max;
        self
    }

    /// Sets the send-queue capacity.
    pub fn queue_size(mut self, size: usize) -> Self {
        self.queue_size = size;
        self
    }

    /// Sets how long shutdown may wait for the queue to drain.
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// Turns stack traces on captured errors and messages on or off.
    pub fn attach_stacktrace(mut self, on: bool) -> Self {
        self.attach_stacktrace = on;
        self
    }

    /// Turns panic reporting on or off.
    pub fn panic_reporting(mut self, on: bool) -> Self {
        self.panic_reporting = on;
        self
    }

    /// Turns session tracking on or off.
    pub fn session_tracking(mut self, on: bool) -> Self {
        self.session_tracking = on;
        self
    }

    /// Uses `factory` instead of the default sender.
    pub fn transport(mut self, factory: impl TransportFactory + 'static) -> Self {
        self.transport = Some(Arc::new(factory));
        self
    }
}

impl TryFrom<&str> for ClientOptions {
    type Error = DsnError;

    fn try_from(dsn: &str) -> Result<Self, Self::Error> {
        Self::new(dsn)
    }
}

impl fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientOptions")
            .field("dsn", &self.dsn.to_string())
            .field("release", &self.release)
            .field("environment", &self.environment)
            .field("max_breadcrumbs", &self.max_breadcrumbs)
            .field("queue_size", &self.queue_size)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .field("attach_stacktrace", &self.attach_stacktrace)
            .field("panic_reporting", &self.panic_reporting)
            .field("session_tracking", &self.session_tracking)
            .field("transport", &self.transport.as_ref().map(|_| "custom"))
            .finish()
    }
}
