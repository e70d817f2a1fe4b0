//! Host patterns and the spellings of hosts and ports: what the sandbox's allow-list of
//! hosts, the web tool's allow-list of non-public hosts and the rules' `web(fetch:HOST)`
//! specifiers are written in.

/// One allowed host: a name (or `*.` and a domain: any name beneath it, not the domain
/// itself), or an address; with a port, that port only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPattern {
    host: String,
    port: Option<u16>,
}

impl HostPattern {
    /// Parses `host`, `*.domain`, `host:port`, `[v6]` or `[v6]:port`.
    pub fn parse(text: &str) -> Result<HostPattern, String> {
        let bad = |why: &str| {
            format!(
                "`{text}` is not a host pattern ({why}); write a host name \
                 (`crates.io`), `*.` and a domain (`*.github.com`), an address, and \
                 optionally `:port`"
            )
        };
        let (host, port) = split_host_port(text.trim()).map_err(bad)?;
        let port = port
            .map(|p| parse_port(p).ok_or_else(|| bad("bad port")))
            .transpose()?;
        let name = host.strip_prefix("*.").unwrap_or(host);
        let valid = !name.is_empty()
            && name.len() <= 253
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '_'));
        if !valid {
            return Err(bad("not a host name or address"));
        }
        Ok(HostPattern {
            host: host.to_ascii_lowercase(),
            port,
        })
    }

    /// Whether a connection to `host` (a name or an address, without brackets) on `port`
    /// is allowed by this pattern.
    pub fn allows(&self, host: &str, port: u16) -> bool {
        if self.port.is_some_and(|p| p != port) {
            return false;
        }
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        match self.host.strip_prefix("*.") {
            Some(domain) => host
                .strip_suffix(domain)
                .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.')),
            None => host == self.host,
        }
    }

    /// How a list names this pattern: `host`, `host:port`, `[v6]:port`.
    pub fn shown(&self) -> String {
        host_and_port(&self.host, self.port)
    }
}

/// `host` and `port` as a URL's authority: an IPv6 address in brackets.
pub fn host_and_port(host: &str, port: Option<u16>) -> String {
    match (host.contains(':'), port) {
        (true, Some(p)) => format!("[{host}]:{p}"),
        (true, None) => format!("[{host}]"),
        (false, Some(p)) => format!("{host}:{p}"),
        (false, None) => host.to_owned(),
    }
}

/// Splits `host`, `host:port`, `[v6]` or `[v6]:port` into the host (without brackets) and
/// the port's text; an IPv6 address must be in brackets.
pub fn split_host_port(text: &str) -> Result<(&str, Option<&str>), &'static str> {
    if let Some(rest) = text.strip_prefix('[') {
        let (v6, after) = rest.split_once(']').ok_or("no closing `]`")?;
        match after.strip_prefix(':') {
            Some(port) => Ok((v6, Some(port))),
            None if after.is_empty() => Ok((v6, None)),
            None => Err("text after `]`"),
        }
    } else {
        match text.rsplit_once(':') {
            Some((host, _)) if host.contains(':') => Err("an IPv6 address goes in brackets"),
            Some((host, port)) => Ok((host, Some(port))),
            None => Ok((text, None)),
        }
    }
}

/// A port other than 0.
pub fn parse_port(text: &str) -> Option<u16> {
    text.parse().ok().filter(|&p| p != 0)
}

/// A host as written by a person: lower-case, without brackets, trailing dot or `:port`.
pub fn normalize_host(host: &str) -> String {
    let host = host.trim();
    let host = match host.rsplit_once(':') {
        // "localhost:8080" -> "localhost"; IPv6 literals keep their colons.
        Some((name, port))
            if !name.contains(':')
                && !port.is_empty()
                && port.bytes().all(|b| b.is_ascii_digit()) =>
        {
            name
        }
        Some((bracketed, port))
            if bracketed.starts_with('[')
                && bracketed.ends_with(']')
                && port.bytes().all(|b| b.is_ascii_digit()) =>
        {
            bracketed
        }
        _ => host,
    };
    let host = host.strip_suffix('.').unwrap_or(host);
    host.to_ascii_lowercase()
}

/// The host (lower-case, without brackets) and port of a URL, as a fetch would reach them; a
/// URL without a scheme is read as `https://`, a URL without a port has its scheme's.
pub fn host_of_url(url: &str) -> Option<(String, u16)> {
    let parsed = url::Url::parse(url)
        .or_else(|_| url::Url::parse(&format!("https://{url}")))
        .ok()?;
    let port = parsed.port_or_known_default()?;
    parsed.host_str().map(|h| {
        let host = h.trim_start_matches('[').trim_end_matches(']');
        (host.to_ascii_lowercase(), port)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_names_domains_addresses_and_ports() {
        let p = |s: &str| HostPattern::parse(s).unwrap();
        assert!(p("crates.io").allows("crates.io", 443));
        assert!(p("crates.io").allows("CRATES.IO.", 80));
        assert!(!p("crates.io").allows("static.crates.io", 443));
        assert!(p("*.github.com").allows("api.github.com", 443));
        assert!(!p("*.github.com").allows("github.com", 443));
        assert!(!p("*.github.com").allows("evilgithub.com", 443));
        assert!(p("127.0.0.1:8080").allows("127.0.0.1", 8080));
        assert!(!p("127.0.0.1:8080").allows("127.0.0.1", 8081));
        assert!(p("[::1]:9").allows("::1", 9));
        for bad in [
            "", "a b", "x:0", "x:99999", "::1", "[::1", "[::1]x", "*.", "a/b",
        ] {
            assert!(HostPattern::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hosts_are_normalized_and_urls_give_their_host() {
        assert_eq!(normalize_host(" LocalHost.:8080 "), "localhost");
        assert_eq!(normalize_host("[::1]:9"), "[::1]");
        let target = |url: &str| host_of_url(url).map(|(h, p)| format!("{h} {p}"));
        assert_eq!(target("https://Docs.RS/x").as_deref(), Some("docs.rs 443"));
        assert_eq!(target("http://[::1]:8080/a").as_deref(), Some("::1 8080"));
        assert_eq!(target("docs.rs/tokio").as_deref(), Some("docs.rs 443"));
        assert_eq!(target("http://x.org").as_deref(), Some("x.org 80"));
        assert_eq!(target("file:///etc/passwd"), None);
    }
}
