//! [`NetworkPolicy`]: what the web tool may connect to, how much it may read and for how long.
//!
//! The policy is checked twice for every request, and again at every redirect hop:
//!
//! 1. [`NetworkPolicy::check_url`] before anything is sent: the scheme must be `http` or
//!    `https`, and a host that is an IP address (in any spelling, see
//!    [`parse_ip_host`]) must be public or allow-listed.
//! 2. [`NetworkPolicy::check_resolved`] after DNS resolution, inside the HTTP client's resolver:
//!    every address the name resolved to must be public (or allow-listed), and the connection is
//!    made to exactly those checked addresses, so a second, different DNS answer (DNS rebinding)
//!    never reaches the socket.
//!
//! The allow-list holds exact host names and IP addresses, for tests and local services such as
//! a SearXNG instance on `localhost`. An allow-listed host name may resolve to any address
//! except a cloud metadata endpoint; an allow-listed address is reachable under any name.

use std::collections::BTreeSet;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use url::{Host, Url};

use super::error::WebError;
use crate::trust::net::{AddressClass, classify, normalize_host, parse_ip_host};

/// Default cap on the (decoded) bytes read from one response body: 5 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 5 * 1024 * 1024;

/// Connect, read and total time limits of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Time to resolve the host and open the connection (TCP and TLS).
    pub connect: Duration,
    /// Time to wait for the next bytes of the response; resets after each successful read.
    pub read: Duration,
    /// Time for the whole request, from the first connection to the last byte read.
    pub total: Duration,
}

impl Timeouts {
    /// Limits for page fetches: connect 5 s, read 10 s, total 60 s.
    pub const FETCH: Timeouts = Timeouts {
        connect: Duration::from_secs(5),
        read: Duration::from_secs(10),
        total: Duration::from_secs(60),
    };

    /// Limits for search requests (seed 000's open and read timeouts): connect 10 s, read 15 s,
    /// total 60 s.
    pub const SEARCH: Timeouts = Timeouts {
        connect: Duration::from_secs(10),
        read: Duration::from_secs(15),
        total: Duration::from_secs(60),
    };
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts::FETCH
    }
}

/// What the web tool may connect to, how many bytes it reads and how long it waits.
///
/// ```
/// use tool_std::web::NetworkPolicy;
///
/// let policy = NetworkPolicy::new().allow_host("localhost");
/// assert!(policy.check_url("https://example.com/").is_ok());
/// assert!(policy.check_url("ftp://example.com/").is_err());
/// assert!(policy.check_url("http://0x7f.1/").is_err()); // 127.0.0.1, not allow-listed
/// assert!(policy.check_resolved("localhost", &["127.0.0.1:8888".parse()?]).is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkPolicy {
    allowed_names: BTreeSet<String>,
    allowed_ips: BTreeSet<IpAddr>,
    max_body_bytes: usize,
    timeouts: Timeouts,
}

impl Default for NetworkPolicy {
    fn default() -> Self {
        NetworkPolicy::new()
    }
}

impl NetworkPolicy {
    /// The default policy: only public addresses, a 5 MiB body cap and [`Timeouts::FETCH`].
    pub fn new() -> Self {
        NetworkPolicy {
            allowed_names: BTreeSet::new(),
            allowed_ips: BTreeSet::new(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            timeouts: Timeouts::FETCH,
        }
    }

    /// The default policy with [`Timeouts::SEARCH`].
    pub fn for_search() -> Self {
        NetworkPolicy::new().with_timeouts(Timeouts::SEARCH)
    }

    /// Allow a host that is not public: an exact host name (`localhost`, `searxng.lan`; case and
    /// a trailing dot or `:port` are ignored) or an IP address in any spelling (`127.0.0.1`,
    /// `[::1]`). Names are not wildcards: `example.lan` does not allow `www.example.lan`.
    pub fn allow_host(mut self, host: &str) -> Self {
        let normalized = normalize_host(host);
        if normalized.is_empty() {
            return self;
        }
        match parse_ip_host(&normalized) {
            Some(ip) => {
                self.allowed_ips.insert(ip.to_canonical());
            }
            None => {
                self.allowed_names.insert(normalized);
            }
        }
        self
    }

    /// Allow several hosts; see [`NetworkPolicy::allow_host`].
    pub fn allow_hosts<I, S>(self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        hosts
            .into_iter()
            .fold(self, |policy, host| policy.allow_host(host.as_ref()))
    }

    /// Set the cap on the decoded bytes read from one response body (at least 1).
    pub fn with_max_body_bytes(mut self, max: usize) -> Self {
        self.max_body_bytes = max.max(1);
        self
    }

    /// Set the time limits.
    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// The cap on the decoded bytes read from one response body.
    pub fn max_body_bytes(&self) -> usize {
        self.max_body_bytes
    }

    /// The time limits.
    pub fn timeouts(&self) -> Timeouts {
        self.timeouts
    }

    /// The allow-listed host names and addresses.
    pub fn allowed_hosts(&self) -> Vec<String> {
        let names = self.allowed_names.iter().cloned();
        names
            .chain(self.allowed_ips.iter().map(IpAddr::to_string))
            .collect()
    }

    /// Whether `host` (a name or an address in any spelling) is on the allow-list.
    pub fn is_host_allowed(&self, host: &str) -> bool {
        let normalized = normalize_host(host);
        match parse_ip_host(&normalized) {
            Some(ip) => self.allowed_ips.contains(&ip.to_canonical()),
            None => self.allowed_names.contains(&normalized),
        }
    }

    /// Check one address that `host` stands for or resolved to.
    ///
    /// Allowed when the address is public, when the address itself is allow-listed, or when the
    /// host name is allow-listed and the address is not a cloud metadata endpoint.
    pub fn check_address(
        &self,
        host: &str,
        address: IpAddr,
        resolved: bool,
    ) -> Result<(), WebError> {
        let class = classify(address);
        if class.is_public() || self.allowed_ips.contains(&address.to_canonical()) {
            return Ok(());
        }
        if class != AddressClass::CloudMetadata && resolved && self.is_host_allowed(host) {
            return Ok(());
        }
        Err(WebError::Refused {
            host: normalize_host(host),
            address,
            class,
            resolved,
        })
    }

    /// Check every address a host name resolved to; any refused address refuses the host (a
    /// name that resolves to both a public and a private address is refused).
    pub fn check_resolved(&self, host: &str, addrs: &[SocketAddr]) -> Result<(), WebError> {
        if addrs.is_empty() {
            return Err(WebError::Resolve {
                host: host.to_owned(),
                message: "no addresses found".to_owned(),
            });
        }
        addrs
            .iter()
            .try_for_each(|addr| self.check_address(host, addr.ip(), true))
    }

    /// Parse and check a URL before anything is sent: `http` or `https`, a host, and if the
    /// host is an IP address, a public or allow-listed one. Host names are checked after
    /// resolution by [`NetworkPolicy::check_resolved`].
    pub fn check_url(&self, url: &str) -> Result<Url, WebError> {
        let trimmed = url.trim();
        let parsed = Url::parse(trimmed).map_err(|e| {
            let reason = match e {
                // Text with spaces is a search query, not a host name: no "did you mean".
                url::ParseError::RelativeUrlWithoutBase
                    if trimmed.is_empty() || trimmed.contains(char::is_whitespace) =>
                {
                    "must be http or https".to_owned()
                }
                url::ParseError::RelativeUrlWithoutBase => {
                    format!("must be http or https; did you mean \"https://{trimmed}\"?")
                }
                other => format!("{other}"),
            };
            WebError::InvalidUrl {
                url: url.to_owned(),
                reason,
            }
        })?;
        self.check_parsed_url(&parsed)?;
        Ok(parsed)
    }

    /// [`NetworkPolicy::check_url`] for a URL that is already parsed.
    pub fn check_parsed_url(&self, url: &Url) -> Result<(), WebError> {
        let invalid = |reason: &str| WebError::InvalidUrl {
            url: url.to_string(),
            reason: reason.to_owned(),
        };
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid("must be http or https"));
        }
        match url.host() {
            None => Err(invalid("missing host")),
            Some(Host::Ipv4(ip)) => self.check_address(&ip.to_string(), IpAddr::V4(ip), false),
            Some(Host::Ipv6(ip)) => self.check_address(&ip.to_string(), IpAddr::V6(ip), false),
            Some(Host::Domain(name)) => match parse_ip_host(name) {
                // The URL parser already reads IPv4 spellings for http(s); this is the backstop.
                Some(ip) => self.check_address(name, ip, false),
                None => Ok(()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::WebErrorKind;

    fn refused(policy: &NetworkPolicy, url: &str) -> AddressClass {
        match policy.check_url(url) {
            Err(WebError::Refused { class, .. }) => class,
            other => panic!("{url}: expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn only_http_and_https() {
        let policy = NetworkPolicy::new();
        for url in [
            "ftp://example.com",
            "file:///etc/passwd",
            "gopher://x",
            "data:text/plain,hi",
        ] {
            let err = policy.check_url(url).unwrap_err();
            assert!(
                err.to_string()
                    .starts_with("Invalid URL: must be http or https"),
                "{url}: {err}"
            );
            assert_eq!(err.kind(), WebErrorKind::User);
        }
        let err = policy.check_url("example.com/page").unwrap_err();
        assert!(
            err.to_string()
                .contains("did you mean \"https://example.com/page\""),
            "{err}"
        );
        let err = policy.check_url("rust async runtime").unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid URL: must be http or https (got \"rust async runtime\")"
        );
        assert!(policy.check_url("http://").is_err());
        assert!(policy.check_url("https://example.com/a?b=c#d").is_ok());
        assert!(policy.check_url("  http://example.com  ").is_ok());
    }

    #[test]
    fn refuses_non_public_literals_in_every_spelling() {
        let policy = NetworkPolicy::new();
        let cases = [
            ("http://127.0.0.1/", AddressClass::Loopback),
            ("http://2130706433/", AddressClass::Loopback),
            ("http://0177.0.0.1/", AddressClass::Loopback),
            ("http://0x7f.1/", AddressClass::Loopback),
            ("http://127.1:8080/", AddressClass::Loopback),
            ("http://[::1]/", AddressClass::Loopback),
            ("http://[::ffff:127.0.0.1]/", AddressClass::Loopback),
            ("http://[::ffff:a9fe:a9fe]/", AddressClass::CloudMetadata),
            (
                "http://169.254.169.254/latest/meta-data/",
                AddressClass::CloudMetadata,
            ),
            ("http://0xa9fea9fe/", AddressClass::CloudMetadata),
            ("http://[fd00:ec2::254]/", AddressClass::CloudMetadata),
            ("http://10.0.0.1/", AddressClass::Private),
            ("http://192.168.0.1./", AddressClass::Private),
            ("https://100.64.0.1/", AddressClass::SharedCgnat),
            ("http://[fe80::1]/", AddressClass::LinkLocal),
            ("http://0.0.0.0:80/", AddressClass::Unspecified),
            ("http://user:pw@127.0.0.1/", AddressClass::Loopback),
            ("http://example.com@127.0.0.1/", AddressClass::Loopback),
        ];
        for (url, class) in cases {
            assert_eq!(refused(&policy, url), class, "{url}");
        }
    }

    #[test]
    fn allow_list_by_address_and_by_name() {
        let policy = NetworkPolicy::new()
            .allow_host("127.0.0.1")
            .allow_host("[::1]:8080")
            .allow_host("SearXNG.lan.")
            .allow_host("localhost:8888");
        assert!(policy.check_url("http://127.0.0.1:9/").is_ok());
        assert!(policy.check_url("http://0x7f000001/").is_ok());
        assert!(policy.check_url("http://[::1]/").is_ok());
        assert!(policy.check_url("http://[::ffff:127.0.0.1]/").is_ok());
        assert_eq!(
            refused(&policy, "http://127.0.0.2/"),
            AddressClass::Loopback
        );
        assert!(policy.is_host_allowed("searxng.lan"));
        assert!(policy.is_host_allowed("LOCALHOST"));
        assert!(!policy.is_host_allowed("www.searxng.lan"));

        let private: SocketAddr = "192.168.1.20:8888".parse().unwrap();
        assert!(policy.check_resolved("searxng.lan", &[private]).is_ok());
        assert!(policy.check_resolved("other.lan", &[private]).is_err());
        // An allow-listed address is reachable under any name.
        let lo: SocketAddr = "127.0.0.1:80".parse().unwrap();
        assert!(policy.check_resolved("anything.example", &[lo]).is_ok());
        let mut hosts = policy.allowed_hosts();
        hosts.sort();
        assert_eq!(hosts, ["127.0.0.1", "::1", "localhost", "searxng.lan"]);
    }

    #[test]
    fn allow_listed_names_never_open_metadata() {
        let policy = NetworkPolicy::new().allow_host("metadata.google.internal");
        let md: SocketAddr = "169.254.169.254:80".parse().unwrap();
        let err = policy
            .check_resolved("metadata.google.internal", &[md])
            .unwrap_err();
        assert!(
            err.to_string().contains("--allow-host 169.254.169.254"),
            "{err}"
        );
        let policy = policy.allow_host("169.254.169.254");
        assert!(
            policy
                .check_resolved("metadata.google.internal", &[md])
                .is_ok()
        );
    }

    #[test]
    fn resolution_refuses_any_non_public_address() {
        let policy = NetworkPolicy::new();
        let public: SocketAddr = "93.184.216.34:443".parse().unwrap();
        let private: SocketAddr = "10.1.2.3:443".parse().unwrap();
        let mapped: SocketAddr = "[::ffff:192.168.0.1]:443".parse().unwrap();
        assert!(policy.check_resolved("example.com", &[public]).is_ok());
        let err = policy
            .check_resolved("evil.example", &[public, private])
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("evil.example") && text.contains("10.1.2.3"),
            "{text}"
        );
        assert!(text.contains("private network"), "{text}");
        assert!(text.contains("--allow-host evil.example"), "{text}");
        assert!(policy.check_resolved("evil.example", &[mapped]).is_err());
        let err = policy.check_resolved("nothing.example", &[]).unwrap_err();
        assert!(matches!(err, WebError::Resolve { .. }));
    }

    #[test]
    fn settings() {
        let policy = NetworkPolicy::for_search().with_max_body_bytes(0);
        assert_eq!(policy.timeouts(), Timeouts::SEARCH);
        assert_eq!(policy.max_body_bytes(), 1);
        assert_eq!(
            NetworkPolicy::default().timeouts().connect,
            Duration::from_secs(5)
        );
        assert_eq!(
            NetworkPolicy::new().allow_host("  ").allowed_hosts().len(),
            0
        );
        let many = NetworkPolicy::new().allow_hosts(["a.lan", "b.lan"]);
        assert_eq!(many.allowed_hosts().len(), 2);
    }
}
