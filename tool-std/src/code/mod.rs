//! Code intelligence: the `code` tool answers definitions, references, hover, symbols,
//! workspace symbols, diagnostics and calls from real language servers (clangd, pylsp,
//! rust-analyzer, ...), spoken to over the Language Server Protocol.
//!
//! | action | takes | answers |
//! |---|---|---|
//! | `definition` | `path`, `line`, `symbol` or `column` | where the symbol is defined |
//! | `references` | the same | every use, the declaration included |
//! | `hover` | the same | its type and documentation |
//! | `calls` | the same, `direction` (`incoming` default, `outgoing`) | its callers, or its callees |
//! | `symbols` | `path` | the file's symbols, nested names joined with `.` |
//! | `workspace_symbols` | `query`, `path` (a source file of the project) | matching symbols of the project |
//! | `diagnostics` | `path` | the file's errors and warnings |
//!
//! Every answer is `code_results`: `path:line: text` lines as `grep` writes them (the
//! source line, a symbol's kind and name, a diagnostic), paged with `max_results` and
//! `offset` and ending with a summary line; the structured form holds the same lines as
//! items (`path`, `line`, `column`, `text`). The tool is in toolset `code`, needs
//! `read_files` and `execute_commands` (servers run project code), and needs no approval.
//!
//! # Design decisions
//!
//! - **Positions as models give them.** A 1-based `line` and the `symbol`'s name on it
//!   (models count columns badly; the name's first whole-word occurrence is taken), or a
//!   1-based `column` in characters. The protocol's UTF-16 offsets never reach the model. A
//!   name not on the line is answered with the line's text.
//! - **Servers per root and language, started lazily.** The first call on a file starts the
//!   server of its language ([`CodeConfig::servers`], `[code.servers]` in `toolsmith.toml`,
//!   else the first of [`DEFAULT_SERVERS`] on the `PATH`, or the one of them already running)
//!   for the file's root, initialized with that root; languages served by the same command
//!   share one server per root. A server is kept while used, shut down after
//!   [`CodeConfig::idle_timeout`] unused, the least recently used one when more than
//!   [`CodeConfig::max_servers`] would run, and all of them by
//!   [`LanguageServers::shutdown_all`] when the host stops.
//! - **Confined like `bash`.** Servers run project code (build scripts, macros, plugins), so
//!   each starts through the sandbox's one entry ([`crate::trust::sandbox`]) under the
//!   roots' rules ([`CodeConfig::sandbox`]): writes only beneath the read-write roots and a
//!   private temporary directory, the deny list unreadable, no network. It runs in a process
//!   group of its own, listed with the guardian, ended whole when it stops.
//! - **A server that stops is restarted once.** A call whose server crashed (or was killed)
//!   starts it again, gives it the file again and asks again, saying so in its `note`; if it
//!   stops once more, the call is answered with an error saying why (its exit and the end of
//!   its stderr).
//! - **Within the call's time.** Every request is bounded by the tool's deadline and
//!   cancelled with the call (`$/cancelRequest` at the server).
//! - **Answers follow the files.** Before each request the file is read through the
//!   workspace and given to the server (`didOpen`, or `didChange` when it changed by any
//!   means since), so answers are of the file as it is.
//! - **Edits see their errors.** After `replace_in_file`, `edit_lines` or `apply_patch`
//!   changes a file whose language has a running server, the edit's answer carries the
//!   file's new errors (at most [`CodeConfig::max_edit_diagnostics`]) when the server
//!   publishes them within [`CodeConfig::edit_wait`] ([`DEFAULT_EDIT_WAIT`], 3 s), or says
//!   that it reports none. No server is started by an edit. The workspace carries the
//!   message between the two families ([`EditWatcher`](crate::workspace::EditWatcher)).
//! - **Bounded.** Servers per table, answer lines, characters per line and per hover, the
//!   size of one message from a server (checked before async-lsp allocates it), files given
//!   to a server, documents kept open, diagnostics kept per file: each has a limit in
//!   [`CodeConfig`] or this module.
//! - **Outside the roots.** A place in a file outside every root (a system header) is shown
//!   by its host path without text; a place in a file the host hides is left out and counted.
//! - **Workspace symbols without `workspace/symbol`.** For a server that lacks it (pylsp),
//!   the project's files of the language (at most [`MAX_FALLBACK_FILES`]) are asked for their
//!   symbols one by one, and the names holding the query (any case) are answered, saying so.
//! - **Push diagnostics.** `diagnostics` waits (at most 10 s) for what the server publishes
//!   for the file (`textDocument/publishDiagnostics`, which clangd, pylsp, rust-analyzer and
//!   gopls send); servers that only answer pull requests are not asked.
//!
//! The LSP's types are `lsp-types`'; the client's conversation (framing, ids, the server's
//! own requests) is async-lsp's.
//!
//! # Example
//!
//! ```no_run
//! use std::sync::Arc;
//! use tool_core::{Registry, Runtime, ToolCall};
//! use tool_std::workspace::Workspace;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let ws = Workspace::builder().root("app", "/path/to/project").build()?;
//! let registry = Registry::builder().with_inventory().build()?;
//! let session = Runtime::builder(registry).service(Arc::new(ws)).build().session();
//! let out = session
//!     .call(ToolCall::new(
//!         "1",
//!         "code",
//!         r#"{"action": "definition", "path": "src/main.c", "line": 12, "symbol": "parse"}"#,
//!     ))
//!     .await
//!     .to_json();
//! assert_eq!(out["type"], "code_results");
//! # Ok(())
//! # }
//! ```

mod actions;
mod answer;
mod call;
mod capabilities;
pub mod config;
mod edits;
mod project;
mod server;
mod servers;
mod source;
pub mod tool;
mod transport;

pub use answer::{CodeItem, CodeResults};
pub use config::{CodeConfig, DEFAULT_EDIT_WAIT, DEFAULT_SERVER_ENV, DEFAULT_SERVERS, LANGUAGES};
pub use project::MAX_FALLBACK_FILES;
pub use servers::{LanguageServers, RunningServer};
pub use tool::{CallDirection, CodeTool};
