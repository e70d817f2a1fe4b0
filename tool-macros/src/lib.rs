//! The DSL of toolsmith: `#[tool]`, `#[derive(Action)]` and `#[action]`.
//!
//! A tool is a typed async function a model may call. These macros are sugar over the trait
//! layer of `tool-core`: everything they generate can be written by hand against its `Tool`
//! trait, and does the same. What they add is the boilerplate — a spec from doc comments and
//! attributes, an input type and its canonical JSON Schema from the parameters, the dispatch
//! of a polymorphic tool, registration — and, above all, **compile-time checks**: every
//! misuse is a compile error on the user's token, worded as the fix, all reported at once.
//!
//! # Design
//!
//! - **parse → validate → expand.** Attributes are parsed into data that keeps the original
//!   syntax nodes (`attr.rs`, `ast.rs`); the cross-cutting rules are one function each
//!   (`check/`), and all of them run before any code is generated; code is generated only
//!   from validated data (`model.rs`, by `expand/`). Errors go to an accumulator, so a
//!   declaration with five mistakes gets five errors.
//! - **On error, the item is still emitted** (without the attributes these macros consume),
//!   with stand-in impls, so the rest of the crate keeps type-checking and the IDE keeps
//!   working.
//! - **Types are checked by the compiler, not by name.** Generated code names the user's
//!   types through small traits of tool-core's hidden support module, spanned at the user's
//!   token, each with a `#[diagnostic::on_unimplemented]` hint: an arguments type without
//!   `JsonSchema` is reported on that type as "`GrepArgs` cannot be a tool's arguments: it
//!   does not implement `JsonSchema`", once.
//! - **Macro and runtime move in lockstep.** That module is named after the version
//!   (`tool_core::__private_0_1_0`) and tool-core pins this crate exactly (`=0.1.0`), so
//!   generated code only ever meets the tool-core release it was generated for (serde's
//!   `__private` with its patch version and exact pin on serde_derive).
//! - **Generated code** uses absolute paths only, puts its helpers in `const _: () = { ... };`,
//!   marks impls `#[automatically_derived]`, never panics at run time and leaves the user's
//!   signatures alone (doc comments on parameters, which Rust does not allow there, are read
//!   and removed).
//! - **The crate path.** Code names `tool-core` through the facade `toolsmith` when the calling
//!   crate depends on it, else through `tool-core` (renamed dependencies are followed); the
//!   `crate = path` key overrides that, as serde's `#[serde(crate = "...")]` does.
//!
//! # The three forms
//!
//! **A function.** `#[tool]` on an `async fn` makes a unit struct named after it — `fn grep`
//! gives `GrepTool`, `fn read_file` gives `ReadFileTool` (PascalCase of the function name plus
//! `Tool`; `tool_type = Name` picks another) — that implements `Tool`. The parameters are:
//!
//! - at most one reference parameter, the call's context: `ctx: &ToolContext` (anywhere);
//! - then either one parameter named `args` (or marked `#[args]`) whose type is the whole
//!   input (it derives `serde::Deserialize` and `schemars::JsonSchema`, or `Action`),
//! - or any number of named parameters, each one property of the input object: its doc
//!   comment is the description, `Option<T>` makes it optional, `#[param(default)]` or
//!   `#[param(default = value)]` gives it a default (shown in the schema),
//!   `#[param(rename = "...")]` another name.
//!
//! The function returns `Result<T, ToolError>` (or `ToolResult<T>`); `T` is the output
//! (`Serialize + JsonSchema + Render`). The tool's name is the function's unless `name` says
//! otherwise; its description is the doc comment unless `description` or `description_file`
//! says otherwise.
//!
//! ```
//! use tool_core::{Registry, Render, Runtime, ToolCall, ToolError, ToolResult};
//! use tool_macros::tool;
//!
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! struct Sum {
//!     sum: i64,
//! }
//! impl Render for Sum {}
//!
//! /// Add two integers.
//! #[tool(category = "math", read_only, register = false)]
//! async fn add(
//!     /// The first number.
//!     a: i64,
//!     /// The second number; 0 when left out.
//!     b: Option<i64>,
//! ) -> ToolResult<Sum> {
//!     a.checked_add(b.unwrap_or(0))
//!         .map(|sum| Sum { sum })
//!         .ok_or_else(|| ToolError::user("the sum overflows a 64-bit integer"))
//! }
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let registry = Registry::builder().register(AddTool).build()?;
//! let spec = registry.get("add").unwrap().spec().clone();
//! assert_eq!(spec.input_schema["required"], serde_json::json!(["a"]));
//! assert_eq!(spec.input_schema["properties"]["a"]["description"], "The first number.");
//!
//! let session = Runtime::builder(registry).build().session();
//! let out = session.call(ToolCall::new("1", "add", r#"{"a": 2, "b": 3}"#)).await;
//! assert_eq!(out.to_json(), serde_json::json!({"sum": 5}));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **An impl.** `#[tool]` on the inherent impl of a type that holds state (a client, a
//! configuration) makes that type the tool. Either one `async fn call(&self, ...)` is the
//! entry point, or each `#[action]` method is an action of a *polymorphic* tool: one tool, one
//! discriminator parameter `action`, each method's parameters that action's (seed 000). The
//! generated input enum carries a flat schema, dispatch is a `match`, each action may return
//! its own output type; `call` beside `#[action]` methods is an error (it would never run).
//! Other methods are left alone. The tool's default name is the type's
//! name in snake_case (`PromptManager` → `prompt_manager`). Registration needs the type to be
//! `Default`, or `constructor = path` naming a `fn() -> Self`.
//!
//! ```
//! use tool_core::{ApproveAll, Registry, Render, Runtime, ToolCall, ToolContext, ToolResult};
//! use tool_macros::{Action, tool};
//!
//! # #[derive(serde::Serialize, schemars::JsonSchema)] struct Shown { value: String }
//! # impl Render for Shown {}
//! /// Which prompt.
//! #[derive(Action, Clone, Copy, Debug)]
//! enum PromptType {
//!     System,
//!     Name,
//! }
//!
//! #[derive(Default)]
//! struct Prompts;
//!
//! /// View or update your prompts and name.
//! #[tool(name = "prompt_manager", permissions(view_prompts), register = false)]
//! impl Prompts {
//!     /// View a prompt.
//!     #[action(read_only)]
//!     async fn view(&self, _ctx: &ToolContext, prompt_type: PromptType) -> ToolResult<Shown> {
//!         Ok(Shown { value: format!("{prompt_type:?}") })
//!     }
//!
//!     /// Replace a prompt.
//!     #[action(requires_approval, permissions(manage_prompts))]
//!     async fn update(
//!         &self,
//!         prompt_type: PromptType,
//!         /// The new text.
//!         content: String,
//!     ) -> ToolResult<Shown> {
//!         Ok(Shown { value: format!("{prompt_type:?} = {content}") })
//!     }
//! }
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let registry = Registry::builder().register(Prompts).build()?;
//! let session = Runtime::builder(registry).approver(ApproveAll).build().session();
//! let bad = session
//!     .call(ToolCall::new("1", "prompt_manager", r#"{"action": "update", "prompt_type": "name"}"#))
//!     .await
//!     .to_json();
//! assert!(bad["error"].as_str().unwrap().contains("content is required for update action"));
//! assert_eq!(bad["allowed_actions"], serde_json::json!(["view", "update"]));
//! assert_eq!(bad["allowed_prompt_types"], serde_json::json!(["system", "name"]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **An enum.** `#[derive(Action)]` on an enum with struct variants makes it an input of
//! actions: each variant an action (snake_case name, `#[action(rename = "...")]` for
//! another), its fields the action's parameters, the discriminator `action` unless
//! `#[action(tag = "...")]` says otherwise (a unit variant is then an action without
//! parameters). A unit-only enum is a closed set of string values instead, like seed 000's
//! `prompt_type`: schema `{"type": "string", "enum": [...]}` in declaration order, so a bad
//! value is answered with `allowed_<field>s`. See [`Action`](derive@Action).
//!
//! # `#[tool(...)]` keys
//!
//! | key | value | meaning |
//! |---|---|---|
//! | `name` | `"grep"` | the tool's name, 1–64 of `[A-Za-z0-9_-]`; default: the function's name, or the type's in snake_case |
//! | `description` | `"..."` | what the tool does, for the model; default: the doc comment (one of the three is required) |
//! | `description_file` | `"docs/grep.md"` | a markdown file embedded at compile time, relative to the crate's `Cargo.toml` |
//! | `modes(..)` | `agent`, `mcp`, `cli` | where the tool is offered; default (key left out): everywhere; `modes()` is an error |
//! | `permissions(..)` | `read_files`, `write_files`, `delete_files`, `execute_commands`, `network`, `view_prompts`, `manage_prompts` | what every call needs |
//! | `requires_approval` | flag | every call goes through the approval gate |
//! | `category` | `"search"` | a grouping for prompts and filters |
//! | `toolsets(..)` | names | the named sets the tool belongs to |
//! | `aliases(..)` | names | old names that still resolve to the tool |
//! | `user_facing` | flag / `= false` | whether a UI shows the tool's activity (default true) |
//! | `suppress_execution_animation` | flag / `= false` | a UI shows calls without a running animation (seed 004; for tools that answer at once) |
//! | `read_only` | flag | the tool changes nothing (not with `destructive` or `requires_approval`) |
//! | `destructive` | flag | the tool may destroy or overwrite data |
//! | `idempotent` | flag | calling again with the same arguments has no further effect |
//! | `open_world` | flag | the tool reaches an open world (the web) |
//! | `timeout` | `"30s"`, `"500ms"`, `"2m"`, `"1h"` | the default deadline of one call |
//! | `error_context(..)` | parameter names | their given values are echoed into every error of the tool — validation, permission and approval errors as well as the tool's own — unless the error already has that field (seed 000's `web` echoes `query_or_url`); each must be a parameter of the tool |
//! | `text_output` | flag | the result is text by nature (a command's output): no output schema, and results carry the text alone, no structured content (MCP's `structuredContent`) |
//! | `defer_loading` | flag | providers with a tool search (Anthropic, OpenAI Responses) load the definition only when a search finds it |
//! | `namespace` | `"files"` | the OpenAI Responses namespace the tool is grouped in, a name like a tool's |
//! | `register` | `= false` | do not submit the tool to `inventory` (register it explicitly) |
//! | `constructor` | `path` | an impl's `fn() -> Self` used for registration instead of `Default` |
//! | `tool_type` | `Ident` | a function's generated struct name instead of `<Name>Tool` |
//! | `crate` | `path` | the path to `tool-core` (`::toolsmith`, `::tool_core`, `my::reexport`) |
//!
//! A flag is written `key` or `key = true|false`. Lists take identifiers or strings.
//!
//! # `#[action(...)]` keys (variant or method)
//!
//! | key | meaning |
//! |---|---|
//! | `rename = "..."` | the action's (or value's) name; default: snake_case of the variant or the method name |
//! | `description = "..."` | the one-line description listed in the discriminator's description; default: the doc comment's first paragraph |
//! | `requires_approval` | calls of this action go through the approval gate |
//! | `permissions(..)` | permissions this action needs on top of the tool's |
//! | `read_only` | this action changes nothing |
//!
//! On an `Action` enum itself: `tag = "op"` (the discriminator), `serialize = false` (no
//! `Serialize` impl, for parameter types that are not `Serialize`), `crate = path`.
//!
//! # `#[param(...)]` keys (field or parameter)
//!
//! | key | meaning |
//! |---|---|
//! | `rename = "..."` | the parameter's name in the schema |
//! | `alias = "..."` (repeatable) | another name a call may give it under, never in the schema (a `#[tool]` function's parameters); a single value under it fills a list parameter with one item |
//! | `negated_alias = "..."` (repeatable) | another name of a `bool` parameter whose value means the opposite (`-i` for `case_sensitive`) |
//! | `default` / `default = value` | optional, with `Default::default()` or `value.into()`; shown as the schema's `default` |
//! | `description = "..."` | the description instead of the doc comment |
//! | `example = value` (repeatable) | an example value (of the parameter's type, or the type inside its `Option`; a string literal for `String` and `PathBuf`): the schema's `examples`, used by the example call in validation errors and by Anthropic's `input_examples` |
//! | `range(min = .., max = ..)` | inclusive bounds of a number parameter, one or both (number literals): the schema's `minimum`/`maximum`, enforced by validation; an example written as a number outside it is a compile error |
//!
//! # Mistakes are compile errors
//!
//! Each rule has a case in the repository's `tests/ui/`. A few:
//!
//! ```compile_fail
//! use tool_core::ToolResult;
//! /// Search file contents.
//! #[tool_macros::tool(nmae = "grep")] // unknown tool attribute `nmae`; did you mean `name`?
//! async fn grep(pattern: String) -> ToolResult<String> { Ok(pattern) }
//! ```
//!
//! ```compile_fail
//! use tool_core::ToolResult;
//! // missing tool description; add a doc comment or `#[tool(description = "...")]`
//! #[tool_macros::tool]
//! async fn grep(pattern: String) -> ToolResult<String> { Ok(pattern) }
//! ```
//!
//! ```compile_fail
//! use tool_core::ToolResult;
//! /// Read a file.
//! #[tool_macros::tool(read_only, destructive)] // a tool cannot be both `read_only` and `destructive`
//! async fn read_file(path: String) -> ToolResult<String> { Ok(path) }
//! ```
//!
//! ```compile_fail
//! use tool_core::ToolResult;
//! /// Search file contents.
//! #[tool_macros::tool(permissions(read_file))] // unknown permission `read_file`; did you mean `read_files`?
//! async fn grep(pattern: String) -> ToolResult<String> { Ok(pattern) }
//! ```
//!
//! ```compile_fail
//! # use tool_core::ToolResult;
//! #[derive(serde::Deserialize)]
//! struct GrepArgs { pattern: String }
//! /// Search file contents.
//! #[tool_macros::tool]
//! async fn grep(args: GrepArgs) -> ToolResult<String> { Ok(args.pattern) }
//! // `GrepArgs` cannot be a tool's arguments: it does not implement `JsonSchema`
//! ```
//!
//! ```compile_fail
//! /// Search file contents.
//! #[tool_macros::tool]
//! fn grep(pattern: String) -> tool_core::ToolResult<String> { Ok(pattern) }
//! // a tool function must be `async`; add `async` before `fn`
//! ```
//!
//! ```compile_fail
//! use tool_core::ToolResult;
//! /// Search the web.
//! #[tool_macros::tool(error_context(query))] // `error_context` names `query`, which is not a parameter of this tool; did you mean `query_or_url`?
//! async fn web(query_or_url: String) -> ToolResult<String> { Ok(query_or_url) }
//! ```

#![deny(missing_docs)]

mod ast;
mod attr;
mod check;
mod constraint;
mod crate_path;
mod ctxt;
mod expand;
mod model;
mod symbol;

use proc_macro::TokenStream;

/// Declares a tool: on an `async fn` (which gets a unit struct `<Name>Tool` implementing
/// `Tool`) or on the inherent `impl` of a type holding state (a single `call` method, or
/// `#[action]` methods making a polymorphic tool).
///
/// Every key is listed in the [crate documentation](crate), with the forms and their rules.
///
/// ```
/// use tool_core::{ToolContext, ToolResult};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct EchoArgs {
///     /// The text to send back.
///     text: String,
/// }
///
/// /// Send the text back.
/// #[tool_macros::tool(name = "echo", modes(agent, mcp), timeout = "5s", register = false)]
/// async fn echo(_ctx: &ToolContext, args: EchoArgs) -> ToolResult<String> {
///     Ok(args.text)
/// }
///
/// let spec = tool_core::DynTool::spec(&EchoTool);
/// assert_eq!(spec.name, "echo");
/// assert_eq!(spec.description, "Send the text back.");
/// assert_eq!(spec.timeout, Some(std::time::Duration::from_secs(5)));
/// ```
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}

/// Derives an enum of actions (struct variants) or an enum of values (unit variants only).
///
/// For an enum of actions it implements `Actions` (the `ActionSet`: names, descriptions,
/// required and optional parameters, permissions, approval and `read_only` per action),
/// `Deserialize` from one flat object (`{"action": "search", "query": "..."}`; an unknown
/// action, a missing parameter, a parameter of another action or an unknown member is an
/// error, never a panic), `JsonSchema` (the canonical flat schema: the discriminator as a string `enum`
/// whose description lists each action, the union of every action's parameters with their
/// doc comments and defaults, the discriminator and the parameters every action requires
/// required at the root) and `Serialize`.
/// A parameter declared by several actions must have one type in all of them.
///
/// For an enum of values it implements `Choice`, `Deserialize`, `Serialize` and `JsonSchema`
/// (`{"type": "string", "enum": [...]}` in declaration order).
///
/// Do not also derive `serde::Deserialize`, `Serialize` or `schemars::JsonSchema`.
///
/// ```
/// use tool_core::{Actions, Choice};
/// use tool_macros::Action;
///
/// /// What the web tool does.
/// #[derive(Action, Debug, PartialEq)]
/// enum WebAction {
///     /// Search the web.
///     Search {
///         /// Search query for 'search' action, or URL for 'fetch' action.
///         query_or_url: String,
///     },
///     /// Fetch a page.
///     Fetch { query_or_url: String },
/// }
///
/// /// Which prompt.
/// #[derive(Action, Debug, PartialEq)]
/// enum PromptType {
///     System,
///     ConversationConsolidation,
/// }
///
/// assert_eq!(WebAction::action_set().names().collect::<Vec<_>>(), ["search", "fetch"]);
/// let call: WebAction = serde_json::from_str(r#"{"action": "fetch", "query_or_url": "https://example.com"}"#)?;
/// assert_eq!(call, WebAction::Fetch { query_or_url: "https://example.com".into() });
/// assert!(serde_json::from_str::<WebAction>(r#"{"action": "crawl"}"#).is_err());
///
/// assert_eq!(PromptType::VALUES, ["system", "conversation_consolidation"]);
/// let schema = tool_core::input_schema_for::<WebAction>();
/// assert_eq!(schema["properties"]["action"]["enum"], serde_json::json!(["search", "fetch"]));
/// assert_eq!(schema["required"], serde_json::json!(["action", "query_or_url"]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// ```compile_fail
/// #[derive(tool_macros::Action)]
/// enum WebAction {
///     Search(String), // tuple variants are not supported; name the parameters
/// }
/// ```
#[proc_macro_derive(Action, attributes(action, param))]
pub fn derive_action(input: TokenStream) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(input) {
        Ok(input) => expand::derive_action(input).into(),
        Err(e) => e.into_compile_error().into(),
    }
}

/// Marks an action method of a `#[tool]` impl. The `#[tool]` macro reads and removes it;
/// anywhere else it is an error saying where it belongs.
///
/// ```compile_fail
/// struct Web;
/// impl Web {
///     #[tool_macros::action] // not expected here; the #[action] attribute belongs on a method of a #[tool] impl
///     async fn search(&self, query: String) -> String { query }
/// }
/// ```
#[proc_macro_attribute]
pub fn action(_args: TokenStream, input: TokenStream) -> TokenStream {
    expand::stray_action(input.into()).into()
}
