//! The file tools: read, list, create, update, append, edit and delete files inside the
//! workspace's roots.
//!
//! Every tool here goes through the [`Workspace`](crate::workspace::Workspace) service: a path
//! a model gives is resolved beneath a root's directory handle, never checked as a string and
//! then opened, so `..`, absolute paths elsewhere, links leading out, sibling prefixes, NUL
//! bytes, protected paths and read-only roots are refused with a `security_error` naming the
//! roots, and a directory swapped for a link while a call runs cannot carry it outside. Only
//! regular files are read or written; a FIFO or a device is answered with an error at once.
//!
//! | tool (aliases) | does | category |
//! |---|---|---|
//! | `list_projects` | the roots: name, path, read-only (written by hand against [`tool_core::Tool`]) | search |
//! | `read_file` (`read`, `read_files`) | files numbered like `cat -n`, `path:10-20` ranges or `offset`/`limit` | file_reading |
//! | `list_directory` (`ls`, `list_files`) | entries with type and size, `depth`, `limit`, `.gitignore` | search |
//! | `create_file` (`write`, `write_file`) | a new file; `overwrite` to replace one | file_writing |
//! | `update_file` | the whole content of an existing file | file_writing |
//! | `append_file` | content at the end of a file | file_writing |
//! | `replace_in_file` (`edit`) | find and replace, literal or regex, once or all, with a preview | file_writing |
//! | `edit_lines` | insert, delete or replace lines by number, checked against `expected` | file_writing |
//! | `delete_file` (`delete_files`) | files, or a directory with `recursive` | file_management |
//! | `apply_patch` | a multi-file patch (add, update, delete, move), all or nothing | file_writing |
//!
//! The categories are seed 003's prompt groups (Search & Discovery, File Reading, File
//! Writing, File Management); every tool is also in the toolset `file`.
//!
//! # Design decisions
//!
//! - **Bounded output.** A read returns at most 2,000 lines of 2,000 characters per file and
//!   [`FileConfig::max_output_chars`] characters per call; a listing at most `limit` entries; a
//!   diff at most [`FileConfig::max_diff_chars`]. Whatever is left out is stated with the call
//!   that gets it. The limits are a host service, [`FileConfig`].
//! - **Reads stream.** A line range is read with a buffered reader that skips to the range
//!   and stops after it: a range deep in a 100 MB file never loads the file. (The file's
//!   version is still the hash of all of it, so files larger than
//!   [`FileConfig::max_edit_bytes`], which no edit loads, get none.)
//! - **Writes are atomic and careful.** Every write goes through
//!   [`Workspace::write_file`](crate::workspace::Workspace::write_file) (temporary file, fsync,
//!   rename; permission bits kept). Edits keep a file's byte-order mark, CRLF line ends and
//!   missing final newline, and write only if the file is still what they loaded.
//! - **Versions, not sessions.** `read_file` gives every file a `version` (12 hex digits of the
//!   SHA-256 of its content); every tool that changes a file takes it back as
//!   `expected_version` (`expected_versions: [{"path", "version"}]` for `delete_file` and
//!   `apply_patch`) and answers with the new one. A file whose content no longer has it is
//!   refused with "modified since read", saying what changed. A call without a version is
//!   checked against the workspace's record of reads and writes, shared by every session of
//!   the process (see [`Guard`](crate::workspace::Guard)); `overwrite: true` skips both.
//! - **Edits are precise.** `replace_in_file` replaces literal text unless `is_regex`, refuses an
//!   ambiguous `find` listing the line of every match, and reports "0 replacements" as a
//!   success; `edit_lines` checks `expected` text so stale line numbers fail safely. Both
//!   answer with a unified diff computed over the changed region only.
//! - **Every writing tool** is `destructive`, needs `write_files` (`delete_files` for
//!   `delete_file`) and goes through the approval gate.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use tool_core::{ApproveAll, Registry, Runtime, ToolCall};
//! use tool_std::workspace::Workspace;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("notes.txt"), "one\ntwo\nthree\n")?;
//! let ws = Workspace::builder().root("app", dir.path()).build()?;
//! let registry = Registry::builder().with_inventory().build()?;
//! let session = Runtime::builder(registry)
//!     .service(Arc::new(ws))
//!     .approver(ApproveAll)
//!     .build()
//!     .session();
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let read = session
//!     .call(ToolCall::new("1", "read_file", r#"{"paths": ["notes.txt:2-3"]}"#))
//!     .await
//!     .to_json();
//! // The lines as they are, from start_line on (the model's text numbers them like `cat -n`).
//! assert_eq!(read["files"][0]["content"], "two\nthree\n");
//! assert_eq!(read["files"][0]["start_line"], 2);
//!
//! let edit = session
//!     .call(ToolCall::new(
//!         "2",
//!         "replace_in_file",
//!         r#"{"path": "notes.txt", "find": "two", "replace": "2"}"#,
//!     ))
//!     .await
//!     .to_json();
//! assert_eq!(edit["replacements"], 1);
//!
//! let escape = session
//!     .call(ToolCall::new("3", "read_file", r#"{"paths": ["../secret"]}"#))
//!     .await
//!     .to_json();
//! assert_eq!(escape["error_type"], "security_error");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! assert_eq!(std::fs::read_to_string(dir.path().join("notes.txt"))?, "one\n2\nthree\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod append_file;
pub mod apply_patch;
pub mod config;
pub mod create_file;
pub mod delete_file;
mod diff;
mod edit;
pub mod edit_lines;
mod expected;
pub mod list_directory;
pub mod list_projects;
mod media;
mod output;
pub mod read_file;
mod reader;
pub mod replace_in_file;
mod text;
pub mod update_file;

pub use config::FileConfig;
pub use delete_file::FilesDeleted;
pub use edit_lines::{LineEdit, LineOperation};
pub use expected::ExpectedVersion;
pub use list_directory::DirListing;
pub use list_projects::{ListProjects, Project, ProjectList};
pub use output::FileWritten;
pub use read_file::{FailedRead, FileContent, FilesRead, ImageInfo, ReadOptions};
pub use replace_in_file::Replace;
