//! What a record may keep: arguments, results and errors bounded in bytes, cut to a marker
//! that says how much there was and shows how it began.
//!
//! Sizes are of memory, estimated: JSON text counts its length, a JSON tree the bytes its
//! nodes take ([`tree_bytes`]), a tool's output the length of its JSON. Estimates err on the
//! large side, so a store that adds them up stays under its budget.

use std::io;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::call::Arguments;

/// The most a record keeps of a call's arguments, in bytes; larger arguments are kept as a
/// marker that shows their first 512 bytes.
pub const MAX_RECORD_INPUT_BYTES: usize = 64 * 1024;

/// The most a record keeps of a call's result, in bytes of JSON; a larger result is kept as a
/// marker in `data.result_truncated`.
pub const MAX_RECORD_RESULT_BYTES: usize = 64 * 1024;

/// The most a failed call's record keeps of its arguments (a summary: most failures are calls
/// refused before they ran, and their arguments are whatever the caller sent).
pub const MAX_FAILED_INPUT_BYTES: usize = 1024;

/// How much of something too large its marker shows.
pub(crate) const PREVIEW_BYTES: usize = 512;

/// The most a record keeps of an error message.
pub(crate) const MAX_ERROR_BYTES: usize = 8 * 1024;

/// What a record costs beyond its arguments, result and error (its fields, the store's maps).
pub(crate) const RECORD_OVERHEAD: usize = 512;

/// The estimated bytes a JSON tree takes, or `None` once it passes `limit` (the walk stops
/// there, so measuring a huge tree against a small limit is cheap).
pub(crate) fn tree_bytes(value: &Value, limit: usize) -> Option<usize> {
    let mut total = 0;
    add_tree(value, limit, &mut total).then_some(total)
}

fn add_tree(value: &Value, limit: usize, total: &mut usize) -> bool {
    *total += size_of::<Value>();
    match value {
        Value::String(s) => *total += s.capacity(),
        Value::Array(items) => {
            // The vector's spare room is not counted; the items are.
            for item in items {
                if !add_tree(item, limit, total) {
                    return false;
                }
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                // The key, the map's entry and index slot.
                *total += key.capacity() + size_of::<String>() + 16;
                if !add_tree(item, limit, total) {
                    return false;
                }
            }
        }
        _ => {}
    }
    *total <= limit
}

/// The bytes `arguments` take as a record keeps them, or `None` past `limit`.
pub(crate) fn arguments_bytes(arguments: &Arguments, limit: usize) -> Option<usize> {
    match arguments {
        Arguments::Text(t) => (t.len() <= limit).then_some(t.len()),
        Arguments::Value(v) => tree_bytes(v, limit),
    }
}

/// Counts JSON as it is written, keeps its first bytes and stops the writer past a limit.
pub(crate) struct Meter {
    len: usize,
    limit: usize,
    head: Vec<u8>,
    keep: usize,
}

impl io::Write for Meter {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.head.len() < self.keep {
            let room = (self.keep - self.head.len()).min(buf.len());
            self.head.extend_from_slice(&buf[..room]);
        }
        self.len += buf.len();
        if self.len > self.limit {
            return Err(io::Error::other("past the limit"));
        }
        Ok(buf.len())
    }
    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.write(buf).map(drop)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// JSON written to a [`Meter`]: its length when it is at most `limit` bytes, and its first
/// `keep` bytes.
pub(crate) struct Metered {
    /// The length, `None` past the limit (or when it failed to serialize).
    pub(crate) len: Option<usize>,
    /// Its first bytes, cut at a character boundary.
    pub(crate) head: String,
}

/// Writes JSON through `write` into a meter with `limit` and `keep`.
pub(crate) fn meter_with(
    limit: usize,
    keep: usize,
    write: impl FnOnce(&mut Meter) -> serde_json::Result<()>,
) -> Metered {
    let mut meter = Meter {
        len: 0,
        limit,
        head: Vec::new(),
        keep,
    };
    let ok = write(&mut meter).is_ok();
    Metered {
        len: ok.then_some(meter.len),
        head: utf8_head(meter.head),
    }
}

/// The first `keep` bytes of `value`'s JSON.
pub(crate) fn json_head(value: &impl Serialize, keep: usize) -> String {
    meter_with(keep, keep, |w| serde_json::to_writer(w, value)).head
}

/// The longest prefix of `bytes` that is whole UTF-8.
fn utf8_head(mut bytes: Vec<u8>) -> String {
    match std::str::from_utf8(&bytes) {
        Ok(_) => {}
        Err(e) => bytes.truncate(e.valid_up_to()),
    }
    String::from_utf8(bytes).unwrap_or_default()
}

/// The first `keep` bytes of `text`, cut at a character boundary.
pub(crate) fn text_head(text: &str, keep: usize) -> &str {
    let mut end = keep.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The marker kept in place of something too large: what it was, how large (`None`: over
/// `limit`), the limit, and how it began.
pub(crate) fn marker(what: &str, len: Option<usize>, limit: usize, head: &str) -> Value {
    let size = match len {
        Some(n) => format!("{n} bytes of {what}"),
        None => format!("{what} over {limit} bytes"),
    };
    let mut text =
        format!("({size}, more than a record keeps ({limit} bytes); cut. It began: {head}…)");
    text.shrink_to_fit();
    Value::String(text)
}

/// `arguments` as a record keeps them when they are larger than `limit`: a marker.
pub(crate) fn arguments_marker(arguments: &Arguments, limit: usize) -> Value {
    match arguments {
        Arguments::Text(t) => marker(
            "arguments",
            Some(t.len()),
            limit,
            text_head(t, PREVIEW_BYTES),
        ),
        Arguments::Value(v) => marker("arguments", None, limit, &json_head(v, PREVIEW_BYTES)),
    }
}

/// An error message as a record keeps it: cut past [`MAX_ERROR_BYTES`].
pub(crate) fn bounded_error(message: String) -> String {
    if message.len() <= MAX_ERROR_BYTES {
        return message;
    }
    let head = text_head(&message, MAX_ERROR_BYTES);
    format!("{head}… ({} bytes; cut)", message.len())
}

/// `data` with each field over [`MAX_RECORD_RESULT_BYTES`] replaced by a marker, and the
/// bytes it takes.
pub(crate) fn bounded_data(mut data: Map<String, Value>) -> (Map<String, Value>, usize) {
    let mut total = 0;
    for (key, value) in data.iter_mut() {
        total += key.len() + size_of::<String>() + 16;
        match tree_bytes(value, MAX_RECORD_RESULT_BYTES) {
            Some(n) => total += n,
            None => {
                *value = marker(
                    "data",
                    None,
                    MAX_RECORD_RESULT_BYTES,
                    &json_head(value, PREVIEW_BYTES),
                );
                // Counted as the store counts it when the field is replaced or removed.
                total += tree_bytes(value, usize::MAX).unwrap_or(0);
            }
        }
    }
    (data, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tree_is_measured_until_its_limit() {
        let small = json!({"paths": ["a.txt"]});
        let n = tree_bytes(&small, 1 << 20).expect("small");
        assert!(
            n >= "paths".len() + "a.txt".len() + 3 * size_of::<Value>(),
            "{n}"
        );
        let big = json!({"x": "y".repeat(100_000)});
        assert_eq!(tree_bytes(&big, MAX_RECORD_INPUT_BYTES), None);
        // Many small nodes count as the memory they take, not as their short text.
        let zeros = Value::Array(vec![json!(0); 10_000]);
        assert_eq!(tree_bytes(&zeros, 20_000), None);
    }

    #[test]
    fn a_marker_says_how_much_and_shows_how_it_began() {
        let args = Arguments::Text(format!("{{\"x\":\"{}\"}}", "é".repeat(100_000)));
        let Value::String(m) = arguments_marker(&args, MAX_RECORD_INPUT_BYTES) else {
            panic!("a string");
        };
        assert!(m.starts_with("(200008 bytes of arguments, more than a record keeps (65536 bytes); cut. It began: {\"x\":\"éé"), "{m}");
        assert!(m.len() < PREVIEW_BYTES + 200, "{}", m.len());
        let args = Arguments::Value(json!({"x": "y".repeat(100_000)}));
        let Value::String(m) = arguments_marker(&args, MAX_RECORD_INPUT_BYTES) else {
            panic!("a string");
        };
        assert!(m.starts_with("(arguments over 65536 bytes"), "{m}");
        assert!(m.contains("{\"x\":\"yyy"), "{m}");
    }

    #[test]
    fn a_meter_stops_past_its_limit_and_keeps_whole_characters() {
        let m = meter_with(10, 4, |w| serde_json::to_writer(w, &"ééééé"));
        assert_eq!(m.len, None);
        assert_eq!(m.head, "\"é");
        let m = meter_with(100, 100, |w| serde_json::to_writer(w, &json!([1, 2])));
        assert_eq!((m.len, m.head.as_str()), (Some(5), "[1,2]"));
    }

    #[test]
    fn errors_and_data_fields_are_cut() {
        assert_eq!(bounded_error("short".into()), "short");
        let long = bounded_error("e".repeat(100_000));
        assert!(long.len() < MAX_ERROR_BYTES + 40 && long.ends_with("(100000 bytes; cut)"));
        let mut data = Map::new();
        data.insert("small".into(), json!(1));
        data.insert("big".into(), json!("z".repeat(200_000)));
        let (data, bytes) = bounded_data(data);
        assert_eq!(data["small"], json!(1));
        assert!(data["big"].as_str().unwrap().starts_with("(data over"));
        assert!(bytes < 4096, "{bytes}");
    }
}
