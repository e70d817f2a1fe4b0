//! A number's range in words, for validation errors and for the exports that cannot state
//! the range as a keyword.

use serde_json::Value;

use super::problems::natural_bound;

/// The range a schema node declares beyond its Rust type's own (a `u8`'s 0 to 255 is no
/// declaration), in words: "an integer from 5 to 30"; `None` when it declares none.
pub(crate) fn declared_range(node: &Value) -> Option<String> {
    let mut node = node.clone();
    if let (Some(format), Value::Object(m)) = (
        node.get("format")
            .and_then(Value::as_str)
            .map(str::to_owned),
        &mut node,
    ) {
        for key in ["minimum", "maximum"] {
            if m.get(key).is_some_and(|v| natural_bound(&format, key, v)) {
                m.remove(key);
            }
        }
    }
    range_of(&node)
}

/// A number schema's range in words: `a number from 5 to 30`, `an integer of at least 1`,
/// `a number above 0 and below 1`.
pub(super) fn range_of(node: &Value) -> Option<String> {
    let integer = match node.get("type") {
        Some(Value::String(t)) => t == "integer",
        // `["integer", "null"]`: an optional integer.
        Some(Value::Array(ts)) => {
            ts.iter().any(|t| t == "integer") && !ts.iter().any(|t| t == "number")
        }
        _ => false,
    };
    let kind = if integer { "an integer" } else { "a number" };
    let bound = |k: &str| node.get(k).filter(|v| v.is_number()).map(Value::to_string);
    let lower = match (bound("minimum"), bound("exclusiveMinimum")) {
        (_, Some(e)) => Some(("above", e)),
        (Some(m), None) => Some(("from", m)),
        (None, None) => None,
    };
    let upper = match (bound("maximum"), bound("exclusiveMaximum")) {
        (_, Some(e)) => Some(("below", e)),
        (Some(m), None) => Some(("to", m)),
        (None, None) => None,
    };
    Some(match (lower, upper) {
        (Some(("from", lo)), Some(("to", hi))) => format!("{kind} from {lo} to {hi}"),
        (Some((lw, lo)), Some((uw, hi))) => {
            let lw = if lw == "from" { "of at least" } else { lw };
            let uw = if uw == "to" { "at most" } else { uw };
            format!("{kind} {lw} {lo} and {uw} {hi}")
        }
        (Some(("from", lo)), None) => format!("{kind} of at least {lo}"),
        (Some((w, lo)), None) => format!("{kind} {w} {lo}"),
        (None, Some(("to", hi))) => format!("{kind} of at most {hi}"),
        (None, Some((w, hi))) => format!("{kind} {w} {hi}"),
        (None, None) => return None,
    })
}
