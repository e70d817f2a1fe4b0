//! `tools/list` and `server/discover` through `toolsmith serve`, under 2025-06-18, 2025-11-25
//! and 2026-07-28, over stdio and streamable HTTP: 100 `tools/list` requests answer the same
//! bytes, the tools come in the same order under every version, and the 2026-07-28 answers
//! say they may be cached (a nonzero `ttlMs`, `cacheScope: "public"`).

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::http::{Http, addr_of, initialize, mcp_headers, message, send};
use crate::support::mcp::{ServeProcess, meta_2026};
use crate::support::stdio::{StdioServe, Version};

const REQUESTS: usize = 100;

/// The `ttlMs` the server gives by default (`DEFAULT_LIST_TTL`, five minutes).
const TTL_MS: u64 = 300_000;

const VERSIONS: [(Version, &str); 3] = [
    (Version::V2025_06_18, "2025-06-18"),
    (Version::V2025, "2025-11-25"),
    (Version::V2026, "2026-07-28"),
];

/// Checks that `answers` (raw JSON-RPC messages) are all the same bytes, and returns the first's
/// result.
fn all_the_same(answers: &[String], who: &str) -> Value {
    assert_eq!(answers.len(), REQUESTS, "{who}");
    for (n, answer) in answers.iter().enumerate() {
        assert_eq!(
            answer, &answers[0],
            "{who}: answer {n} differs from the first"
        );
    }
    let first: Value = serde_json::from_str(&answers[0]).expect("JSON");
    let result = first["result"].clone();
    assert!(
        result["tools"].as_array().is_some_and(|t| t.len() > 10),
        "{who}: {first}"
    );
    result
}

/// The hints a 2026-07-28 answer carries.
fn check_hints(result: &Value, who: &str) {
    assert_eq!(result["ttlMs"], TTL_MS, "{who}");
    assert_eq!(result["cacheScope"], "public", "{who}");
}

fn names(result: &Value) -> Vec<String> {
    result["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

#[test]
fn tools_list_over_stdio_is_the_same_bytes_every_time_under_every_version() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().to_str().expect("utf-8");
    let mut lists = Vec::new();
    for (version, name) in VERSIONS {
        let mut server = StdioServe::start(dir.path(), &["--root", root]);
        server.send(version.prelude());
        let prelude = version.prelude_answers();
        assert!(
            server.read_until(prelude, Duration::from_secs(30)),
            "{name}"
        );
        let before = server.lines.len();
        // One at a time, every request with the same id, so the answers may be the same bytes.
        for _ in 0..REQUESTS {
            server.ask(version.request(&json!("list"), "tools/list", json!({})));
        }
        let result = all_the_same(&server.lines[before..], &format!("stdio {name}"));
        if name == "2026-07-28" {
            check_hints(&result, name);
        }
        lists.push(names(&result));
        assert!(server.close(Duration::from_secs(10)), "{name}: clean exit");
    }
    assert_eq!(lists[0], lists[1], "the same tools in the same order");
    assert_eq!(lists[1], lists[2], "the same tools in the same order");
}

#[test]
fn tools_list_over_http_is_the_same_bytes_every_time_under_every_version() {
    let dir = tempfile::tempdir().expect("dir");
    let server = ServeProcess::http(dir.path(), &[]);
    let addr = addr_of(&server);
    let mut lists = Vec::new();
    for (_, version) in VERSIONS {
        let session = (version != "2026-07-28").then(|| initialize(&addr, "lister", version));
        let mut headers = mcp_headers(version, session.as_deref());
        let mut params = json!({});
        if session.is_none() {
            headers.push(("Mcp-Method", "tools/list"));
            params["_meta"] = meta_2026("lister");
        }
        let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": params});
        let answers: Vec<String> = (0..REQUESTS)
            .map(|_| {
                let answer =
                    Http::read(send(&addr, "POST", "/mcp", &headers, &request.to_string()));
                assert_eq!(answer.status, 200, "{version}: {}", answer.body);
                message(&answer.body).to_owned()
            })
            .collect();
        let result = all_the_same(&answers, &format!("http {version}"));
        if session.is_none() {
            check_hints(&result, version);
        }
        lists.push(names(&result));
    }
    assert_eq!(lists[0], lists[1], "the same tools in the same order");
    assert_eq!(lists[1], lists[2], "the same tools in the same order");
}

/// What `server/discover` answers: every version served, cacheable, and who the server is.
fn check_discover(answer: &Value, who: &str) {
    let result = &answer["result"];
    let versions = result["supportedVersions"].as_array().expect("versions");
    for (_, version) in VERSIONS {
        assert!(
            versions.contains(&json!(version)),
            "{who}: {version} in {answer}"
        );
    }
    check_hints(result, who);
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "toolsmith",
        "{who}: {answer}"
    );
    assert_eq!(
        result["capabilities"]["tools"],
        json!({}),
        "{who}: {answer}"
    );
}

#[test]
fn server_discover_answers_over_stdio_and_http() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start(dir.path(), &["--root", root]);
    let frame = Version::V2026.request(&json!(1), "server/discover", json!({}));
    server.send(vec![frame.to_string().into_bytes()]);
    assert!(server.read_until(1, Duration::from_secs(30)), "answered");
    check_discover(&server.answers_to(&json!(1))[0], "stdio");
    assert!(server.close(Duration::from_secs(10)), "clean exit");

    let server = ServeProcess::http(dir.path(), &[]);
    let addr = addr_of(&server);
    let mut headers = mcp_headers("2026-07-28", None);
    headers.push(("Mcp-Method", "server/discover"));
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                         "params": {"_meta": meta_2026("discoverer")}});
    let answer = Http::read(send(&addr, "POST", "/mcp", &headers, &request.to_string()));
    assert_eq!(answer.status, 200, "{}", answer.body);
    let answer: Value = serde_json::from_str(message(&answer.body)).expect("JSON");
    check_discover(&answer, "http");
}
