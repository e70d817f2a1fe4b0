//! The proxy sandboxed commands reach allowed hosts through, when the network is off for them
//! but [`SandboxConfig::network_hosts`](super::SandboxConfig::network_hosts) names hosts.
//!
//! It listens on `127.0.0.1` on a port of its own, and commands get `http_proxy`,
//! `https_proxy` and `all_proxy` pointing there. It takes `CONNECT host:port` (HTTPS and any
//! other TCP protocol a client tunnels) and plain HTTP requests in absolute form
//! (`GET http://host/path`), checks the host and port against the list, resolves the name
//! itself and connects to its public addresses only (a listed name that resolves to a
//! loopback or private address is refused; listing the address allows it); anything else
//! is answered `403` with the list. In the sandbox the
//! command may open TCP sockets but connect only to the proxy's port (Landlock's network
//! rights, ABI 4), and no UDP, raw or packet socket (the seccomp filter), so no other route
//! leaves it: not even a DNS query.
//!
//! Each list of hosts gets one proxy, started on first use on a thread of its own (with a
//! runtime of its own, so it outlives the runtime of the call that started it) and kept for
//! the life of the process.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use crate::trust::net::{self, HostPattern, host_and_port, parse_port, split_host_port};

/// The longest request head the proxy reads.
pub const MAX_PROXY_HEAD: usize = 16 * 1024;

/// The most connections one proxy carries at once; more wait.
pub const MAX_PROXY_CONNECTIONS: usize = 64;

/// The most host lists proxies are started for in one process.
pub const MAX_PROXIES: usize = 16;

/// How long a client has to send its request head, and the proxy to connect onwards.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// The port of the proxy for `hosts`, started when there is none yet.
pub(crate) fn port_for(hosts: &[String]) -> Result<u16, String> {
    static STARTED: Mutex<Vec<(Vec<String>, u16)>> = Mutex::new(Vec::new());
    let mut started = STARTED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, port)) = started.iter().find(|(list, _)| list.as_slice() == hosts) {
        return Ok(*port);
    }
    if started.len() >= MAX_PROXIES {
        return Err(format!(
            "more than {MAX_PROXIES} different lists of allowed hosts were used; use fewer"
        ));
    }
    let patterns = hosts
        .iter()
        .map(|h| HostPattern::parse(h))
        .collect::<Result<Vec<_>, _>>()?;
    let port = start(patterns)?;
    started.push((hosts.to_vec(), port));
    Ok(port)
}

/// Starts a proxy for `patterns` on a thread of its own; its port.
fn start(patterns: Vec<HostPattern>) -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|e| format!("cannot start the network proxy: {e}"))?;
    let port = listener
        .local_addr()
        .map_err(|e| format!("cannot start the network proxy: {e}"))?
        .port();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the network proxy: {e}"))?;
    let patterns = Arc::new(patterns);
    std::thread::Builder::new()
        .name("bash-network-proxy".to_owned())
        .spawn(move || {
            runtime.block_on(async move {
                let Ok(listener) = TcpListener::from_std(listener) else {
                    return;
                };
                let room = Arc::new(Semaphore::new(MAX_PROXY_CONNECTIONS));
                loop {
                    let client = match listener.accept().await {
                        Ok((client, _)) => client,
                        // Out of descriptors, say: wait for some to be given back.
                        Err(_) => {
                            tokio::time::sleep(Duration::from_millis(100)).await;
                            continue;
                        }
                    };
                    // A client beyond the limit hears so at once, rather than waiting unseen.
                    let Ok(permit) = room.clone().try_acquire_owned() else {
                        let full = answer(
                            "503 Service Unavailable",
                            "the proxy carries as many connections as it may; try again later",
                        );
                        let _ = client.try_write(full.as_bytes());
                        continue;
                    };
                    let patterns = patterns.clone();
                    tokio::spawn(async move {
                        let _ = serve(client, &patterns, port).await;
                        drop(permit);
                    });
                }
            });
        })
        .map_err(|e| format!("cannot start the network proxy: {e}"))?;
    Ok(port)
}

/// What a client asked for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Wanted {
    pub(crate) host: String,
    pub(crate) port: u16,
    /// `None` for `CONNECT`; else the request head to send on, in origin form.
    pub(crate) forward: Option<Vec<u8>>,
}

/// Reads a request head: `CONNECT host:port` or an absolute-form HTTP request.
pub(crate) fn parse_head(head: &[u8]) -> Result<Wanted, String> {
    let text = std::str::from_utf8(head).map_err(|_| "the request is not text".to_owned())?;
    let (first, rest) = text.split_once("\r\n").unwrap_or((text, ""));
    let mut parts = first.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("a bad request line".to_owned());
    };
    if method == "CONNECT" {
        let (host, port) = split_authority(target, None)?;
        return Ok(Wanted {
            host,
            port,
            forward: None,
        });
    }
    let after = target
        .strip_prefix("http://")
        .ok_or("only http:// requests and CONNECT go through this proxy (https: use CONNECT)")?;
    let (authority, path) = match after.find('/') {
        Some(i) => (&after[..i], &after[i..]),
        None => (after, "/"),
    };
    let (host, port) = split_authority(authority, Some(80))?;
    // The request goes on with the target's own `Host` (a CDN routes by it, so another one
    // would reach a site that is not listed) and ends the connection after its answer: what
    // follows on it is copied through unread, so a second request must not ride along.
    let shown = host_and_port(&host, (port != 80).then_some(port));
    let mut forward = format!("{method} {path} {version}\r\nHost: {shown}\r\n");
    for line in rest.split("\r\n").filter(|l| !l.is_empty()) {
        let name = line
            .split(':')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if !(name.starts_with("proxy-") || name == "host" || name == "connection") {
            forward.push_str(line);
            forward.push_str("\r\n");
        }
    }
    forward.push_str("Connection: close\r\n\r\n");
    Ok(Wanted {
        host,
        port,
        forward: Some(forward.into_bytes()),
    })
}

/// The host and port of a request's target (`host:port`, `[v6]:port`, with `user@` before
/// it left out); `default_port` where none is given.
fn split_authority(authority: &str, default_port: Option<u16>) -> Result<(String, u16), String> {
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let (host, port) = split_host_port(authority)?;
    let port = match port {
        Some(p) => parse_port(p).ok_or("a bad port")?,
        None => default_port.ok_or("no port")?,
    };
    if host.is_empty() {
        return Err("no host".to_owned());
    }
    Ok((host.to_owned(), port))
}

/// Serves one client of the proxy listening on `own_port`.
async fn serve(
    mut client: TcpStream,
    patterns: &[HostPattern],
    own_port: u16,
) -> std::io::Result<()> {
    let mut head = Vec::with_capacity(1024);
    let read = tokio::time::timeout(HEAD_TIMEOUT, async {
        let mut buf = [0u8; 2048];
        loop {
            if let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") {
                return Ok(end);
            }
            if head.len() > MAX_PROXY_HEAD {
                return Err(());
            }
            let n = client.read(&mut buf).await.map_err(|_| ())?;
            if n == 0 {
                return Err(());
            }
            head.extend_from_slice(&buf[..n]);
        }
    })
    .await;
    let Ok(Ok(end)) = read else {
        return refuse(&mut client, "400 Bad Request", "no complete request head").await;
    };
    let body_start = head.split_off(end + 4);
    let wanted = match parse_head(&head[..end]) {
        Ok(w) => w,
        Err(why) => return refuse(&mut client, "400 Bad Request", &why).await,
    };
    if !patterns.iter().any(|p| p.allows(&wanted.host, wanted.port)) {
        let list: Vec<String> = patterns.iter().map(HostPattern::shown).collect();
        let why = format!(
            "{}:{} is not among the hosts commands may reach ({}); the user can add it \
             with --bash-network-host or `network_hosts` under [bash] in toolsmith.toml",
            wanted.host,
            wanted.port,
            list.join(", ")
        );
        return refuse(&mut client, "403 Forbidden", &why).await;
    }
    let onwards = tokio::time::timeout(HEAD_TIMEOUT, connect(&wanted.host, wanted.port, own_port));
    let mut upstream = match onwards.await {
        Ok(Ok(s)) => s,
        Ok(Err(Onwards::Refused(why))) => {
            return refuse(&mut client, "403 Forbidden", &why).await;
        }
        Ok(Err(Onwards::Failed(why))) => {
            return refuse(&mut client, "502 Bad Gateway", &why).await;
        }
        Err(_) => return refuse(&mut client, "504 Gateway Timeout", "no answer").await,
    };
    match &wanted.forward {
        None => {
            client
                .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                .await?
        }
        Some(forward) => upstream.write_all(forward).await?,
    }
    upstream.write_all(&body_start).await?;
    tokio::io::copy_bidirectional(&mut client, &mut upstream).await?;
    Ok(())
}

/// Why the proxy did not connect onwards.
#[derive(Debug)]
enum Onwards {
    /// The name resolves only to addresses a name on the list may not lead to.
    Refused(String),
    /// The name did not resolve, or no address answered.
    Failed(String),
}

/// Connects to an allowed `host`, not the proxy itself (on `own_port`). An address is connected to as it is: the list names it
/// (patterns match addresses by their text only). A name is resolved here, and only its
/// public addresses are tried ([`net::classify`], as the web tool judges them): a
/// listed name that resolves to a loopback, private, link-local or metadata address (a
/// rebinding name, or a stale record) does not open the host's own network to commands;
/// listing that address itself does.
async fn connect(host: &str, port: u16, own_port: u16) -> Result<TcpStream, Onwards> {
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        // Through itself, the proxy would spend its connections on one client.
        if (ip.is_loopback() || ip.is_unspecified()) && port == own_port {
            return Err(Onwards::Refused(
                "that is this proxy itself; name the host to reach".to_owned(),
            ));
        }
        return TcpStream::connect((ip, port))
            .await
            .map_err(|e| Onwards::Failed(e.to_string()));
    }
    let resolved: Vec<std::net::SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| Onwards::Failed(format!("cannot resolve {host}: {e}")))?
        .collect();
    let (public, other): (Vec<&std::net::SocketAddr>, Vec<_>) = resolved
        .iter()
        .partition(|a| net::classify(a.ip()).is_public());
    if public.is_empty() {
        let Some(first) = other.first() else {
            return Err(Onwards::Failed(format!("{host} has no address")));
        };
        return Err(Onwards::Refused(format!(
            "{host} resolves to {} ({}), and a listed name leads to public addresses only; \
             to allow that address, list it instead of the name (--bash-network-host {})",
            first.ip(),
            net::classify(first.ip()).description(),
            first
        )));
    }
    let mut last = None;
    for address in public {
        match TcpStream::connect(address).await {
            Ok(stream) => return Ok(stream),
            Err(e) => last = Some(e),
        }
    }
    Err(Onwards::Failed(last.map_or_else(
        || "no address answered".to_owned(),
        |e| e.to_string(),
    )))
}

async fn refuse(client: &mut TcpStream, status: &str, why: &str) -> std::io::Result<()> {
    client.write_all(answer(status, why).as_bytes()).await?;
    client.shutdown().await
}

/// The proxy's own answer: `status` and why, as text.
fn answer(status: &str, why: &str) -> String {
    let body = format!("toolsmith sandbox: {why}\n");
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends `request` to a proxy for `127.0.0.1:1` and returns its answer.
    fn ask(request: &[u8]) -> String {
        use std::io::{Read, Write};
        let port = port_for(&["127.0.0.1:1".to_owned()]).unwrap();
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        // The proxy may answer and close before it has read everything.
        let _ = stream.write_all(request);
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    }

    #[test]
    fn the_proxy_refuses_unlisted_hosts_bad_requests_and_overlong_heads() {
        let answer = ask(b"CONNECT 127.0.0.1:2 HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        assert!(answer.contains("127.0.0.1:2 is not among"), "{answer}");
        assert!(answer.contains("(127.0.0.1:1)"), "names the list: {answer}");
        let answer = ask(b"GET /relative HTTP/1.1\r\n\r\n");
        assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
        let mut long = b"GET http://127.0.0.1:1/ HTTP/1.1\r\nX: ".to_vec();
        long.extend(std::iter::repeat_n(b'a', MAX_PROXY_HEAD + 10));
        let answer = ask(&long);
        assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
        assert!(answer.contains("no complete request head"), "{answer}");
        // A listed host that is not listening: the proxy says so.
        let answer = ask(b"GET http://127.0.0.1:1/ HTTP/1.1\r\n\r\n");
        assert!(answer.starts_with("HTTP/1.1 502"), "{answer}");
    }

    #[test]
    fn a_full_proxy_says_so_and_the_proxy_is_not_its_own_host() {
        use std::io::{Read, Write};
        // A list of its own, so a proxy of its own: `127.0.0.1` on any port.
        let port = port_for(&["127.0.0.1".to_owned()]).unwrap();
        let connect = || {
            let stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            stream
        };
        let mut own = connect();
        own.write_all(format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n").as_bytes())
            .unwrap();
        let mut answer = String::new();
        let _ = own.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        assert!(answer.contains("this proxy itself"), "{answer}");
        // Clients that send nothing hold every connection the proxy may carry.
        let idle: Vec<_> = (0..MAX_PROXY_CONNECTIONS).map(|_| connect()).collect();
        std::thread::sleep(Duration::from_millis(200));
        let mut answer = String::new();
        let _ = connect().read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
        assert!(answer.contains("as many connections as it may"), "{answer}");
        drop(idle);
    }

    #[tokio::test]
    async fn a_listed_name_leads_to_public_addresses_only() {
        // `localhost` resolves from the hosts file to loopback addresses only; no packet
        // leaves for the refusal.
        let Err(Onwards::Refused(why)) = connect("localhost", 1, 2).await else {
            panic!("a name resolving to loopback was connected to");
        };
        assert!(why.contains("a loopback address"), "{why}");
        assert!(why.contains("list it instead of the name"), "{why}");
        // The address itself, listed, is connected to (nothing listens on port 1).
        assert!(matches!(
            connect("127.0.0.1", 1, 2).await,
            Err(Onwards::Failed(_))
        ));
    }

    #[test]
    fn request_heads_are_read_as_connect_or_absolute_http() {
        let connect = parse_head(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com").unwrap();
        assert_eq!((connect.host.as_str(), connect.port), ("example.com", 443));
        assert!(connect.forward.is_none());
        let get = parse_head(
            b"GET http://[::1]:8080/a?b HTTP/1.1\r\nHost: x\r\nProxy-Connection: keep-alive",
        )
        .unwrap();
        assert_eq!((get.host.as_str(), get.port), ("::1", 8080));
        assert_eq!(
            String::from_utf8(get.forward.unwrap()).unwrap(),
            "GET /a?b HTTP/1.1\r\nHost: [::1]:8080\r\nConnection: close\r\n\r\n",
            "the target's own Host, and one request per connection"
        );
        let fronted = parse_head(
            b"GET http://crates.io/ HTTP/1.1\r\nHost: attacker.example\r\nConnection: keep-alive\r\nAccept: */*",
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(fronted.forward.unwrap()).unwrap(),
            "GET / HTTP/1.1\r\nHost: crates.io\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        );
        let plain = parse_head(b"GET http://example.com HTTP/1.1").unwrap();
        assert_eq!(plain.port, 80);
        for bad in [
            &b"GET /relative HTTP/1.1"[..],
            b"GET https://example.com/ HTTP/1.1",
            b"CONNECT example.com HTTP/1.1",
            b"CONNECT ::1:80 HTTP/1.1",
            b"CONNECT example.com:0 HTTP/1.1",
            b"GARBAGE",
        ] {
            assert!(parse_head(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
