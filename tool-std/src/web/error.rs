//! [`WebError`]: everything that can go wrong in a search or a fetch, as a value.
//!
//! The texts are written for the model that called the tool: they say what was wrong and, where
//! something can be done about it, what to do. The tool wrapper turns a `WebError` into a tool
//! error of the kind [`WebError::kind`] names.

use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

use crate::trust::net::AddressClass;

/// The kind of tool error a [`WebError`] becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WebErrorKind {
    /// The caller can fix it (bad URL, 404, binary content, start_index past the end).
    User,
    /// The network policy refused the request.
    Security,
    /// A connect, read or total time limit ran out.
    Timeout,
    /// Too many calls (the per-turn search limit).
    RateLimited,
    /// The host's setup or a remote service is at fault (missing configuration, 5xx, TLS setup).
    System,
}

impl WebErrorKind {
    /// The `error_type` string of the tool error (`"user_error"`, `"security_error"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            WebErrorKind::User => "user_error",
            WebErrorKind::Security => "security_error",
            WebErrorKind::Timeout => "timeout",
            WebErrorKind::RateLimited => "rate_limited",
            WebErrorKind::System => "system_error",
        }
    }
}

/// Which time limit ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TimeoutPhase {
    /// Resolving the host name.
    Resolve,
    /// Opening the connection (TCP and TLS).
    Connect,
    /// Waiting for the next bytes of the response (headers or body).
    Read,
    /// The whole request, from the first connection to the last byte.
    Total,
}

/// A failed web search or fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WebError {
    /// The URL is not an absolute `http` or `https` URL with a host.
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it ("must be http or https", ...).
        reason: String,
    },
    /// The network policy refused to connect to an address that is not on the public internet.
    Refused {
        /// The host of the URL (a name or an address).
        host: String,
        /// The address that was refused.
        address: IpAddr,
        /// Why the address is not public.
        class: AddressClass,
        /// Whether the address came from resolving a host name (rather than being in the URL).
        resolved: bool,
    },
    /// The host name could not be resolved to any address.
    Resolve {
        /// The host name.
        host: String,
        /// What the resolver said.
        message: String,
    },
    /// No search service is configured.
    SearchNotConfigured,
    /// The SearXNG instance answered 403: its JSON output format is disabled.
    SearchFormatDisabled,
    /// The search service answered with something that is not the expected JSON.
    InvalidSearchResponse,
    /// The per-turn search limit is used up.
    SearchLimitReached {
        /// How many searches one turn may make.
        limit: usize,
    },
    /// The server-wide search limit is used up for now ([`SearchWindow`](super::SearchWindow)).
    SearchRateLimited {
        /// How many searches the window allows.
        limit: usize,
        /// The window.
        window: std::time::Duration,
        /// How long until the next search is allowed.
        retry_in: std::time::Duration,
    },
    /// The server answered with a status other than 2xx (or a redirect that is handled).
    Http {
        /// The status code.
        status: u16,
        /// Its reason phrase ("Not Found").
        reason: String,
    },
    /// A redirect status without a usable `Location` header.
    BadRedirect {
        /// The status code.
        status: u16,
        /// The `Location` header, if there was one.
        location: Option<String>,
    },
    /// The content is binary (an image, a PDF, an archive, ...) and cannot be read as text.
    UnsupportedContentType {
        /// The `Content-Type` the server sent.
        content_type: String,
    },
    /// `start_index` lies at or past the end of the page's text.
    StartIndexOutOfRange {
        /// The requested start.
        start_index: usize,
        /// How many characters the text has.
        total_chars: usize,
    },
    /// A time limit ran out.
    Timeout {
        /// The URL being requested.
        url: String,
        /// Which limit.
        phase: TimeoutPhase,
        /// The limit.
        after: Duration,
    },
    /// The connection failed or broke (refused, reset, TLS failure, corrupt encoding).
    Connection {
        /// The URL being requested.
        url: String,
        /// What failed.
        message: String,
    },
    /// The HTTP client could not be set up (TLS configuration), or a conversion task failed.
    Internal {
        /// What failed.
        message: String,
    },
}

impl WebError {
    /// The kind of tool error this becomes.
    pub fn kind(&self) -> WebErrorKind {
        match self {
            WebError::Refused { .. } => WebErrorKind::Security,
            WebError::Timeout { .. } => WebErrorKind::Timeout,
            WebError::SearchLimitReached { .. } | WebError::SearchRateLimited { .. } => {
                WebErrorKind::RateLimited
            }
            WebError::SearchNotConfigured
            | WebError::SearchFormatDisabled
            | WebError::InvalidSearchResponse
            | WebError::Internal { .. } => WebErrorKind::System,
            WebError::Http { status, .. } if *status >= 500 => WebErrorKind::System,
            WebError::InvalidUrl { .. }
            | WebError::Resolve { .. }
            | WebError::Http { .. }
            | WebError::BadRedirect { .. }
            | WebError::UnsupportedContentType { .. }
            | WebError::StartIndexOutOfRange { .. }
            | WebError::Connection { .. } => WebErrorKind::User,
        }
    }

    /// The reason phrase for an HTTP status ("Not Found"), or "Unknown Status".
    pub fn reason_phrase(status: u16) -> &'static str {
        reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("Unknown Status")
    }

    /// An [`WebError::Http`] error for a status code, with its standard reason phrase.
    pub fn http(status: u16) -> WebError {
        WebError::Http {
            status,
            reason: Self::reason_phrase(status).to_owned(),
        }
    }
}

/// A duration as people write it: "10 s", "1.5 s", "200 ms".
pub(crate) fn human_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

impl fmt::Display for WebError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WebError::InvalidUrl { url, reason } => {
                write!(f, "Invalid URL: {reason} (got {url:?})")
            }
            WebError::Refused {
                host,
                address,
                class,
                resolved,
            } => {
                if *resolved {
                    write!(
                        f,
                        "Refused to connect to {host}: it resolves to {address}, {class}"
                    )?;
                } else {
                    write!(f, "Refused to connect to {address}: it is {class}")?;
                }
                write!(
                    f,
                    ", and the web tool only connects to public internet addresses."
                )?;
                if *class == AddressClass::CloudMetadata {
                    write!(
                        f,
                        " Cloud metadata endpoints are only reachable by putting the address \
                         itself on the allow-list (--allow-host {address})."
                    )
                } else {
                    write!(
                        f,
                        " If this is a trusted local service, add it to the network allow-list \
                         (--allow-host {host})."
                    )
                }
            }
            WebError::Resolve { host, message } => {
                write!(f, "Could not resolve host {host:?}: {message}")
            }
            WebError::SearchNotConfigured => {
                f.write_str("SearXNG URL not configured. Pass --searxng-url or set SEARXNG_URL.")
            }
            WebError::SearchFormatDisabled => f.write_str(
                "HTTP 403: Forbidden. The SearXNG instance does not allow the JSON output format: \
                 add json to search.formats in the instance's settings.yml \
                 (search: formats: [html, json]) and restart it.",
            ),
            WebError::InvalidSearchResponse => f.write_str("Invalid response from search service"),
            WebError::SearchLimitReached { limit } => write!(
                f,
                "Search limit reached ({limit} searches per response). Answer with what you \
                 have, or fetch one of the pages already found."
            ),
            WebError::SearchRateLimited {
                limit,
                window,
                retry_in,
            } => {
                // Rounded up: "in 0 s" would invite a search that is refused again.
                let retry = retry_in.as_millis().div_ceil(1000).max(1);
                let window = per_window(*window);
                write!(
                    f,
                    "Search limit reached ({limit} searches {window} on this server). The \
                     next search is allowed in {retry} s; answer with what you have, or fetch \
                     one of the pages already found."
                )
            }
            WebError::Http { status, reason } => write!(f, "HTTP {status}: {reason}"),
            WebError::BadRedirect { status, location } => match location {
                Some(location) => write!(
                    f,
                    "HTTP {status}: redirect to an invalid location {location:?}"
                ),
                None => write!(f, "HTTP {status}: redirect without a Location header"),
            },
            WebError::UnsupportedContentType { content_type } => write!(
                f,
                "Cannot read binary content ({content_type}): only HTML, text, JSON and XML \
                 pages can be fetched."
            ),
            WebError::StartIndexOutOfRange {
                start_index,
                total_chars,
            } => write!(
                f,
                "start_index {start_index} is past the end of the page ({total_chars} \
                 characters); use a start_index below {total_chars}."
            ),
            WebError::Timeout { url, phase, after } => {
                let what = match phase {
                    TimeoutPhase::Resolve => "resolving the host of",
                    TimeoutPhase::Connect => "connecting to",
                    TimeoutPhase::Read => "waiting for a response from",
                    TimeoutPhase::Total => "fetching",
                };
                write!(f, "Timed out after {} {what} {url}", human_duration(*after))
            }
            WebError::Connection { url, message } => {
                write!(f, "Request to {url} failed: {message}")
            }
            WebError::Internal { message } => write!(f, "Internal error: {message}"),
        }
    }
}

/// A search window as a rate is said: `a minute`, `per 30 s`, `per 1500 ms`.
pub(crate) fn per_window(window: std::time::Duration) -> String {
    match (window.as_secs(), window.subsec_millis()) {
        (60, 0) => "a minute".to_owned(),
        (s, 0) => format!("per {s} s"),
        _ => format!("per {} ms", window.as_millis()),
    }
}

impl std::error::Error for WebError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_texts() {
        assert_eq!(WebError::http(404).to_string(), "HTTP 404: Not Found");
        assert_eq!(
            WebError::http(500).to_string(),
            "HTTP 500: Internal Server Error"
        );
        assert_eq!(WebError::http(599).to_string(), "HTTP 599: Unknown Status");
        assert_eq!(
            WebError::InvalidSearchResponse.to_string(),
            "Invalid response from search service"
        );
        assert_eq!(
            WebError::SearchNotConfigured.to_string(),
            "SearXNG URL not configured. Pass --searxng-url or set SEARXNG_URL."
        );
        let e = WebError::InvalidUrl {
            url: "ftp://example.com".into(),
            reason: "must be http or https".into(),
        };
        assert!(
            e.to_string()
                .starts_with("Invalid URL: must be http or https")
        );
        assert!(
            WebError::SearchLimitReached { limit: 10 }
                .to_string()
                .starts_with("Search limit reached (10 searches per response)")
        );
        let e = WebError::SearchRateLimited {
            limit: 10,
            window: std::time::Duration::from_secs(60),
            retry_in: std::time::Duration::from_millis(36_200),
        };
        assert!(
            e.to_string().starts_with(
                "Search limit reached (10 searches a minute on this server). The next search \
                 is allowed in 37 s;"
            ),
            "{e}"
        );
    }

    #[test]
    fn refusals_say_what_why_and_how_to_allow() {
        let e = WebError::Refused {
            host: "localhost".into(),
            address: "127.0.0.1".parse().unwrap(),
            class: AddressClass::Loopback,
            resolved: true,
        };
        let text = e.to_string();
        assert!(
            text.contains("localhost") && text.contains("127.0.0.1"),
            "{text}"
        );
        assert!(text.contains("loopback"), "{text}");
        assert!(text.contains("--allow-host localhost"), "{text}");
        assert_eq!(e.kind(), WebErrorKind::Security);
        assert_eq!(e.kind().as_str(), "security_error");
    }

    #[test]
    fn kinds() {
        assert_eq!(WebError::http(404).kind(), WebErrorKind::User);
        assert_eq!(WebError::http(503).kind(), WebErrorKind::System);
        let t = WebError::Timeout {
            url: "http://x/".into(),
            phase: TimeoutPhase::Read,
            after: Duration::from_millis(200),
        };
        assert_eq!(t.kind().as_str(), "timeout");
        assert_eq!(
            t.to_string(),
            "Timed out after 200 ms waiting for a response from http://x/"
        );
    }

    #[test]
    fn durations() {
        assert_eq!(human_duration(Duration::from_secs(10)), "10 s");
        assert_eq!(human_duration(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(human_duration(Duration::from_millis(5)), "5 ms");
    }
}
