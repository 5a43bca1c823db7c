//! Parsing of DSN strings (`http(s)://<public_key>@host[:port][/prefix]/<project_id>`).

use std::fmt;
use std::str::FromStr;

/// Why a DSN string was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DsnError {
    /// The string has no `scheme://` part.
    MissingScheme,
    /// The scheme is neither `http` nor `https`.
    UnsupportedScheme(String),
    /// There is no `public_key@` before the host, or the key is empty.
    MissingPublicKey,
    /// The host part is empty.
    MissingHost,
    /// The port after `host:` is not a number from 1 to 65535.
    InvalidPort(String),
    /// The path has no last segment to use as the project id.
    MissingProjectId,
    /// The DSN carries a query string or fragment, which the protocol does not define.
    UnexpectedSuffix,
}

impl fmt::Display for DsnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingScheme => f.write_str("invalid DSN: missing `http://` or `https://`"),
            Self::UnsupportedScheme(s) => {
                write!(f, "invalid DSN: scheme `{s}` is not `http` or `https`")
            }
            Self::MissingPublicKey => f.write_str("invalid DSN: missing public key before `@`"),
            Self::MissingHost => f.write_str("invalid DSN: missing host"),
            Self::InvalidPort(p) => write!(f, "invalid DSN: port `{p}` is not a valid port"),
            Self::MissingProjectId => f.write_str("invalid DSN: missing project id path segment"),
            Self::UnexpectedSuffix => {
                f.write_str("invalid DSN: query strings and fragments are not allowed")
            }
        }
    }
}

impl std::error::Error for DsnError {}

/// The URL scheme of a DSN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Plain HTTP.
    Http,
    /// HTTP over TLS.
    Https,
}

impl Scheme {
    fn as_str(self) -> &'static str {
        match self {
            Self::Http => "http",
            Self::Https => "https",
        }
    }
}

/// A parsed DSN: where to send envelopes and with which public key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dsn {
    scheme: Scheme,
    public_key: String,
    host: String,
    port: Option<u16>,
    path_prefix: String,
    project_id: String,
}

impl Dsn {
    /// The URL scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The public key that authenticates envelopes for one project.
    pub fn public_key(&self) -> &str {
        &self.public_key
    }

    /// The host name or address (IPv6 addresses keep their brackets).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The explicit port, if the DSN names one.
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// The project id (the last path segment).
    pub fn project_id(&self) -> &str {
        &self.project_id
    }

    /// The base URL that endpoints hang off: `scheme://host[:port][/prefix]`.
    pub fn base_url(&self) -> String {
        let port = self.port.map(|p| format!(":{p}")).unwrap_or_default();
        format!(
            "{}://{}{port}{}",
            self.scheme.as_str(),
            self.host,
            self.path_prefix
        )
    }

    /// The envelope endpoint: `{base}/api/{project_id}/envelope/`.
    pub fn envelope_url(&self) -> String {
        format!("{}/api/{}/envelope/", self.base_url(), self.project_id)
    }

    /// The `X-Sentry-Auth` header value for a client called `client` (`name/version`).
    pub fn auth_header(&self, client: &str) -> String {
        format!(
            "Sentry sentry_key={}, sentry_version=7, sentry_client={client}",
            self.public_key
        )
    }
}

impl FromStr for Dsn {
    type Err = DsnError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let input = input.trim();
        let (scheme, rest) = input.split_once("://").ok_or(DsnError::MissingScheme)?;
        let scheme = match scheme.to_ascii_lowercase().as_str() {
            "http" => Scheme::Http,
            "https" => Scheme::Https,
            _ => return Err(DsnError::UnsupportedScheme(scheme.to_owned())),
        };
        if rest.contains(['?', '#']) {
            return Err(DsnError::UnexpectedSuffix);
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        let (userinfo, host_port) = authority
            .rsplit_once('@')
            .ok_or(DsnError::MissingPublicKey)?;
        // A deprecated `key:secret` pair is accepted; only the key is used.
        let public_key = userinfo.split(':').next().unwrap_or_default();
        if public_key.is_empty() {
            return Err(DsnError::MissingPublicKey);
        }
        let (host, port) = split_host_port(host_port)?;
        let path = path.trim_end_matches('/');
        let (prefix, project_id) = path.rsplit_once('/').unwrap_or(("", ""));
        if project_id.is_empty() {
            return Err(DsnError::MissingProjectId);
        }
        Ok(Dsn {
            scheme,
            public_key: public_key.to_owned(),
            host: host.to_owned(),
            port,
            path_prefix: prefix.to_owned(),
            project_id: project_id.to_owned(),
        })
    }
}

/// Splits `host[:port]`, keeping `[v6]` hosts whole.
fn split_host_port(host_port: &str) -> Result<(&str, Option<u16>), DsnError> {
    let port_sep = if host_port.starts_with('[') {
        let close = host_port.find(']').ok_or(DsnError::MissingHost)?;
        host_port[close..].find(':').map(|i| close + i)
    } else {
        host_port.rfind(':')
    };
    let (host, port) = match port_sep {
        Some(i) => {
            let raw = &host_port[i + 1..];
            let port = raw
                .parse::<u16>()
                .ok()
                .filter(|p| *p != 0)
                .ok_or_else(|| DsnError::InvalidPort(raw.to_owned()))?;
            (&host_port[..i], Some(port))
        }
        None => (host_port, None),
    };
    if host.is_empty() || host == "[]" {
        return Err(DsnError::MissingHost);
    }
    Ok((host, port))
}

impl fmt::Display for Dsn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let port = self.port.map(|p| format!(":{p}")).unwrap_or_default();
        write!(
            f,
            "{}://{}@{}{port}{}/{}",
            self.scheme.as_str(),
            self.public_key,
            self.host,
            self.path_prefix,
            self.project_id
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Dsn, DsnError> {
        s.parse()
    }

    #[test]
    fn parses_plain_dsn() {
        let dsn = parse("https://abc123@ingest.example.com/42").unwrap();
        assert_eq!(dsn.scheme(), Scheme::Https);
        assert_eq!(dsn.public_key(), "abc123");
        assert_eq!(dsn.host(), "ingest.example.com");
        assert_eq!(dsn.port(), None);
        assert_eq!(dsn.project_id(), "42");
        assert_eq!(
            dsn.envelope_url(),
            "https://ingest.example.com/api/42/envelope/"
        );
    }

    #[test]
    fn parses_port_and_prefix() {
        let dsn = parse("http://key@127.0.0.1:9000/sub/path/7").unwrap();
        assert_eq!(dsn.port(), Some(9000));
        assert_eq!(dsn.base_url(), "http://127.0.0.1:9000/sub/path");
        assert_eq!(
            dsn.envelope_url(),
            "http://127.0.0.1:9000/sub/path/api/7/envelope/"
        );
        assert_eq!(dsn.to_string(), "http://key@127.0.0.1:9000/sub/path/7");
    }

    #[test]
    fn parses_ipv6_secret_and_trailing_slash() {
        let dsn = parse("HTTP://key:secret@[::1]:8080/3/").unwrap();
        assert_eq!(dsn.public_key(), "key");
        assert_eq!(dsn.host(), "[::1]");
        assert_eq!(dsn.port(), Some(8080));
        assert_eq!(dsn.envelope_url(), "http://[::1]:8080/api/3/envelope/");
    }

    #[test]
    fn builds_auth_header() {
        let dsn = parse("http://k1@h/1").unwrap();
        assert_eq!(
            dsn.auth_header("ingest.rust/0.1.0"),
            "Sentry sentry_key=k1, sentry_version=7, sentry_client=ingest.rust/0.1.0"
        );
    }

    #[test]
    fn rejects_bad_dsns() {
        let cases = [
            ("", DsnError::MissingScheme),
            ("abc123@host/1", DsnError::MissingScheme),
            ("ftp://k@h/1", DsnError::UnsupportedScheme("ftp".into())),
            ("http://host/1", DsnError::MissingPublicKey),
            ("http://@host/1", DsnError::MissingPublicKey),
            ("http://:secret@host/1", DsnError::MissingPublicKey),
            ("http://k@/1", DsnError::MissingHost),
            ("http://k@:80/1", DsnError::MissingHost),
            ("http://k@h:http/1", DsnError::InvalidPort("http".into())),
            ("http://k@h:0/1", DsnError::InvalidPort("0".into())),
            ("http://k@h:70000/1", DsnError::InvalidPort("70000".into())),
            ("http://k@h", DsnError::MissingProjectId),
            ("http://k@h/", DsnError::MissingProjectId),
            ("http://k@h/1?x=y", DsnError::UnexpectedSuffix),
        ];
        for (input, expected) in cases {
            assert_eq!(parse(input), Err(expected), "{input:?}");
        }
    }

    #[test]
    fn errors_read_clearly() {
        let err = parse("ftp://k@h/1").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid DSN: scheme `ftp` is not `http` or `https`"
        );
    }
}
