//! Point 9: rendering: status lines and model text, custom `Render`, the `ResourcesTracker`
//! across a conversation and when a history is re-rendered, preview lines.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tool_core::{Render, ResourcesTracker, Tool, ToolContext, ToolError, ToolSpec};

use crate::support::*;

/// Arguments of `read`.
#[derive(Debug, Deserialize, JsonSchema)]
struct ReadArgs {
    /// The file.
    path: String,
    /// Its content (the test plays the file system).
    content: String,
}

/// A loaded file.
#[derive(Debug, Serialize, JsonSchema)]
struct FileOut {
    path: String,
    content: String,
}

impl Render for FileOut {
    fn status(&self) -> Option<String> {
        Some(format!("Loaded {}", self.path))
    }
    fn render(&self, tracker: &mut ResourcesTracker) -> Option<String> {
        let id = ResourcesTracker::file_id("p", &self.path, &self.content);
        Some(if tracker.show(id) {
            format!(
                ">>>>> FILE: {}\n{}\n<<<<< END FILE",
                self.path, self.content
            )
        } else {
            format!(
                ">>>>> FILE: {} (content shown in another tool invocation)\n<<<<< END FILE",
                self.path
            )
        })
    }
}

struct Read;

impl Tool for Read {
    type Input = ReadArgs;
    type Output = FileOut;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("read", "Read a file.")
    }
    async fn call(&self, _: &ToolContext, a: ReadArgs) -> Result<FileOut, ToolError> {
        Ok(FileOut {
            path: a.path,
            content: a.content,
        })
    }
}

fn shown(path: &str, content: &str) -> String {
    format!(">>>>> FILE: {path}\n{content}\n<<<<< END FILE")
}

fn elsewhere(path: &str) -> String {
    format!(">>>>> FILE: {path} (content shown in another tool invocation)\n<<<<< END FILE")
}

#[tokio::test]
async fn status_line_and_model_text_per_output() {
    let session = session_of(|b| b.register(Add).register(Echo));
    let mut tracker = ResourcesTracker::new();

    // Default rendering: "<tool> succeeded" and compact JSON.
    let out = session
        .call(call("1", "add", json!({"a": 1, "b": 2})))
        .await;
    assert_eq!(out.status(), "add succeeded");
    assert_eq!(out.model_text(&mut tracker), r#"{"sum":3}"#);

    // Custom rendering.
    let out = session
        .call(call("2", "echo", json!({"text": "hey"})))
        .await;
    assert_eq!(out.status(), "Echoed 3 byte(s)");
    assert_eq!(out.model_text(&mut tracker), "ECHO: hey");
    assert_eq!(out.to_json(), json!({"type": "echoed", "text": "hey"}));

    // An error: its message and its JSON.
    let out = session.call(call("3", "add", json!({"a": 1}))).await;
    assert_eq!(out.status(), "add failed: missing required parameter `b`");
    let text = out.model_text(&mut tracker);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).unwrap(),
        expect_err(&out).to_json()
    );
}

#[tokio::test]
async fn the_same_file_is_shown_once_across_a_conversation() {
    let session = session_of(|b| b.register(Read));
    let mut tracker = ResourcesTracker::new();
    let a1 = session
        .call(call(
            "1",
            "read",
            json!({"path": "a.rs", "content": "fn a() {}"}),
        ))
        .await;
    let b1 = session
        .call(call(
            "2",
            "read",
            json!({"path": "b.rs", "content": "fn b() {}"}),
        ))
        .await;
    session.clear_current_turn();
    let a2 = session
        .call(call(
            "3",
            "read",
            json!({"path": "a.rs", "content": "fn a() {}"}),
        ))
        .await;
    let a3 = session
        .call(call(
            "4",
            "read",
            json!({"path": "a.rs", "content": "fn a2() {}"}),
        ))
        .await;
    assert_eq!(a1.status(), "Loaded a.rs");
    assert_eq!(a1.model_text(&mut tracker), shown("a.rs", "fn a() {}"));
    assert_eq!(b1.model_text(&mut tracker), shown("b.rs", "fn b() {}"));
    assert_eq!(a2.model_text(&mut tracker), elsewhere("a.rs"));
    // Same path, new content (another hash): shown again.
    assert_eq!(a3.model_text(&mut tracker), shown("a.rs", "fn a2() {}"));
}

#[tokio::test]
async fn re_rendering_a_history_shows_the_newest_occurrence() {
    let session = session_of(|b| b.register(Read));
    let mut outs = Vec::new();
    for (i, (path, content)) in [
        ("a.rs", "A"),
        ("b.rs", "B"),
        ("a.rs", "A"),
        ("c.rs", "C"),
        ("b.rs", "B"),
    ]
    .into_iter()
    .enumerate()
    {
        session.clear_current_turn();
        let o = session
            .call(call(
                &i.to_string(),
                "read",
                json!({"path": path, "content": content}),
            ))
            .await;
        outs.push(o.result.unwrap());
    }
    let texts = ResourcesTracker::render_history(&outs);
    assert_eq!(
        texts,
        vec![
            elsewhere("a.rs"),
            elsewhere("b.rs"),
            shown("a.rs", "A"),
            shown("c.rs", "C"),
            shown("b.rs", "B"),
        ]
    );
}

#[test]
fn tracker_basics() {
    let mut t = ResourcesTracker::new();
    let id = ResourcesTracker::file_id("p", "src/main.rs", "fn main() {}");
    assert_eq!(
        id,
        // FNV-1a 64 of the content: stable across builds.
        "file:p:src/main.rs:aa244faa9019a10f"
    );
    assert!(!t.is_rendered(&id));
    assert!(t.show(id.clone()));
    assert!(t.is_rendered(&id));
    assert!(!t.show(id.clone()));
    t.mark_rendered("other");
    assert!(t.is_rendered("other"));
    assert_ne!(
        ResourcesTracker::file_id("p", "a", "x"),
        ResourcesTracker::file_id("q", "a", "x"),
        "the project is part of the id"
    );
}
