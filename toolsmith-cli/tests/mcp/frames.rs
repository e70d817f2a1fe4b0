//! `toolsmith serve` over stdio answers every frame it receives exactly once, with the
//! request's own `id` wherever it can be read and the JSON-RPC code that fits, under
//! 2025-11-25 (after `initialize`) and 2026-07-28 (no handshake; each request says its
//! version in `_meta`). Each frame here is one that the server once dropped or answered
//! without its id or with the wrong code.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::stdio::StdioServe;

/// A frame and the code its answer must carry (`None`: a result).
struct Case {
    frame: Vec<u8>,
    id: Value,
    code: Option<i64>,
}

fn case(frame: impl Into<Vec<u8>>, id: Value, code: Option<i64>) -> Case {
    Case {
        frame: frame.into(),
        id,
        code,
    }
}

/// The frames, each request's `params` with `meta` merged in (2026-07-28's `_meta`).
fn cases(meta: &Value) -> Vec<Case> {
    let with_meta = |mut params: Value| {
        if let (Some(p), Some(m)) = (params.as_object_mut(), meta.as_object())
            && !m.is_empty()
        {
            p.insert("_meta".into(), Value::Object(m.clone()));
        }
        params
    };
    let request = |id: i64, method: &str, params: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": with_meta(params)})
            .to_string()
    };
    let surrogate = request(
        1,
        "tools/call",
        json!({"name": "read_file", "arguments": {"paths": ["SURROGATE"]}}),
    )
    .replace("SURROGATE", "\\ud800");
    let mut invalid_utf8 = request(
        2,
        "tools/call",
        json!({"name": "read_file", "arguments": {"paths": ["BAD"]}}),
    )
    .into_bytes();
    let at = invalid_utf8
        .windows(3)
        .position(|w| w == b"BAD")
        .expect("marker");
    invalid_utf8.splice(at..at + 3, [0xff, 0xfe, 0x41]);
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let deep = request(
        3,
        "tools/call",
        json!({"name": "read_file", "arguments": {"paths": ["DEEP"]}}),
    )
    .replace("\"DEEP\"", &deep);
    let mut long = request(
        4,
        "tools/call",
        json!({"name": "read_file", "arguments": {"paths": ["LONG"]}}),
    );
    long = long.replace("LONG", &"x".repeat(17 * 1024 * 1024));
    vec![
        case(surrogate, json!(1), Some(-32602)),
        case(invalid_utf8, json!(2), Some(-32700)),
        case(deep, json!(3), Some(-32600)),
        case(long, json!(4), Some(-32600)),
        case(
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":"x"}"#,
            json!(5),
            Some(-32600),
        ),
        case(
            r#"{"jsonrpc":"2.0","id":6,"method":7}"#,
            json!(6),
            Some(-32600),
        ),
        case(r#"{"id":7,"method":"ping"}"#, json!(7), Some(-32600)),
        case(
            request(
                8,
                "tools/call",
                json!({"name": "read_file", "arguments": "x"}),
            ),
            json!(8),
            Some(-32602),
        ),
        case("not json", Value::Null, Some(-32700)),
        // A frame that begins with a UTF-8 byte order mark (RFC 8259 lets a reader ignore it):
        // read as the request it is.
        case(
            [
                b"\xef\xbb\xbf".as_slice(),
                request(
                    12,
                    "tools/call",
                    json!({"name": "list_projects", "arguments": {}}),
                )
                .as_bytes(),
            ]
            .concat(),
            json!(12),
            None,
        ),
        case(
            request(
                10,
                "tools/call",
                json!({"name": "list_projects", "arguments": {}}),
            ),
            json!(10),
            None,
        ),
    ]
}

/// Runs `toolsmith serve` on stdio, writes `prelude` then every case's frame, and returns
/// the answers by id (each id's answers, in order), reading until every case is answered.
fn serve_and_answer(prelude: &[String], cases: &[Case]) -> HashMap<String, Vec<Value>> {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start(dir.path(), &["--root", root]);
    let frames: Vec<Vec<u8>> = (prelude.iter().map(|p| p.clone().into_bytes()))
        .chain(cases.iter().map(|c| c.frame.clone()))
        .collect();
    server.send(frames);
    let expected = cases.len() + prelude.iter().filter(|p| p.contains("\"id\"")).count();
    server.read_until(expected, Duration::from_secs(60));
    // One more well-formed request after all of them: answered too, so nothing was left
    // half-read; a late second answer to an earlier frame would show up by then as well.
    let ping = cases.last().expect("cases").frame.clone();
    let ping = String::from_utf8(ping)
        .expect("utf-8")
        .replace("\"id\":10", "\"id\":11");
    server.send(vec![ping.into_bytes()]);
    server.read_until(expected + 1, Duration::from_secs(30));
    std::mem::take(&mut server.by_id)
}

fn check(answers: &HashMap<String, Vec<Value>>, cases: &[Case]) {
    for c in cases {
        let got = answers
            .get(&c.id.to_string())
            .map(Vec::as_slice)
            .unwrap_or_default();
        assert_eq!(got.len(), 1, "id {}: answered once: {got:?}", c.id);
        let code = got[0]["error"]["code"].as_i64();
        assert_eq!(code, c.code, "id {}: {}", c.id, got[0]);
    }
    let last = answers.get("11").map(Vec::as_slice).unwrap_or_default();
    assert_eq!(
        last.len(),
        1,
        "the request after them is answered: {answers:?}"
    );
    assert!(last[0]["result"].is_object(), "{}", last[0]);
}

#[test]
fn every_frame_is_answered_once_with_its_id_under_2025_11_25() {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "frames", "version": "1"},
    }});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let cases = cases(&json!({}));
    let answers = serve_and_answer(&[init.to_string(), initialized.to_string()], &cases);
    assert!(answers["0"][0]["result"].is_object(), "{answers:?}");
    check(&answers, &cases);
}

#[test]
fn every_frame_is_answered_once_with_its_id_under_2026_07_28() {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "frames", "version": "1"},
    });
    let cases = cases(&meta);
    check(&serve_and_answer(&[], &cases), &cases);
}
