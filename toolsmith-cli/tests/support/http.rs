//! Raw HTTP/1.1 against a loopback server (`toolsmith serve --http`): a request written by
//! hand, its answer read whole, and the MCP requests of both protocol versions (a
//! 2025-11-25 session's `initialize`, the headers a 2026-07-28 request carries), so a test
//! sees exactly the status and headers the server sends.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

use super::mcp::{ServeProcess, meta_2026};

/// Sends a raw HTTP/1.1 request (`Connection: close`) and returns the connection, its
/// answer unread.
pub fn send(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> TcpStream {
    let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    s.write_all(req.as_bytes()).expect("write");
    s
}

/// A server's whole answer: the status, the head (lower-cased) and the body.
pub struct Http {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Http {
    /// Reads the answer on `connection` to its end.
    pub fn read(mut connection: TcpStream) -> Http {
        let mut raw = Vec::new();
        connection.read_to_end(&mut raw).expect("read");
        let text = String::from_utf8_lossy(&raw).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .expect("status code");
        Http {
            status,
            head: head.to_ascii_lowercase(),
            body: body.to_owned(),
        }
    }

    /// The value of header `name` (lower-case), if the answer has it.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k == name).then(|| v.trim())
        })
    }
}

/// The JSON-RPC message of an answer's body, as the server wrote it: the `data:` of an event
/// stream's message (without the event's own id), or the line of a JSON answer (a chunked
/// body's size lines aside).
pub fn message(body: &str) -> &str {
    let lines = || body.lines().map(str::trim);
    lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .find(|d| d.starts_with('{'))
        .or_else(|| lines().find(|l| l.starts_with('{')))
        .unwrap_or_else(|| panic!("a JSON-RPC message in {body:?}"))
}

/// A raw HTTP/1.1 request with an empty body, answered whole.
pub fn request(addr: &str, method: &str, path: &str, headers: &[(&str, &str)]) -> Http {
    Http::read(send(addr, method, path, headers, ""))
}

/// A raw `GET`, answered whole.
pub fn get(addr: &str, path: &str, headers: &[(&str, &str)]) -> Http {
    request(addr, "GET", path, headers)
}

/// `127.0.0.1:PORT` of the server's endpoint URL.
pub fn addr_of(server: &ServeProcess) -> String {
    let rest = server.url.strip_prefix("http://").expect("http url");
    rest.split_once('/').expect("path").0.to_owned()
}

/// The headers of a JSON-RPC POST to `/mcp` (with the session's id, if any).
pub fn mcp_headers<'a>(version: &'a str, session: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut h = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", version),
    ];
    h.extend(session.map(|id| ("Mcp-Session-Id", id)));
    h
}

/// Starts a 2025-11-25 session on the server at `addr` (`initialize`, then
/// `notifications/initialized`); its `Mcp-Session-Id`.
pub fn initialize_2025(addr: &str, client: &str) -> String {
    initialize(addr, client, "2025-11-25")
}

/// Starts a session of protocol `version` (one that has `initialize`) on the server at
/// `addr`; its `Mcp-Session-Id`.
pub fn initialize(addr: &str, client: &str, version: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": client, "version": "1"},
    }});
    let answer = Http::read(send(
        addr,
        "POST",
        "/mcp",
        &mcp_headers(version, None),
        &init.to_string(),
    ));
    assert_eq!(answer.status, 200, "initialize: {}", answer.body);
    assert!(
        answer
            .body
            .contains(&format!("\"protocolVersion\":\"{version}\"")),
        "{version} agreed: {}",
        answer.body
    );
    let session = answer
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let answer = Http::read(send(
        addr,
        "POST",
        "/mcp",
        &mcp_headers(version, Some(&session)),
        &initialized.to_string(),
    ));
    assert_eq!(answer.status, 202, "initialized: {}", answer.body);
    session
}

/// A 2026-07-28 `tools/call` of `tool` from a client that can ask its user (elicitation), as
/// a JSON-RPC frame; with the retry's request state and the user's decision when given.
pub fn asking_call_2026(
    id: u64,
    tool: &str,
    arguments: Value,
    retry: Option<(&str, &str)>,
) -> Value {
    let mut meta = meta_2026("asking-client");
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {"form": {}}});
    let mut params = json!({"name": tool, "arguments": arguments, "_meta": meta});
    if let Some((state, decision)) = retry {
        params["requestState"] = json!(state);
        params["inputResponses"] = json!({"approval": {
            "action": "accept", "content": {"decision": decision},
        }});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}
