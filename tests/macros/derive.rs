//! `#[derive(Action)]`: an enum of actions (flat schema, `Actions`, `Deserialize` that never
//! panics, `Serialize`), an enum of values (`Choice`, a string enum), and such an enum as a
//! tool's input.

use serde_json::{Value, json};
use toolsmith::{Action, Actions, Choice, Registry, Runtime, ToolCall, ToolResult, tool};

/// The operations of a key-value store.
#[derive(Action, Debug, PartialEq)]
#[action(tag = "op")]
enum KvOp {
    /// Read a key.
    ///
    /// Missing keys read as null.
    Get {
        /// The key.
        key: String,
    },
    /// Write a key.
    #[action(rename = "put", requires_approval, permissions(write_files))]
    Set {
        key: String,
        /// The value to store.
        value: String,
        /// Seconds to keep it; forever when left out.
        ttl: Option<u64>,
    },
    /// List every key.
    #[action(read_only, description = "List the keys.")]
    List {
        #[param(rename = "max", default = 50u32)]
        limit: u32,
    },
    /// Forget everything.
    Clear,
}

#[test]
fn action_set() {
    let set = KvOp::action_set();
    assert_eq!(set.field, "op");
    assert_eq!(
        set.names().collect::<Vec<_>>(),
        ["get", "put", "list", "clear"]
    );
    let get = set.get("get").unwrap();
    assert_eq!(get.description, "Read a key.");
    assert_eq!(get.required, ["key"]);
    let put = set.get("put").unwrap();
    assert_eq!(put.required, ["key", "value"]);
    assert_eq!(put.optional, ["ttl"]);
    assert!(put.requires_approval);
    assert!(put.permissions.contains(toolsmith::Permission::WriteFiles));
    let list = set.get("list").unwrap();
    assert_eq!(list.description, "List the keys.");
    assert!(list.read_only);
    assert_eq!(list.optional, ["max"]);
    assert!(set.get("clear").unwrap().required.is_empty());
    assert_eq!(KvOp::Clear.action_name(), "clear");
    assert_eq!(
        KvOp::Set {
            key: "k".into(),
            value: "v".into(),
            ttl: None
        }
        .action_name(),
        "put"
    );
}

#[test]
fn flat_schema() {
    let schema = toolsmith::input_schema_for::<KvOp>();
    assert_eq!(
        schema,
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "op": {
                    "type": "string",
                    "enum": ["get", "put", "list", "clear"],
                    "description": "The action to perform, one of:\n- `get` (key): Read a key.\n- `put` (key, value, [ttl]): Write a key.\n- `list` ([max]): List the keys.\n- `clear`: Forget everything."
                },
                "key": {"type": "string", "description": "The key (required for the `get` and `put` actions)."},
                "value": {"type": "string", "description": "The value to store (required for the `put` action)."},
                "ttl": {
                    "type": ["integer", "null"],
                    "format": "uint64",
                    "minimum": 0,
                    "description": "Seconds to keep it; forever when left out (only for the `put` action)."
                },
                "max": {
                    "type": "integer",
                    "format": "uint32",
                    "minimum": 0,
                    "description": "Only for the `list` action.",
                    "default": 50
                }
            },
            "required": ["op"],
            "additionalProperties": false
        })
    );
}

fn de(v: Value) -> Result<KvOp, String> {
    serde_json::from_value(v).map_err(|e| e.to_string())
}

#[test]
fn deserialize_flat_objects() {
    assert_eq!(
        de(json!({"op": "get", "key": "a"})),
        Ok(KvOp::Get { key: "a".into() })
    );
    assert_eq!(
        de(json!({"key": "a", "value": "b", "op": "put"})),
        Ok(KvOp::Set {
            key: "a".into(),
            value: "b".into(),
            ttl: None
        }),
        "the discriminator may come last"
    );
    assert_eq!(
        de(json!({"op": "put", "key": "a", "value": "b", "ttl": 5})),
        Ok(KvOp::Set {
            key: "a".into(),
            value: "b".into(),
            ttl: Some(5)
        })
    );
    assert_eq!(de(json!({"op": "list"})), Ok(KvOp::List { limit: 50 }));
    assert_eq!(
        de(json!({"op": "list", "max": 3})),
        Ok(KvOp::List { limit: 3 })
    );
    assert_eq!(
        de(json!({"op": "clear", "key": null})),
        Ok(KvOp::Clear),
        "null is absent"
    );
    // An unknown member is refused, naming it and the known ones (as
    // `#[serde(deny_unknown_fields)]` would), so no wrapper has to watch for it.
    assert_eq!(
        de(json!({"op": "clear", "other": 1})),
        Err("unknown parameter `other`; known parameters: op, key, value, ttl, max".to_owned())
    );
    // From text, too.
    let from_text: KvOp = serde_json::from_str(r#"{"op":"get","key":"k"}"#).unwrap();
    assert_eq!(from_text, KvOp::Get { key: "k".into() });
}

#[test]
fn deserialize_errors_never_panic() {
    let err = de(json!({"op": "crawl"})).unwrap_err();
    assert!(
        err.contains("unknown variant `crawl`, expected one of"),
        "{err}"
    );
    assert!(
        de(json!({"key": "a"}))
            .unwrap_err()
            .contains("missing field `op`")
    );
    assert!(
        de(json!({"op": "put", "key": "a"}))
            .unwrap_err()
            .contains("missing field `value`")
    );
    assert!(de(json!({"op": "get", "key": 1})).is_err());
    let err = de(json!({"op": "get", "key": "a", "value": "b"})).unwrap_err();
    assert!(
        err.contains("`value` does not apply to action `get`"),
        "{err}"
    );
    assert!(de(json!("get")).is_err());
    assert!(de(json!(null)).is_err());
    assert!(de(json!({"op": 3})).is_err());
}

#[test]
fn serialize_round_trips() {
    for op in [
        KvOp::Get { key: "a".into() },
        KvOp::Set {
            key: "a".into(),
            value: "b".into(),
            ttl: Some(1),
        },
        KvOp::List { limit: 7 },
        KvOp::Clear,
    ] {
        let v = serde_json::to_value(&op).unwrap();
        assert_eq!(de(v), Ok(op));
    }
    assert_eq!(
        serde_json::to_value(KvOp::List { limit: 7 }).unwrap(),
        json!({"op": "list", "max": 7})
    );
}

/// The kinds of a prompt.
#[derive(Action, Debug, Clone, Copy, PartialEq)]
enum PromptType {
    /// The system prompt.
    System,
    ConversationConsolidation,
    MemoryManagement,
    #[action(rename = "agent_name")]
    Name,
}

#[test]
fn values() {
    assert_eq!(
        PromptType::VALUES,
        [
            "system",
            "conversation_consolidation",
            "memory_management",
            "agent_name"
        ]
    );
    assert_eq!(PromptType::Name.as_str(), "agent_name");
    assert_eq!(PromptType::from_name("system"), Some(PromptType::System));
    assert_eq!(PromptType::from_name("name"), None);
    assert_eq!(
        toolsmith::output_schema_for::<PromptType>(),
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "string",
            "enum": ["system", "conversation_consolidation", "memory_management", "agent_name"],
            "description": "The kinds of a prompt."
        })
    );
    let v: PromptType = serde_json::from_value(json!("memory_management")).unwrap();
    assert_eq!(v, PromptType::MemoryManagement);
    let err = serde_json::from_value::<PromptType>(json!("nope")).unwrap_err();
    assert!(err.to_string().contains("unknown variant `nope`"), "{err}");
    assert_eq!(
        serde_json::to_value(PromptType::Name).unwrap(),
        json!("agent_name")
    );
}

/// Run one operation on the store.
#[tool(name = "kv", register = false)]
async fn kv(args: KvOp) -> ToolResult<Value> {
    Ok(json!({"op": args.action_name()}))
}

#[tokio::test]
async fn an_action_enum_as_a_tool_input() {
    let registry = Registry::builder().register(KvTool).build().unwrap();
    let spec = registry.get("kv").unwrap().spec().clone();
    assert_eq!(
        spec.actions,
        Some(KvOp::action_set()),
        "the spec carries the actions"
    );
    assert_eq!(spec.input_schema["required"], json!(["op"]));
    let runtime = Runtime::builder(registry)
        .approver(toolsmith::ApproveAll)
        .build();
    let s = runtime.session();
    let out = s
        .call(ToolCall::new("1", "kv", r#"{"op": "get", "key": "a"}"#))
        .await;
    assert_eq!(out.to_json(), json!({"op": "get"}));
    let out = s
        .call(ToolCall::new("2", "kv", r#"{"op": "put", "key": "a"}"#))
        .await
        .to_json();
    assert!(
        out["error"]
            .as_str()
            .unwrap()
            .contains("value is required for put action"),
        "{out}"
    );
    assert_eq!(out["allowed_ops"], json!(["get", "put", "list", "clear"]));
    // `put` needs `write_files` on top of the tool's permissions.
    let limited = runtime.session_with(
        toolsmith::SessionConfig::default().permissions(toolsmith::PermissionSet::EMPTY),
    );
    let out = limited
        .call(ToolCall::new(
            "3",
            "kv",
            r#"{"op": "put", "key": "a", "value": "b"}"#,
        ))
        .await
        .to_json();
    assert_eq!(out["missing_permissions"], json!(["write_files"]), "{out}");
    let out = limited
        .call(ToolCall::new("4", "kv", r#"{"op": "clear"}"#))
        .await;
    assert!(out.is_success());
}

/// An enum of actions through the trait-layer path.
#[derive(Action)]
#[action(crate = ::tool_core, serialize = false)]
enum Direct {
    /// Go.
    Go { speed: u8 },
}

#[test]
fn crate_path_override() {
    assert_eq!(
        <Direct as tool_core::Actions>::action_set().actions.len(),
        1
    );
    let d: Direct = serde_json::from_value(json!({"action": "go", "speed": 3})).unwrap();
    let Direct::Go { speed } = d;
    assert_eq!(speed, 3);
}

/// Notes, addressed by id in every action.
#[derive(Action, Debug, PartialEq)]
enum NoteOp {
    /// Show a note.
    Show {
        /// The note's id, as listed
        /// by `list`.
        ///
        /// Ids are case-sensitive.
        id: String,
        /// What to show:
        /// - `text`
        /// - `meta`
        part: Option<String>,
    },
    /// Rename a note.
    Rename { id: String, title: String },
}

#[test]
fn a_parameter_every_action_requires_is_required_at_the_root() {
    let schema = toolsmith::input_schema_for::<NoteOp>();
    assert_eq!(schema["required"], json!(["action", "id"]));
    // The root `required` says it; the description needs no note. Its doc comment's lines
    // are joined per paragraph, like an action's description; a list keeps its lines.
    assert_eq!(
        schema["properties"]["id"]["description"],
        "The note's id, as listed by `list`.\n\nIds are case-sensitive."
    );
    assert_eq!(
        schema["properties"]["part"]["description"],
        "What to show:\n- `text`\n- `meta` (only for the `show` action)"
    );
    assert_eq!(
        schema["properties"]["title"]["description"],
        "Required for the `rename` action."
    );
}

/// Work with notes.
#[tool(name = "notes", register = false, read_only)]
async fn notes(args: NoteOp) -> ToolResult<Value> {
    Ok(json!({"action": args.action_name()}))
}

#[tokio::test]
async fn a_root_required_parameter_is_reported_once_for_the_action() {
    let registry = Registry::builder().register(NotesTool).build().unwrap();
    let s = Runtime::builder(registry).build().session();
    let out = s
        .call(ToolCall::new(
            "1",
            "notes",
            r#"{"action": "rename", "title": "t"}"#,
        ))
        .await;
    let err = out.error().expect("id is missing");
    assert_eq!(err.message(), "id is required for rename action");
    let problems = out.to_json()["problems"].clone();
    assert_eq!(
        problems,
        json!([{
            "path": "/id",
            "message": "id is required for rename action",
            "expected": "`id` for action `rename`"
        }]),
        "{out:?}"
    );
    // Without an action only the action is reported, as before.
    let out = s.call(ToolCall::new("2", "notes", r#"{}"#)).await.to_json();
    assert_eq!(out["problems"].as_array().map(Vec::len), Some(1), "{out}");
    assert_eq!(out["problems"][0]["path"], "/action", "{out}");
    let out = s
        .call(ToolCall::new(
            "3",
            "notes",
            r#"{"action": "show", "id": "a"}"#,
        ))
        .await;
    assert!(out.is_success());
}
