//! Latency of one `tools/call` over streamable HTTP on loopback, one call after another:
//! 1,000 calls on ONE kept-alive HTTP/1.1 connection beside 1,000 calls on a fresh
//! connection each, under both protocol versions (a 2025-11-25 session, whose answer is an
//! SSE stream of several small writes; 2026-07-28, no session).
//!
//! ```text
//! cargo bench --bench http_latency
//! ```
//!
//! Prints the median and the 99th percentile per call for each, side by side in the same
//! run for two servers of the same router: [`HttpServer`] (what `toolsmith serve --http`
//! runs: `TCP_NODELAY` on every accepted connection) and, as the baseline, `axum::serve` on
//! a plain listener (Nagle's algorithm on, as `HttpServer` served before: each small write
//! after the first waited for the client's delayed ACK, ~44 ms a call on a kept-alive
//! connection). Goal: a kept-alive median under 2 ms, no worse than a fresh connection's.
//! The client is a raw `TcpStream` that writes each request in one piece, as HTTP clients do.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use serde_json::json;
use toolsmith::mcp::{HttpServer, ServeOptions};
use toolsmith::{Registry, Runtime};

#[path = "support/echo.rs"]
mod echo;
use echo::EchoTool;

fn runtime() -> Runtime {
    let registry = Registry::builder()
        .register(EchoTool)
        .build()
        .expect("registry");
    Runtime::builder(registry).dedupe(false).build()
}

/// The protocol a client speaks.
#[derive(Clone, Copy)]
enum Protocol {
    /// 2025-11-25: `initialize` first, then every request carries the session's id.
    Session,
    /// 2026-07-28: no session; every request carries `_meta` and the method headers.
    Stateless,
}

impl Protocol {
    fn label(self) -> &'static str {
        match self {
            Protocol::Session => "2025-11-25",
            Protocol::Stateless => "2026-07-28",
        }
    }
}

/// One client of the server at `addr`: its session (2025-11-25) and, when kept alive, its
/// one connection.
struct Client {
    addr: SocketAddr,
    protocol: Protocol,
    session: Option<String>,
    connection: Option<BufReader<TcpStream>>,
}

impl Client {
    fn new(addr: SocketAddr, protocol: Protocol) -> Client {
        let mut client = Client {
            addr,
            protocol,
            session: None,
            connection: None,
        };
        if let Protocol::Session = protocol {
            let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            }});
            let (head, _) = client.post(&init.to_string(), "initialize", false);
            client.session = head.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("mcp-session-id")
                    .then(|| v.trim().to_owned())
            });
            assert!(client.session.is_some(), "no session id: {head}");
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            client.post(&initialized.to_string(), "notifications/initialized", false);
        }
        client
    }

    /// A `tools/call` of `echo` with `n`, on the kept-alive connection or a fresh one.
    fn call(&mut self, n: u64, keep_alive: bool) {
        let mut params = json!({"name": "echo", "arguments": {"n": n}});
        if let Protocol::Stateless = self.protocol {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
            });
        }
        let call = json!({"jsonrpc": "2.0", "id": n + 1, "method": "tools/call", "params": params});
        let (head, body) = self.post(&call.to_string(), "tools/call", keep_alive);
        assert!(
            head.starts_with("HTTP/1.1 200") && body.contains(&format!("\"n\":{n}")),
            "call {n}: {head}\n{body}"
        );
    }

    /// POSTs `body`; the answer's head and body, read to the end of the answer (not of the
    /// connection).
    fn post(&mut self, body: &str, method: &str, keep_alive: bool) -> (String, String) {
        let (version, extra) = match self.protocol {
            Protocol::Session => (
                "2025-11-25",
                self.session
                    .as_ref()
                    .map(|id| format!("Mcp-Session-Id: {id}\r\n"))
                    .unwrap_or_default(),
            ),
            Protocol::Stateless => (
                "2026-07-28",
                format!("Mcp-Method: {method}\r\nMcp-Name: echo\r\n"),
            ),
        };
        let close = if keep_alive {
            ""
        } else {
            "Connection: close\r\n"
        };
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {version}\r\n\
             {extra}{close}Content-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        let mut connection = match self.connection.take() {
            Some(c) if keep_alive => c,
            _ => {
                let s = TcpStream::connect(self.addr).expect("connect");
                s.set_read_timeout(Some(Duration::from_secs(30)))
                    .expect("timeout");
                BufReader::new(s)
            }
        };
        connection
            .get_mut()
            .write_all(request.as_bytes())
            .expect("write");
        let answer = read_answer(&mut connection);
        if keep_alive {
            self.connection = Some(connection);
        }
        answer
    }
}

/// Reads one HTTP/1.1 answer: the head, then a body framed by `Content-Length` or chunked.
fn read_answer(r: &mut BufReader<TcpStream>) -> (String, String) {
    let mut head = String::new();
    loop {
        let mut line = String::new();
        r.read_line(&mut line).expect("head");
        if line == "\r\n" || line.is_empty() {
            break;
        }
        head.push_str(&line);
    }
    let lower = head.to_ascii_lowercase();
    let mut body = Vec::new();
    if lower.contains("transfer-encoding: chunked") {
        loop {
            let mut size = String::new();
            r.read_line(&mut size).expect("chunk size");
            let n = usize::from_str_radix(size.trim(), 16).expect("chunk size");
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk).expect("chunk");
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else {
        let n = lower
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        body.resize(n, 0);
        r.read_exact(&mut body).expect("body");
    }
    (head, String::from_utf8_lossy(&body).into_owned())
}

/// `calls` calls one after another; each one's latency.
fn measure(addr: SocketAddr, protocol: Protocol, keep_alive: bool, calls: u64) -> Vec<Duration> {
    let mut client = Client::new(addr, protocol);
    (0..calls)
        .map(|n| {
            let start = Instant::now();
            client.call(n, keep_alive);
            start.elapsed()
        })
        .collect()
}

/// "median / p99 ms" of `times`.
fn summary(mut times: Vec<Duration>) -> String {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let median = ms(times[times.len() / 2]);
    let p99 = ms(times[(times.len() * 99 / 100).min(times.len() - 1)]);
    format!("{median:7.3} / {p99:7.3} ms")
}

/// The server of the side measured, on an ephemeral loopback port.
async fn start(nodelay: bool) -> SocketAddr {
    let addr: SocketAddr = "127.0.0.1:0".parse().expect("addr");
    if nodelay {
        let server = HttpServer::bind(addr, runtime(), ServeOptions::new("bench"))
            .await
            .expect("bind");
        let addr = server.local_addr().expect("addr");
        tokio::spawn(server.run());
        addr
    } else {
        let router = toolsmith::mcp::router(runtime(), ServeOptions::new("bench")).expect("router");
        let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, router).await });
        addr
    }
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    // `cargo test --benches` runs this with `--bench` absent: keep that quick.
    let calls = if std::env::args().any(|a| a == "--bench") {
        1000
    } else {
        20
    };
    println!("http latency per tools/call, {calls} calls each, median / p99:");
    println!(
        "  {:<38} {:<11} {:<22} fresh connection",
        "server", "protocol", "kept-alive"
    );
    for (label, nodelay) in [
        ("HttpServer (TCP_NODELAY)", true),
        ("baseline: axum::serve, no TCP_NODELAY", false),
    ] {
        let addr = start(nodelay).await;
        for protocol in [Protocol::Session, Protocol::Stateless] {
            let (kept, fresh) = tokio::task::spawn_blocking(move || {
                // A few calls first, so neither side pays for the first connection's setup.
                measure(addr, protocol, true, 10);
                let kept = measure(addr, protocol, true, calls);
                let fresh = measure(addr, protocol, false, calls);
                (kept, fresh)
            })
            .await
            .expect("client");
            println!(
                "  {label:<38} {:<11} {:<22} {}",
                protocol.label(),
                summary(kept),
                summary(fresh)
            );
        }
    }
}
