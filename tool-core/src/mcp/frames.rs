//! The frames of MCP's stdio transport, read by toolsmith before rmcp sees them, so that every
//! frame is answered exactly once.
//!
//! rmcp's line transport drops what it cannot parse (a string with a lone UTF-16 surrogate,
//! invalid UTF-8, nesting past serde_json's 128 levels, a line over 16 MiB), and answers an
//! invalid request without its `id` or with the wrong code; a client then waits for ever.
//! Here each line is read and checked first: a well-formed frame goes on to rmcp unchanged,
//! anything else is answered here, with the request's own `id` wherever it can be read and
//! the JSON-RPC code that fits:
//!
//! | frame | answer |
//! |---|---|
//! | not JSON (syntax, invalid UTF-8) | `-32700` parse error |
//! | JSON but no request: not an object, `jsonrpc` not `"2.0"`, `method` not a string, `params` neither object nor array, an `id` that is no string, number or null, too deep, too long | `-32600` invalid request |
//! | a string with a lone surrogate (`"\ud800"`); `tools/call` whose `name` is not a string or whose `arguments` is not an object | `-32602` invalid params |

use serde_json::{Map, Value, json};
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

use tokio::sync::mpsc;

use super::inflight::InFlight;

/// The longest frame read, in bytes (rmcp's own limit): a longer line is answered `-32600`
/// and skipped to its end without being kept.
pub const MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;

/// The deepest nesting serde_json reads (its recursion limit).
const MAX_DEPTH: usize = 128;

/// What becomes of one line.
#[derive(Debug, PartialEq)]
enum Frame {
    /// Blank: nothing to answer.
    Blank,
    /// Well-formed: rmcp reads it as it came.
    Forward(Track),
    /// Answered here with this error response.
    Answer(Value),
}

/// What a forwarded frame does to the requests in flight.
#[derive(Debug, PartialEq)]
pub(crate) enum Track {
    /// Nothing (a notification, a response to the server).
    Nothing,
    /// A request with this id (as JSON text): served until answered.
    Request(String),
    /// `notifications/cancelled` of the request with this id: no answer will come.
    Cancel(String),
}

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// Reads `input`'s lines, hands rmcp (through `to_rmcp`) the well-formed ones, each request
/// once `inflight` has room for it, and writes every other frame's answer to `answers`.
/// Returns when `input` ends or fails.
///
/// While a request waits for room, the frames that need none still reach rmcp: responses to
/// the server's own requests (the user's answer to an approval question, which the calls
/// holding the room may be waiting for) and cancellations. A second request read meanwhile
/// waits its turn, and nothing more is read until the first is admitted.
pub(crate) async fn read_frames<R, W>(
    input: R,
    to_rmcp: W,
    answers: mpsc::Sender<String>,
    inflight: Arc<InFlight>,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    // One frame in the channel at a time: with the one being admitted and the one waiting
    // behind it, at most a few frames are held, whatever the client sends.
    let (frames, next) = mpsc::channel(1);
    let reading = read_lines(input, frames, answers);
    let serving = super::inflight::forward_admitted(next, to_rmcp, inflight);
    tokio::join!(reading, serving);
}

/// Reads `input`'s lines: the well-formed ones go to `frames` (with what they do to the
/// requests in flight), every other frame's answer to `answers`. Returns when `input` ends or
/// fails, or nobody takes the frames any more.
async fn read_lines<R>(
    input: R,
    frames: mpsc::Sender<(Track, Vec<u8>)>,
    answers: mpsc::Sender<String>,
) where
    R: AsyncRead + Unpin,
{
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        // A long line's buffer is not kept for the next one.
        line.shrink_to(64 * 1024);
        let read = (&mut input)
            .take(MAX_FRAME_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .await;
        let frame = match read {
            Ok(0) | Err(_) => return,
            Ok(_) if line.last() != Some(&b'\n') && line.len() > MAX_FRAME_BYTES => {
                // Too long: answer from what was read, then skip the rest of the line.
                let answer = too_long(&line);
                if skip_line(&mut input).await.is_err() {
                    return;
                }
                Frame::Answer(answer)
            }
            Ok(_) => {
                // A UTF-8 byte order mark before the frame is not part of it (RFC 8259 lets a
                // reader ignore one); without this the request would be answered without its
                // id.
                if line.starts_with(BOM) {
                    line.drain(..BOM.len());
                }
                classify(trim_newline(&line))
            }
        };
        match frame {
            Frame::Blank => {}
            Frame::Forward(track) => {
                // The line itself goes on, not a copy; the next one gets a new buffer.
                let mut whole = std::mem::take(&mut line);
                let kept = trim_newline(&whole).len();
                whole.truncate(kept);
                if frames.send((track, whole)).await.is_err() {
                    return;
                }
            }
            Frame::Answer(answer) => {
                if answers.send(answer.to_string()).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Writes rmcp's lines and the answers made here to `output`, each line whole; each of rmcp's
/// answers frees its request's room in `inflight`.
pub(crate) async fn write_frames<R, W>(
    from_rmcp: R,
    mut answers: mpsc::Receiver<String>,
    output: W,
    inflight: Arc<InFlight>,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut output = tokio::io::BufWriter::new(output);
    let mut lines = BufReader::new(from_rmcp).lines();
    let (mut rmcp_open, mut answers_open) = (true, true);
    while rmcp_open || answers_open {
        let line = tokio::select! {
            line = lines.next_line(), if rmcp_open => match line {
                Ok(Some(line)) => {
                    if let Some(id) = answer_id(line.as_bytes()) {
                        inflight.answered(&id.to_string());
                    }
                    line
                }
                _ => {
                    rmcp_open = false;
                    continue;
                }
            },
            answer = answers.recv(), if answers_open => match answer {
                Some(answer) => answer,
                None => {
                    answers_open = false;
                    continue;
                }
            },
        };
        if output.write_all(line.as_bytes()).await.is_err()
            || output.write_all(b"\n").await.is_err()
            || output.flush().await.is_err()
        {
            return;
        }
    }
}

fn trim_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Reads and drops the rest of a line.
async fn skip_line<R: AsyncRead + Unpin>(input: &mut BufReader<R>) -> std::io::Result<()> {
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}

fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn too_long(prefix: &[u8]) -> Value {
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
        // A response (to a request of the server's): rmcp matches it.
        None if id.is_some() && (frame.contains_key("result") || frame.contains_key("error")) => {
            return Frame::Forward(Track::Nothing);
        }
        None => return invalid("`method` is missing"),
        Some(Value::String(m)) => m.as_str(),
        Some(_) => return invalid("`method` must be a string"),
    };
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
    if method == "notifications/cancelled" {
        let cancelled = params.and_then(|p| p.get("requestId"));
        if let Some(request) = cancelled {
            return Frame::Forward(Track::Cancel(request.to_string()));
        }
    }
    match id {
        Some(id) => Frame::Forward(Track::Request(id.to_string())),
        None => Frame::Forward(Track::Nothing),
    }
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

/// The `id` of an answer rmcp wrote (a line with an `id` and no `method`; a line with both is
/// a request of the server's own).
fn answer_id(line: &[u8]) -> Option<Value> {
    match scan_key(line, b"\"method\"") {
        Some(_) => None,
        None => scan_id(line),
    }
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
                matches!(classify(line.as_bytes()), Frame::Forward(_)),
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

    #[tokio::test]
    async fn a_line_over_the_limit_is_answered_and_skipped() {
        let mut input = r#"{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":""#
            .to_string()
            .into_bytes();
        input.resize(MAX_FRAME_BYTES + 10, b'a');
        input.extend(b"\"}}\n");
        input.extend(br#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#);
        input.push(b'\n');
        let (tx, mut rx) = mpsc::channel(4);
        let mut forwarded = Vec::new();
        read_frames(&input[..], &mut forwarded, tx, InFlight::new()).await;
        let answer: Value = serde_json::from_str(&rx.recv().await.unwrap()).unwrap();
        assert_eq!(answer["id"], 8);
        assert_eq!(answer["error"]["code"], -32600);
        assert!(rx.recv().await.is_none());
        assert_eq!(
            forwarded,
            b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n"
        );
    }
}
