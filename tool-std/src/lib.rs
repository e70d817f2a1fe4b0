//! The standard tools of toolsmith, written with its own DSL.
//!
//! Each family lives in a module of its own, one tool per file, with the stores and network
//! code it stands on:
//!
//! - [`web`]: the polymorphic `web` tool (`action`: `search` | `fetch`), its network policy
//!   (http(s) only; private, loopback, link-local, CGNAT, multicast and cloud-metadata
//!   addresses refused after DNS resolution and at every redirect hop), the fetcher with
//!   streaming byte caps, HTML to readable text, and the SearXNG search backend.
//! - [`file`](mod@file): `read_file`, `list_directory`, `create_file`, `update_file`, `append_file`,
//!   `replace_in_file`, `edit_lines`, `delete_file`, `apply_patch` and the hand-written
//!   `list_projects`, all through the workspace policy, with bounded output, atomic writes
//!   and staleness checks.
//! - [`search`]: `grep` (regex), `glob` (file names) and `search` (literal text in paths and
//!   contents), in-process on ripgrep's libraries, with ripgrep's ignore, hidden and binary
//!   rules, deterministic results, early stop and seed 003's summary line.
//! - [`prompt`]: the polymorphic `prompt_manager` tool (`action`: `view` | `update`,
//!   `prompt_type`), the [`prompt::AgentStore`] it reads and writes (in memory, or SQLite as
//!   the command line's default), and the migration of stored tool names to the new ones.
//! - [`shell`]: `bash`, a command run in a workspace directory in a process group of its
//!   own, its output streamed as it runs and capped, ended as a whole on its timeout or a
//!   cancellation, with a refused list of catastrophic commands (a seat belt, not a sandbox).
//! - [`plan`]: `update_plan`, the model's task list in Codex's shape, written whole on every
//!   call (no server state).
//! - [`code`]: the polymorphic `code` tool (`action`: `definition` | `references` | `hover`
//!   | `symbols` | `workspace_symbols` | `diagnostics` | `calls`), answered by language
//!   servers (clangd, pylsp, rust-analyzer, ...) started lazily per root and language in the
//!   sandbox, and the new errors an edit made, carried in the file tools' answers.
//! - [`history`]: stored results read back into the standard outputs, to re-render a
//!   conversation's history with each file shown once.
//! - [`trust`]: what every family's calls go through, in one room: a command line parsed once
//!   ([`trust::command`]), address classes and host patterns ([`trust::net`]), the
//!   operating-system sandbox and the one way a tool starts a program ([`trust::sandbox`]),
//!   and the permission rules on top ([`trust::rules`]). Families never import each other,
//!   only [`workspace`] and this room.
//!
//! Tools register themselves through `inventory` when this crate is linked; a host that wants
//! an explicit list registers them with [`tool_core::Registry::builder`]. Host services
//! (stores, network configuration) reach the tools through [`tool_core::ToolContext::service`].

#![deny(missing_docs)]

pub mod code;
pub mod file;
pub mod history;
mod numbers;
pub mod plan;
pub mod prompt;
pub mod search;
pub mod shell;
#[cfg(feature = "testing")]
pub mod testing;
pub mod trust;

/// The permission rules; their home is [`trust::rules`].
#[doc(no_inline)]
pub use trust::rules;
pub mod web;
pub mod workspace;
