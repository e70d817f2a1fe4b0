//! `#[tool]` on an impl: a stateful single-call tool, and a polymorphic tool whose
//! `#[action]` methods become its actions (the canonical flat schema, dispatch, outputs).

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::json;
use toolsmith::{Action, Registry, Render, Runtime, ToolCall, ToolContext, ToolResult, tool};

use crate::support::macros::{call, session};

/// A counter shared by every call (state lives in the tool).
struct Counter {
    start: u64,
    count: AtomicU64,
}

impl Counter {
    fn new() -> Self {
        Counter {
            start: 100,
            count: AtomicU64::new(0),
        }
    }
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Count {
    count: u64,
}
impl Render for Count {}

/// Count calls, adding `by` each time.
#[tool(constructor = Counter::new)]
impl Counter {
    async fn call(
        &self,
        /// How much to add.
        by: u64,
    ) -> ToolResult<Count> {
        let before = self.count.fetch_add(by, Ordering::SeqCst);
        Ok(Count {
            count: self.start + before + by,
        })
    }

    /// Not a tool method: helpers stay as they are.
    fn reset(&self) {
        self.count.store(0, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn single_call_impl_keeps_state_and_registers_with_its_constructor() {
    let registry = Registry::from_inventory().unwrap();
    let entry = registry
        .get("counter")
        .expect("snake_case of the type name");
    assert_eq!(
        entry.spec().description,
        "Count calls, adding `by` each time."
    );
    assert_eq!(entry.spec().input_schema["required"], json!(["by"]));
    let s = session(registry);
    assert_eq!(
        call(&s, "counter", json!({"by": 2})).await,
        json!({"count": 102})
    );
    assert_eq!(
        call(&s, "counter", json!({"by": 3})).await,
        json!({"count": 105})
    );
    let c = Counter::new();
    c.reset();
}

/// How a file is shown.
#[derive(Action, Debug, Clone, Copy, PartialEq)]
enum Format {
    Text,
    #[action(rename = "md")]
    Markdown,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Listing {
    r#type: &'static str,
    names: Vec<String>,
}
impl Render for Listing {
    fn status(&self) -> Option<String> {
        Some(format!("listed {} file(s)", self.names.len()))
    }
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Shown {
    r#type: &'static str,
    path: String,
    format: Format,
}
impl Render for Shown {
    fn render(&self, _: &mut toolsmith::ResourcesTracker) -> Option<String> {
        Some(format!("<{}>", self.path))
    }
}

#[derive(Default)]
struct Files;

/// Work with files.
#[tool(name = "files", register = false)]
impl Files {
    /// List the files of a directory.
    #[action(read_only)]
    async fn list(
        &self,
        /// The directory.
        dir: String,
        /// How many names
        /// at most.
        #[param(default = 2usize)]
        limit: usize,
    ) -> ToolResult<Listing> {
        let names = (0..limit).map(|i| format!("{dir}/{i}")).collect();
        Ok(Listing {
            r#type: "listing",
            names,
        })
    }

    /// Show one file.
    #[action(rename = "show", requires_approval)]
    async fn show_file(
        &self,
        _ctx: &ToolContext,
        /// The file.
        path: String,
        /// The format; text when left out.
        format: Option<Format>,
    ) -> ToolResult<Shown> {
        Ok(Shown {
            r#type: "shown",
            path,
            format: format.unwrap_or(Format::Text),
        })
    }
}

#[tokio::test]
async fn polymorphic_impl_schema() {
    let registry = Registry::builder().register(Files).build().unwrap();
    let spec = registry.get("files").unwrap().spec().clone();
    assert_eq!(
        *spec.input_schema,
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "action": {
                    "type": "string",
                    "enum": ["list", "show"],
                    "description": "The action to perform, one of:\n- `list` (dir, [limit]): List the files of a directory.\n- `show` (path, [format]): Show one file."
                },
                "dir": {"type": "string", "description": "The directory (required for the `list` action)."},
                // A doc comment's lines are joined, as for an action's description.
                "limit": {
                    "type": "integer",
                    "format": "uint",
                    "minimum": 0,
                    "description": "How many names at most (only for the `list` action).",
                    "default": 2
                },
                "path": {"type": "string", "description": "The file (required for the `show` action)."},
                "format": {
                    "anyOf": [{"$ref": "#/$defs/Format"}, {"type": "null"}],
                    "description": "The format; text when left out (only for the `show` action)."
                }
            },
            "required": ["action"],
            "additionalProperties": false,
            "$defs": {
                "Format": {"type": "string", "enum": ["text", "md"], "description": "How a file is shown."}
            }
        })
    );
    let set = spec.actions.as_ref().unwrap();
    assert_eq!(set.names().collect::<Vec<_>>(), ["list", "show"]);
    assert!(set.get("list").unwrap().read_only);
    assert!(set.get("show").unwrap().requires_approval);
    // Two output types: the output schema is their union; both are objects, so the union
    // is an object schema too.
    let out = spec.output_schema.as_deref().expect("a union of objects");
    assert_eq!(out["type"], "object");
    assert_eq!(out["anyOf"].as_array().map(Vec::len), Some(2));
    assert_eq!(out["anyOf"][0]["properties"]["names"]["type"], "array");
}

#[tokio::test]
async fn polymorphic_impl_dispatches_and_renders_each_output() {
    let registry = Registry::builder().register(Files).build().unwrap();
    let runtime = Runtime::builder(registry)
        .approver(toolsmith::ApproveAll)
        .build();
    let s = runtime.session();
    let out = call(&s, "files", json!({"action": "list", "dir": "src"})).await;
    assert_eq!(out, json!({"type": "listing", "names": ["src/0", "src/1"]}));
    let out = s
        .call(ToolCall::new(
            "2",
            "files",
            r#"{"action": "show", "path": "a.rs", "format": "md"}"#,
        ))
        .await;
    assert_eq!(
        out.to_json(),
        json!({"type": "shown", "path": "a.rs", "format": "md"})
    );
    assert_eq!(out.model_text(&mut Default::default()), "<a.rs>");
    let out = s
        .call(ToolCall::new(
            "3",
            "files",
            r#"{"action": "list", "dir": "d", "limit": 1}"#,
        ))
        .await;
    assert_eq!(out.status(), "listed 1 file(s)");

    // A parameter of the other action is refused, naming what this one takes.
    let out = call(
        &s,
        "files",
        json!({"action": "list", "dir": "d", "path": "x"}),
    )
    .await;
    assert_eq!(out["error_type"], "validation_error");
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .contains("does not apply to action `list`"),
        "{out}"
    );
    let out = call(
        &s,
        "files",
        json!({"action": "show", "path": "a", "format": "pdf"}),
    )
    .await;
    assert_eq!(out["allowed_formats"], json!(["text", "md"]), "{out}");
}
