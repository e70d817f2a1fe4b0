//! `#[tool]` on functions, through the runtime: plain parameters and an arguments struct,
//! the schema they get, every `#[tool]` key, registration with `inventory`, a hand-written
//! tool beside a macro tool, and both crate paths (the facade by default, `crate = ...`).

use std::time::Duration;

use serde_json::json;
use toolsmith::{
    Annotations, Mode, NoArgs, Permission, Registry, Render, Runtime, SessionConfig, Tool,
    ToolContext, ToolError, ToolResult, ToolSpec, tool,
};

use crate::support::macros::{call, session};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    sum: i64,
}
impl Render for Sum {}

/// Add two integers.
///
/// Overflow is an error.
#[tool(register = false)]
async fn add(
    /// The first number.
    a: i64,
    /// The second number; 0 when left out.
    b: Option<i64>,
    /// How many times to add `b`.
    #[param(default = 1)]
    times: i64,
) -> ToolResult<Sum> {
    let b = b.unwrap_or(0);
    b.checked_mul(times)
        .and_then(|bt| a.checked_add(bt))
        .map(|sum| Sum { sum })
        .ok_or_else(|| ToolError::user("the sum overflows a 64-bit integer"))
}

#[tokio::test]
async fn plain_parameters_schema_and_calls() {
    let registry = Registry::builder().register(AddTool).build().unwrap();
    let spec = registry.get("add").unwrap().spec().clone();
    assert_eq!(
        spec.description,
        "Add two integers.\n\nOverflow is an error."
    );
    assert_eq!(
        *spec.input_schema,
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "a": {"type": "integer", "format": "int64", "description": "The first number."},
                "b": {
                    "type": ["integer", "null"],
                    "format": "int64",
                    "description": "The second number; 0 when left out."
                },
                "times": {
                    "type": "integer",
                    "format": "int64",
                    "description": "How many times to add `b`.",
                    "default": 1
                }
            },
            "required": ["a"],
            "additionalProperties": false
        })
    );
    assert_eq!(spec.parameter_names(), ["a", "b", "times"]);
    assert!(spec.actions.is_none());
    assert_eq!(
        spec.output_schema.as_deref().unwrap()["properties"]["sum"]["type"],
        "integer"
    );

    let s = session(registry);
    assert_eq!(
        call(&s, "add", json!({"a": 2, "b": 3})).await,
        json!({"sum": 5})
    );
    assert_eq!(
        call(&s, "add", json!({"a": 2, "b": 3, "times": 3})).await,
        json!({"sum": 11})
    );
    assert_eq!(
        call(&s, "add", json!({"a": 2, "b": null})).await,
        json!({"sum": 2})
    );
    let out = call(&s, "add", json!({"b": "x", "c": 1})).await;
    assert_eq!(out["error_type"], "validation_error");
    assert_eq!(out["problems"].as_array().unwrap().len(), 3, "{out}");
    let out = call(&s, "add", json!({"a": i64::MAX, "b": 1})).await;
    assert_eq!(out["error_type"], "user_error");
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct GrepArgs {
    /// The regular expression.
    pattern: String,
    /// At most this many matches.
    #[serde(default = "ten")]
    max_results: u32,
}

fn ten() -> u32 {
    10
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct GrepOutput {
    r#type: &'static str,
    pattern: String,
    max_results: u32,
    call_id: String,
}
impl Render for GrepOutput {
    fn status(&self) -> Option<String> {
        Some(format!("searched for {}", self.pattern))
    }
}

#[tool(
    name = "grep",
    description_file = "tests/macros/grep.md",
    category = "search",
    modes(agent, mcp),
    permissions(read_files),
    toolsets(files, search),
    aliases(search_files),
    user_facing = false,
    suppress_execution_animation,
    read_only,
    idempotent,
    timeout = "1500ms",
    defer_loading,
    namespace = "workspace",
    tool_type = Grep,
    register = false
)]
async fn grep(ctx: &ToolContext, args: GrepArgs) -> Result<GrepOutput, ToolError> {
    Ok(GrepOutput {
        r#type: "grep_result",
        pattern: args.pattern,
        max_results: args.max_results,
        call_id: ctx.call_id().to_owned(),
    })
}

#[tokio::test]
async fn every_key_reaches_the_spec() {
    let spec = toolsmith::DynTool::spec(&Grep);
    assert_eq!(spec.name, "grep");
    assert_eq!(
        spec.description,
        include_str!("grep.md"),
        "description_file is embedded as written"
    );
    assert_eq!(spec.category.as_deref(), Some("search"));
    assert_eq!(spec.modes, [Mode::Agent, Mode::Mcp]);
    assert!(spec.permissions.contains(Permission::ReadFiles));
    assert_eq!(spec.toolsets, ["files", "search"]);
    assert_eq!(spec.aliases, ["search_files"]);
    assert!(!spec.user_facing);
    assert!(spec.suppress_execution_animation);
    assert_eq!(
        spec.annotations,
        Annotations::new().read_only(true).idempotent(true)
    );
    assert_eq!(spec.timeout, Some(Duration::from_millis(1500)));
    assert!(spec.defer_loading);
    assert_eq!(spec.namespace.as_deref(), Some("workspace"));
    assert!(!spec.requires_approval);
    assert_eq!(spec.input_schema["required"], json!(["pattern"]));

    let registry = Registry::builder().register(Grep).build().unwrap();
    let s = session(registry);
    let out = call(&s, "search_files", json!({"pattern": "fn main"})).await;
    assert_eq!(out["type"], "grep_result", "an alias resolves: {out}");
    assert_eq!(out["max_results"], 10);

    // Not offered in the CLI mode.
    let registry = Registry::builder().register(Grep).build().unwrap();
    let runtime = Runtime::builder(registry).build();
    let cli = runtime.session_with(SessionConfig::default().mode(Mode::Cli));
    let out = call(&cli, "grep", json!({"pattern": "x"})).await;
    assert_eq!(out["error_type"], "permission_error", "{out}");
}

/// What a command printed, with its exit code: text by nature.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Printed {
    r#type: &'static str,
    return_code: i32,
    output: String,
}
impl Render for Printed {
    fn render(&self, _: &mut toolsmith::ResourcesTracker) -> Option<String> {
        Some(format!("Exit code {}\n{}", self.return_code, self.output))
    }
}

/// Print the text.
#[tool(text_output, register = false)]
async fn print(text: String) -> ToolResult<Printed> {
    Ok(Printed {
        r#type: "printed",
        return_code: 0,
        output: text,
    })
}

#[tokio::test]
async fn text_output_declares_no_output_schema_and_answers_with_text_alone() {
    use toolsmith::provider::{Format, export, mcp_result};

    let spec = toolsmith::DynTool::spec(&PrintTool);
    assert!(spec.text_output);
    assert_eq!(spec.output_schema, None);
    let listed = export(&spec, Format::Mcp).unwrap();
    let listed = listed.as_json().unwrap();
    assert!(listed.get("outputSchema").is_none(), "{listed}");
    assert!(listed.get("inputSchema").is_some(), "{listed}");
    let canonical = export(&spec, Format::Json).unwrap();
    assert_eq!(canonical.as_json().unwrap()["text_output"], true);

    let s = session(Registry::builder().register(PrintTool).build().unwrap());
    let outcome = s
        .call(toolsmith::ToolCall::new(
            "c",
            "print",
            r#"{"text": "hi\n"}"#,
        ))
        .await;
    assert!(outcome.text_output);
    let answer = mcp_result(&outcome, &mut toolsmith::ResourcesTracker::new());
    assert_eq!(
        answer,
        json!({"content": [{"type": "text", "text": "Exit code 0\nhi\n"}], "isError": false}),
        "no structuredContent"
    );
    // The library's result keeps the typed output.
    assert_eq!(outcome.to_json()["return_code"], 0);

    // Without the key, the same output is structured content.
    let spec = toolsmith::DynTool::spec(&AddTool);
    assert!(!spec.text_output);
    assert!(spec.output_schema.is_some());
}

/// Every mode and permission tool-core knows: the macro's names must stay in step with it.
#[tool(
    modes(agent, mcp, cli),
    permissions(
        read_files,
        write_files,
        delete_files,
        execute_commands,
        network,
        view_prompts,
        manage_prompts
    ),
    requires_approval,
    destructive,
    open_world,
    register = false
)]
async fn everything() -> ToolResult<String> {
    Ok("done".to_owned())
}

#[test]
fn mode_and_permission_names_match_tool_core() {
    let spec = toolsmith::DynTool::spec(&EverythingTool);
    assert_eq!(spec.modes, Mode::ALL);
    assert_eq!(spec.permissions, toolsmith::PermissionSet::all());
    assert!(spec.requires_approval);
    assert_eq!(
        spec.annotations,
        Annotations::new().destructive(true).open_world(true)
    );
    assert_eq!(spec.input_schema["properties"], json!({}));
}

/// Registered with `inventory` (the default).
#[tool]
async fn ping() -> ToolResult<String> {
    Ok("pong".to_owned())
}

/// Also registered, through the trait-layer path instead of the facade.
#[tool(crate = ::tool_core)]
async fn echo(
    /// What to send back.
    text: String,
) -> tool_core::ToolResult<String> {
    Ok(text)
}

#[tokio::test]
async fn inventory_collects_registered_tools_only() {
    // The standard tools linked into this binary register themselves too, as do the other
    // test modules' tools.
    let registry = Registry::from_inventory().unwrap();
    let names: Vec<&str> = registry.iter().map(|e| e.name()).collect();
    assert!(
        names.contains(&"echo") && names.contains(&"ping"),
        "{names:?}"
    );
    // `register = false`: neither `add` nor this module's `grep` (the standard `grep` of
    // tool-std is there; this one is told apart by its alias).
    assert!(!names.contains(&"add"), "register = false: {names:?}");
    assert!(
        registry
            .iter()
            .all(|e| !e.spec().aliases.iter().any(|a| a == "search_files")),
        "register = false: {names:?}"
    );
    let s = session(registry);
    assert_eq!(call(&s, "ping", json!({})).await, json!("pong"));
    assert_eq!(call(&s, "echo", json!({"text": "hi"})).await, json!("hi"));
}

/// A tool written against the trait by hand.
struct Clock;

impl Tool for Clock {
    type Input = NoArgs;
    type Output = String;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("clock", "Tell the time.")
    }
    async fn call(&self, _: &ToolContext, _: NoArgs) -> Result<String, ToolError> {
        Ok("noon".to_owned())
    }
}

#[tokio::test]
async fn hand_written_and_macro_tools_side_by_side() {
    let registry = Registry::builder()
        .register(Clock)
        .register(AddTool)
        .with_inventory()
        .build()
        .unwrap();
    let names: Vec<&str> = registry.iter().map(|e| e.name()).collect();
    // The inventory also holds the standard tools linked in and the other test modules' tools;
    // this module's tools come in name order among them.
    assert!(names.windows(2).all(|w| w[0] < w[1]), "{names:?}");
    let ours: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| ["add", "clock", "echo", "ping"].contains(n))
        .collect();
    assert_eq!(ours, ["add", "clock", "echo", "ping"], "{names:?}");
    let s = session(registry);
    assert_eq!(call(&s, "clock", json!({})).await, json!("noon"));
    assert_eq!(
        call(&s, "add", json!({"a": 1, "b": 1})).await,
        json!({"sum": 2})
    );
    // Registering the same macro tool twice is refused, naming both places.
    let err = Registry::builder()
        .register(AddTool)
        .register(AddTool)
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("add"), "{err}");
}

#[tokio::test]
async fn the_tool_function_is_still_a_function() {
    let ctx = ToolContext::detached("add", Default::default());
    let _ = &ctx;
    assert_eq!(add(1, Some(2), 3).await.unwrap().sum, 7);
    let out = Tool::call(
        &AddTool,
        &ctx,
        serde_json::from_value(json!({"a": 4})).unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(out.sum, 4);
}

/// Read a file.
#[tool(register = false, error_context(path), permissions(read_files))]
async fn open_file(
    /// The file.
    path: String,
    /// The first line.
    #[param(default)]
    line: u32,
) -> ToolResult<String> {
    if path.contains("..") {
        return Err(ToolError::security("no `..` in paths"));
    }
    if path == "taken" {
        return Err(ToolError::user("the path is the tool's own").with_field("path", "own"));
    }
    Ok(format!("{path}:{line}"))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct LookArgs {
    /// What to look for.
    needle: String,
}

/// Look for something.
#[tool(register = false, error_context(neddle))]
async fn look(args: LookArgs) -> ToolResult<String> {
    Ok(args.needle)
}

#[tokio::test]
async fn error_context_echoes_parameters_into_every_error() {
    let registry = Registry::builder().register(OpenFileTool).build().unwrap();
    let spec = registry.get("open_file").unwrap().spec().clone();
    assert_eq!(spec.error_context, ["path"]);
    let s = session(registry);
    // The tool's own error, a validation error, a permission error.
    let out = call(&s, "open_file", json!({"path": "../etc"})).await;
    assert_eq!(out["error_type"], "security_error", "{out}");
    assert_eq!(out["path"], "../etc");
    let out = call(&s, "open_file", json!({"path": "a.rs", "line": -1})).await;
    assert_eq!(out["error_type"], "validation_error", "{out}");
    assert_eq!(out["path"], "a.rs");
    let limited = Runtime::builder(Registry::builder().register(OpenFileTool).build().unwrap())
        .build()
        .session_with(SessionConfig::default().permissions(Default::default()));
    let out = call(&limited, "open_file", json!({"path": "a.rs"})).await;
    assert_eq!(out["error_type"], "permission_error", "{out}");
    assert_eq!(out["path"], "a.rs");
    // A field the tool set itself is kept; a success is left alone.
    let out = call(&s, "open_file", json!({"path": "taken"})).await;
    assert_eq!(out["path"], "own", "{out}");
    assert_eq!(
        call(&s, "open_file", json!({"path": "a.rs"})).await,
        json!("a.rs:0")
    );

    // With one `args` type the macro cannot see the parameters: registration checks them.
    let err = Registry::builder().register(LookTool).build().unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "tool `look`: error_context names `neddle`, which is not a parameter of the tool; \
             its parameters are: needle (registered at {}:{})",
            file!(),
            line!() - 7
        )
    );
}
