//! Seed 001's state persistence: a host that keeps only its message history stores each
//! `read_file` result as JSON, reads it back, and re-renders the history with each file's
//! content at its newest occurrence, exactly as the live outputs render.

use serde_json::{Value, json};
use tool_core::{ResourcesTracker, ToolOutput};
use tool_std::history::{output_from_json, rerender};

use crate::support::file::Fixture;

/// A call's structured result as a host stores it: JSON text, read back.
fn stored(out: &ToolOutput) -> Value {
    let text = serde_json::to_string(&out.to_value().expect("json")).expect("text");
    serde_json::from_str(&text).expect("parse")
}

#[tokio::test]
async fn a_stored_history_re_renders_with_the_newest_occurrence_shown() {
    let f = Fixture::new();
    f.write("a.txt", "alpha\nbeta\n");
    f.write("b.txt", "bee\n");
    let mut live = Vec::new();
    for args in [
        json!({"paths": ["a.txt"]}),
        json!({"paths": ["b.txt", "a.txt:2"]}),
        json!({"paths": ["a.txt"]}),
    ] {
        let out = f.outcome("read_file", args).await;
        live.push(out.result.expect("read"));
    }
    let history: Vec<Value> = live.iter().map(stored).collect();

    // Each stored result renders exactly as its live output did.
    for (output, json) in live.iter().zip(&history) {
        let restored = output_from_json(json).expect("a standard output");
        assert_eq!(
            restored.model_text(&mut ResourcesTracker::new()),
            output.model_text(&mut ResourcesTracker::new())
        );
    }

    let texts: Vec<String> = rerender(&history).into_iter().map(Option::unwrap).collect();
    assert!(
        texts[0].contains("a.txt (lines 1-2 of 2")
            && texts[0].contains("content shown in another tool invocation"),
        "{}",
        texts[0]
    );
    assert!(texts[1].contains("1\tbee"), "{}", texts[1]);
    assert!(
        texts[1].contains("2\tbeta"),
        "another range is another resource: {}",
        texts[1]
    );
    assert!(texts[2].contains("1\talpha\n     2\tbeta"), "{}", texts[2]);
    // The same as the live outputs re-rendered: the ids made from JSON are the ids.
    assert_eq!(texts, ResourcesTracker::render_history(live.iter()));

    // What is not a standard output with resources is left to the host.
    assert!(output_from_json(&json!({"type": "command_result"})).is_none());
    assert!(
        output_from_json(&json!({"type": "files_read"})).is_none(),
        "incomplete"
    );
}
