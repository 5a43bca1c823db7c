//! Client options: a DSN (or none: the SDK is then disabled), labels and switches.

use crate::dsn::{Dsn, DsnError};
use crate::transport::TransportFactory;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// Configuration of a [`Client`](crate::Client).
///
/// Built from a DSN string with builder methods, or as a struct with `Default` for the rest:
///
/// ```
/// use ingest_sdk::ClientOptions;
///
/// let options = ClientOptions::new("https://abc123@ingest.example.com/42")?
///     .release("shop@1.2.3")
///     .environment("production");
/// assert_eq!(options.dsn.as_ref().map(|d| d.project_id()), Some("42"));
/// assert_eq!(options.release.as_deref(), Some("shop@1.2.3"));
/// assert!(ClientOptions::new("not a dsn").is_err());
///
/// // An empty DSN is no error: the SDK is disabled (unless `SENTRY_DSN` is set at `init`).
/// assert!(ClientOptions::new("")?.dsn.is_none());
///
/// let options = ClientOptions {
///     release: ingest_sdk::release_name!(),
///     session_tracking: false,
///     ..ClientOptions::default()
/// };
/// assert_eq!(options.release.as_deref(), Some(concat!("ingest-sdk@", env!("CARGO_PKG_VERSION"))));
/// # Ok::<(), ingest_sdk::DsnError>(())
/// ```
#[derive(Clone)]
pub struct ClientOptions {
    /// Where to send, and the public key to send with. `None` (the default) disables the SDK
    /// unless [`init`](crate::init) finds `SENTRY_DSN` in the environment.
    pub dsn: Option<Dsn>,
    /// Release label; sessions are only tracked when it is set. [`init`](crate::init) falls
    /// back to `SENTRY_RELEASE`; see also [`release_name!`](crate::release_name).
    pub release: Option<String>,
    /// Environment label. [`init`](crate::init) falls back to `SENTRY_ENVIRONMENT`.
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
    /// Print the SDK's own diagnostics (such as "disabled: no DSN") to stderr. Default off.
    pub debug: bool,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            dsn: None,
            release: None,
            environment: None,
            max_breadcrumbs: 100,
            queue_size: 30,
            shutdown_timeout: Duration::from_secs(2),
            attach_stacktrace: false,
            panic_reporting: true,
            session_tracking: true,
            transport: None,
            debug: false,
        }
    }
}

impl ClientOptions {
    /// Options for `dsn` with every other setting at its default. An empty (or all-blank)
    /// string gives options without a DSN, as in the stock SDK: the idiom
    /// `ClientOptions::new(&std::env::var("MY_DSN").unwrap_or_default())` never fails on a
    /// missing variable.
    pub fn new(dsn: &str) -> Result<Self, DsnError> {
        let dsn = dsn.trim();
        if dsn.is_empty() {
            return Ok(Self::default());
        }
        Ok(Self::from_dsn(dsn.parse()?))
    }

    /// Options for an already parsed DSN.
    pub fn from_dsn(dsn: Dsn) -> Self {
        Self {
            dsn: Some(dsn),
            ..Self::default()
        }
    }

    /// Fills the DSN, release and environment left unset from `SENTRY_DSN`,
    /// `SENTRY_RELEASE` and `SENTRY_ENVIRONMENT` (empty values count as unset); an invalid
    /// `SENTRY_DSN` leaves the SDK disabled. [`init`](crate::init) calls this.
    pub fn apply_env(self) -> Self {
        self.apply_env_from(|name| std::env::var(name).ok())
    }

    /// [`ClientOptions::apply_env`] with any source of variables (tests, config files).
    pub fn apply_env_from(mut self, var: impl Fn(&str) -> Option<String>) -> Self {
        let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        if self.dsn.is_none()
            && let Some(text) = var("SENTRY_DSN")
        {
            match text.trim().parse() {
                Ok(dsn) => self.dsn = Some(dsn),
                Err(err) => crate::debug::log(&self, &format!("SENTRY_DSN ignored: {err}")),
            }
        }
        if self.release.is_none() {
            self.release = var("SENTRY_RELEASE");
        }
        if self.environment.is_none() {
            self.environment = var("SENTRY_ENVIRONMENT");
        }
        self
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

    /// Turns the SDK's own diagnostics on stderr on or off.
    pub fn debug(mut self, on: bool) -> Self {
        self.debug = on;
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
            .field("dsn", &self.dsn.as_ref().map(ToString::to_string))
            .field("release", &self.release)
            .field("environment", &self.environment)
            .field("max_breadcrumbs", &self.max_breadcrumbs)
            .field("queue_size", &self.queue_size)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .field("attach_stacktrace", &self.attach_stacktrace)
            .field("panic_reporting", &self.panic_reporting)
            .field("session_tracking", &self.session_tracking)
            .field("transport", &self.transport.as_ref().map(|_| "custom"))
            .field("debug", &self.debug)
            .finish()
    }
}

/// `Some("<crate name>@<crate version>")` of the crate that invokes it, for
/// [`ClientOptions::release`]: sessions (release health) need a release.
///
/// ```
/// let release = ingest_sdk::release_name!();
/// // In this doctest the invoking crate is the SDK's own package.
/// assert_eq!(release.as_deref(), Some(concat!("ingest-sdk@", env!("CARGO_PKG_VERSION"))));
/// ```
#[macro_export]
macro_rules! release_name {
    () => {
        ::std::option::Option::Some(::std::string::String::from(concat!(
            env!("CARGO_PKG_NAME"),
            "@",
            env!("CARGO_PKG_VERSION")
        )))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn environment_fills_only_unset_options() {
        let env = vars(&[
            ("SENTRY_DSN", "https://key@env.example.com/7"),
            ("SENTRY_RELEASE", "env-release"),
            ("SENTRY_ENVIRONMENT", "staging"),
        ]);
        let filled = ClientOptions::default().apply_env_from(&env);
        assert_eq!(
            filled.dsn.map(|d| d.project_id().to_owned()).as_deref(),
            Some("7")
        );
        assert_eq!(filled.release.as_deref(), Some("env-release"));
        assert_eq!(filled.environment.as_deref(), Some("staging"));

        let own = ClientOptions::new("https://key@own.example.com/1")
            .unwrap()
            .release("own")
            .environment("production")
            .apply_env_from(&env);
        assert_eq!(
            own.dsn.map(|d| d.project_id().to_owned()).as_deref(),
            Some("1")
        );
        assert_eq!(own.release.as_deref(), Some("own"));
        assert_eq!(own.environment.as_deref(), Some("production"));
    }

    #[test]
    fn empty_or_invalid_environment_leaves_the_sdk_disabled() {
        let empty = ClientOptions::default()
            .apply_env_from(vars(&[("SENTRY_DSN", " "), ("SENTRY_RELEASE", "")]));
        assert!(empty.dsn.is_none());
        assert!(empty.release.is_none());
        let invalid = ClientOptions::default().apply_env_from(vars(&[("SENTRY_DSN", "not a dsn")]));
        assert!(invalid.dsn.is_none());
        assert!(ClientOptions::new("  ").unwrap().dsn.is_none());
    }
}
