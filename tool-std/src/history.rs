//! A conversation's tool results re-rendered from stored JSON (seed 001's state persistence).
//!
//! A host that keeps only its message history keeps each call's structured result as JSON
//! (an MCP `structuredContent`, an activity record's `data`). To send the history to the model
//! again with each file's content shown once, at its newest occurrence, [`rerender`] reads the
//! results back into the standard outputs they were ([`output_from_json`]) and renders them
//! oldest first through one [`ResourcesTracker`]: an earlier read of the same lines of the
//! same file says "content shown in another tool invocation". Results whose text depends on
//! nothing else in the conversation are left to the host, which keeps the text it stored.
//!
//! ```
//! use serde_json::json;
//! let read = |n: u32| json!({
//!     "type": "files_read", "files_read": 1, "failed": [],
//!     "files": [{"path": "a.txt", "content": "alpha\n", "start_line": 1, "end_line": 1,
//!                "total_lines": 1, "version": null, "truncated": false, "tokens": 2}],
//!     "n": n,
//! });
//! let texts = tool_std::history::rerender(&[read(1), json!({"type": "other"}), read(2)]);
//! assert!(texts[0].as_deref().unwrap().contains("content shown in another tool invocation"));
//! assert!(texts[1].is_none(), "not a standard output with resources: keep its stored text");
//! assert!(texts[2].as_deref().unwrap().contains("1\talpha"));
//! ```

use serde_json::Value;
use tool_core::{ResourcesTracker, ToolOutput};

use crate::file::read_file::FilesRead;

/// The standard output a stored structured result was, when it is one whose text shows
/// resources (today `read_file`'s `files_read`); `None` for any other JSON.
pub fn output_from_json(value: &Value) -> Option<ToolOutput> {
    match value.get("type").and_then(Value::as_str)? {
        "files_read" => FilesRead::from_json(value).ok().map(ToolOutput::new),
        _ => None,
    }
}

/// Re-renders a stored history of structured results, oldest first: the text for the model
/// of each result [`output_from_json`] reads back, each resource shown at its newest
/// occurrence only; `None` for the others (keep the text stored with them).
pub fn rerender(history: &[Value]) -> Vec<Option<String>> {
    let outputs: Vec<Option<ToolOutput>> = history.iter().map(output_from_json).collect();
    let mut tracker = ResourcesTracker::new();
    let mut texts: Vec<Option<String>> = outputs
        .iter()
        .rev()
        .map(|o| o.as_ref().map(|o| o.model_text(&mut tracker)))
        .collect();
    texts.reverse();
    texts
}
