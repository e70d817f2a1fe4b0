//! The frames of MCP's stdio transport that rmcp's message types refuse, and the answer each
//! gets, so that every frame is answered exactly once.
//!
//! The transport ([`super::lines`]) parses a frame once, straight into rmcp's message type.
//! Only a frame that parse refuses comes here, to be read again as plain JSON and told apart:
//! rmcp's own line transport would drop it (a string with a lone UTF-16 surrogate, invalid
//! UTF-8, nesting past serde_json's 128 levels, a line over 16 MiB) or answer it without its
//! `id` or with the wrong code, and a client would then wait for ever. Here it is answered
//! with the request's own `id` wherever that can be read, and the JSON-RPC code that fits:
//!
//! | frame | answer |
//! |---|---|
//! | not JSON (syntax, invalid UTF-8) | `-32700` parse error |
//! | JSON but no request: not an object, `jsonrpc` not `"2.0"`, `method` not a string, `params` neither object nor array, an `id` that is no string or integer, too deep, too long | `-32600` invalid request |
//! | a string with a lone surrogate (`"\ud800"`); `tools/call` whose `name` is not a string or whose `arguments` is not an object; any other request whose `params` MCP's types refuse | `-32602` invalid params |
//!
//! A notification or a response that rmcp's types refuse is not answered (JSON-RPC answers
//! neither); rmcp's transport drops them too.

use serde_json::{Map, Value, json};

/// The longest frame read, in bytes (rmcp's own limit): a longer line is answered `-32600`
/// and skipped to its end without being kept.
pub const MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;

/// The deepest nesting serde_json reads (its recursion limit).
const MAX_DEPTH: usize = 128;

/// What a line is, read as plain JSON.
#[derive(Debug, PartialEq)]
enum Frame {
    /// Blank: nothing to answer.
    Blank,
    /// A well-formed JSON-RPC message: a request with this id, or (none) a notification or a
    /// response.
    WellFormed(Option<Value>),
    /// Answered with this error response.
    Answer(Value),
}

/// The answer to `line` (without its newline or byte order mark), which rmcp's message types
/// refused (`refused` says why); none when there is nothing to answer (a blank line, a
/// notification, a response to the server).
pub(crate) fn refusal(line: &[u8], refused: &str) -> Option<Value> {
    match classify(line) {
        Frame::Blank | Frame::WellFormed(None) => None,
        Frame::Answer(answer) => Some(answer),
        // Well-formed, but its params are not what MCP's types say (an `initialize` without
        // `protocolVersion`, say).
        Frame::WellFormed(Some(id)) => {
            Some(error(id, -32602, format!("Invalid params: {refused}")))
        }
    }
}

fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The answer to a line longer than [`MAX_FRAME_BYTES`], from what was read of it.
pub(crate) fn too_long(prefix: &[u8]) -> Value {
    let message = format!(
        "Invalid request: the frame is longer than {MAX_FRAME_BYTES} bytes; send less at once"
    );
    error(scan_id(prefix).unwrap_or(Value::Null), -32600, message)
}

/// What becomes of a line (without its newline).
fn classify(line: &[u8]) -> Frame {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Frame::Blank;
    }
    let Ok(text) = std::str::from_utf8(line) else {
        let id = scan_id(line).unwrap_or(Value::Null);
        return Frame::Answer(error(
            id,
            -32700,
            "Parse error: the frame is not valid UTF-8".to_owned(),
        ));
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(frame)) => check(&frame),
        Ok(_) => Frame::Answer(error(
            Value::Null,
            -32600,
            "Invalid request: a frame is one JSON object (batches are not part of MCP)".to_owned(),
        )),
        Err(e) => unparsed(text, &e),
    }
}

/// The answer to text serde_json refused.
fn unparsed(text: &str, e: &serde_json::Error) -> Frame {
    let id = scan_id(text.as_bytes()).unwrap_or(Value::Null);
    if depth(text.as_bytes()) > MAX_DEPTH {
        let message = format!("Invalid request: the frame nests deeper than {MAX_DEPTH} levels");
        return Frame::Answer(error(id, -32600, message));
    }
    if has_lone_surrogate(text.as_bytes()) {
        let message = "Invalid params: a string holds a lone UTF-16 surrogate escape (such as \
                       \\ud800), which is not Unicode; send well-formed strings"
            .to_owned();
        return Frame::Answer(error(id, -32602, message));
    }
    Frame::Answer(error(id, -32700, format!("Parse error: {e}")))
}

/// A parsed frame: well-formed, or answered.
fn check(frame: &Map<String, Value>) -> Frame {
    let id = match frame.get("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_) | Value::Null)) => Some(id.clone()),
        Some(_) => {
            let message = "Invalid request: `id` must be a string, a number or null";
            return Frame::Answer(error(Value::Null, -32600, message.to_owned()));
        }
    };
    let invalid = |why: &str| {
        let id = id.clone().unwrap_or(Value::Null);
        Frame::Answer(error(id, -32600, format!("Invalid request: {why}")))
    };
    if frame.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("`jsonrpc` must be \"2.0\"");
    }
    let method = match frame.get("method") {
        // A response (to a request of the server's): never answered.
        None if id.is_some() && (frame.contains_key("result") || frame.contains_key("error")) => {
            return Frame::WellFormed(None);
        }
        None => return invalid("`method` is missing"),
        Some(Value::String(m)) => m.as_str(),
        Some(_) => return invalid("`method` must be a string"),
    };
    // MCP narrows JSON-RPC's ids: a request's is a string or an integer, never null.
    if let Some(id) = &id
        && !(id.is_string() || id.is_i64())
    {
        return invalid("`id` must be a string or an integer");
    }
    let params = match frame.get("params") {
        None | Some(Value::Object(_)) | Some(Value::Array(_)) => frame.get("params"),
        Some(_) => return invalid("`params` must be an object"),
    };
    if method == "tools/call" {
        let params = params.and_then(Value::as_object);
        let bad = match params {
            None => Some("`params` must be an object with the tool's `name`"),
            Some(p) if !p.get("name").is_some_and(Value::is_string) => {
                Some("`params.name` must be the tool's name, a string")
            }
            Some(p) if !matches!(p.get("arguments"), None | Some(Value::Object(_))) => {
                Some("`params.arguments` must be an object of the tool's parameters")
            }
            Some(_) => None,
        };
        if let Some(why) = bad {
            let id = id.unwrap_or(Value::Null);
            return Frame::Answer(error(id, -32602, format!("Invalid params: {why}")));
        }
    }
    Frame::WellFormed(id)
}

/// Whether a `\uXXXX` escape names half of a UTF-16 surrogate pair without the other half.
fn has_lone_surrogate(text: &[u8]) -> bool {
    let unit = |at: usize| -> Option<u16> {
        let hex = text.get(at..at + 6)?.strip_prefix(b"\\u")?;
        u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    };
    let mut i = 0;
    while i < text.len() {
        if text[i] != b'\\' {
            i += 1;
            continue;
        }
        match unit(i) {
            Some(0xD800..=0xDBFF) if matches!(unit(i + 6), Some(0xDC00..=0xDFFF)) => i += 12,
            Some(0xD800..=0xDFFF) => return true,
            // Another escape (`\\` included) is two characters at least.
            _ => i += 2,
        }
    }
    false
}

/// How deep the text nests (brackets outside strings).
fn depth(text: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &b in text {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The top-level `"id"` of a frame that does not parse as a whole, when it is a string, a
/// number or null that can be read: a tolerant scan of the object's first level.
fn scan_id(text: &[u8]) -> Option<Value> {
    let start = scan_key(text, b"\"id\"")?;
    read_scalar(text, start)
}

/// Where the value of the top-level `key` (quoted) begins, in a tolerant scan of an object's
/// first level.
fn scan_key(text: &[u8], key: &[u8]) -> Option<usize> {
    let mut i = text.iter().position(|b| !b.is_ascii_whitespace())?;
    if text[i] != b'{' {
        return None;
    }
    i += 1;
    let mut depth = 1usize;
    while i < text.len() {
        match text[i] {
            b'"' => {
                let end = string_end(text, i)?;
                let is_key = depth == 1 && next_token(text, end) == Some(b':');
                if is_key && &text[i..end] == key {
                    return Some(skip_ws(text, skip_ws(text, end) + 1));
                }
                i = end;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return None;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index just past the string starting at `start` (a `"`).
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn skip_ws(text: &[u8], mut i: usize) -> usize {
    while i < text.len() && text[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn next_token(text: &[u8], i: usize) -> Option<u8> {
    text.get(skip_ws(text, i)).copied()
}

/// A string, number or null token at `start`, as a value.
fn read_scalar(text: &[u8], start: usize) -> Option<Value> {
    let end = match text.get(start)? {
        b'"' => string_end(text, start)?,
        b'-' | b'0'..=b'9' => {
            let len = text[start..]
                .iter()
                .take_while(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                .count();
            start + len
        }
        b'n' => start + 4,
        _ => return None,
    };
    let token = std::str::from_utf8(text.get(start..end)?).ok()?;
    match serde_json::from_str::<Value>(token).ok()? {
        v @ (Value::String(_) | Value::Number(_) | Value::Null) => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        match classify(line.as_bytes()) {
            Frame::Answer(a) => a,
            other => panic!("{line}: {other:?}"),
        }
    }

    fn code_and_id(line: &str) -> (i64, Value) {
        let a = answer(line);
        (a["error"]["code"].as_i64().unwrap(), a["id"].clone())
    }

    #[test]
    fn well_formed_frames_go_to_rmcp() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
        ] {
            assert!(
                matches!(classify(line.as_bytes()), Frame::WellFormed(_)),
                "{line}"
            );
        }
        assert_eq!(classify(b"  "), Frame::Blank);
    }

    // Regressions (issue: every frame answered once, with its id and the code that fits).
    #[test]
    fn a_lone_surrogate_is_refused_with_the_requests_id() {
        let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"paths":["\ud800"]}}}"#;
        assert_eq!(code_and_id(line), (-32602, json!(1)));
    }

    #[test]
    fn invalid_utf8_is_a_parse_error_with_the_id_where_it_reads() {
        let mut line = br#"{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":""#.to_vec();
        line.extend([0xff, 0xfe]);
        line.extend(br#""}}"#);
        let a = match classify(&line) {
            Frame::Answer(a) => a,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            (a["error"]["code"].as_i64(), &a["id"]),
            (Some(-32700), &json!(7))
        );
    }

    #[test]
    fn nesting_past_128_levels_is_an_invalid_request_with_its_id() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let line =
            format!(r#"{{"jsonrpc":"2.0","id":"deep","method":"ping","params":{{"x":{deep}}}}}"#);
        assert_eq!(code_and_id(&line), (-32600, json!("deep")));
    }

    #[test]
    fn an_invalid_request_is_answered_with_its_id() {
        let cases = [
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"x"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":5}"#,
            r#"{"id":2,"method":"ping"}"#,
            r#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#,
        ];
        for line in cases {
            assert_eq!(code_and_id(line), (-32600, json!(2)), "{line}");
        }
        assert_eq!(
            code_and_id(r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#).1,
            Value::Null
        );
        assert_eq!(code_and_id("[1, 2]"), (-32600, Value::Null));
    }

    #[test]
    fn tools_call_with_arguments_not_an_object_is_invalid_params() {
        let line = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":"x"}}"#;
        assert_eq!(code_and_id(line), (-32602, json!(3)));
        let line = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{}}}"#;
        assert_eq!(code_and_id(line), (-32602, json!(4)));
    }

    #[test]
    fn text_that_is_not_json_is_a_parse_error_with_a_null_id() {
        assert_eq!(code_and_id("not json"), (-32700, Value::Null));
        assert_eq!(
            code_and_id(r#"{"jsonrpc":"2.0","id":5,"method":"#),
            (-32700, json!(5))
        );
    }

    #[test]
    fn lone_surrogates_are_told_from_pairs_and_escaped_backslashes() {
        let lone = |t: &str| has_lone_surrogate(t.as_bytes());
        assert!(lone(r#""\ud800""#));
        assert!(lone(r#""\udc00""#));
        assert!(lone(r#""\ud800\u0041""#));
        assert!(!lone(r#""\ud83d\ude00""#));
        assert!(!lone(r#""\\ud800""#));
        assert!(!lone(r#""\u00e9""#));
    }

    #[test]
    fn the_id_scan_reads_the_first_level_only() {
        let scan = |t: &str| scan_id(t.as_bytes());
        assert_eq!(scan(r#"{"a":{"id":1},"id":"x"}"#), Some(json!("x")));
        assert_eq!(scan(r#"{"a":"\"id\":9","id":-2.5e1}"#), Some(json!(-25.0)));
        assert_eq!(scan(r#"{"id":null}"#), Some(Value::Null));
        assert_eq!(scan(r#"{"id":{"x":1}}"#), None);
        assert_eq!(scan(r#"["id",1]"#), None);
        assert_eq!(scan(r#"{"x":1}"#), None);
        assert_eq!(scan(r#"{"id":"unterminated"#), None);
    }

    #[test]
    fn ids_mcp_does_not_allow_are_invalid_requests() {
        assert_eq!(
            code_and_id(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            (-32600, Value::Null)
        );
        assert_eq!(
            code_and_id(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            (-32600, json!(1.5))
        );
        // A response to the server is never answered, whatever its id.
        assert_eq!(
            classify(br#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}"#),
            Frame::WellFormed(None)
        );
    }

    #[test]
    fn a_request_whose_params_mcp_refuses_is_invalid_params_with_its_id() {
        let line = br#"{"jsonrpc":"2.0","id":"i","method":"initialize","params":{}}"#;
        let answer = refusal(line, "no fields").expect("answered");
        assert_eq!(
            (answer["error"]["code"].as_i64(), &answer["id"]),
            (Some(-32602), &json!("i"))
        );
        // A notification rmcp does not know is not answered.
        let line = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":1}}"#;
        assert_eq!(refusal(line, "no token"), None);
    }

    #[test]
    fn a_prefix_of_a_long_line_answers_with_its_id() {
        let answer = too_long(br#"{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":"aaaa"#);
        assert_eq!(
            (answer["error"]["code"].as_i64(), &answer["id"]),
            (Some(-32600), &json!(8))
        );
    }
}
