//! `create_file` (aliases `write`, `write_file`): write a new file, or replace one with
//! `overwrite: true`.
//!
//! Fails if the file exists unless `overwrite`; missing parent directories are created when
//! the call says `create_parents: true`. Replacing an existing file keeps its byte-order mark
//! and its CRLF line ends (and its permission bits: the write is atomic, through
//! [`Workspace::write_file`]). The answer carries the file's version.

use tool_core::{ToolContext, ToolError, ToolResult};
use tool_macros::tool;

use super::config::FileConfig;
use super::edit::{self, blocking, check_content};
use super::output::FileWritten;
use super::text::{BOM, TextFile, count_lines};
use crate::workspace::{Guard, Workspace, WriteOptions};

/// Creates (or with `overwrite`, replaces) a file; see the [module documentation](self).
pub fn create(
    ws: &Workspace,
    config: &FileConfig,
    path: &str,
    content: &str,
    overwrite: bool,
    create_parents: bool,
) -> Result<FileWritten, ToolError> {
    check_content(config, content)?;
    let p = edit::writable_path(ws, path)?;
    let content = content.strip_prefix(BOM).unwrap_or(content);
    let existing = if overwrite {
        match ws.metadata(&p)? {
            Some(_) => Some(edit::load(ws, config, path, Guard::Off)?),
            None => None,
        }
    } else {
        None
    };
    let style = existing
        .as_ref()
        .map_or_else(|| TextFile::plain(String::new()), |l| l.file.clone());
    let text = style.normalize_input(content);
    let bytes = style.encode(&text);
    let options = if overwrite {
        WriteOptions::any()
    } else {
        WriteOptions::create_new()
    };
    let (outcome, version) = edit::write(ws, &p, &bytes, options.create_parents(create_parents))?;
    let lines = count_lines(&text);
    let (kind, verb) = if outcome.created {
        ("file_created", "Created")
    } else {
        ("file_updated", "Replaced")
    };
    Ok(FileWritten {
        diagnostics: Vec::new(),
        r#type: kind,
        path: p.to_string(),
        written: true,
        bytes: outcome.bytes,
        line_count: lines,
        version: version.to_string(),
        replacements: None,
        diff: None,
        message: format!("{verb} `{p}` ({} bytes, {lines} lines)", outcome.bytes),
    })
}

/// Create a new file with the given content.
#[tool(
    name = "create_file",
    description = "Create a file. Fails if it exists unless overwrite is true.",
    category = "file_writing",
    toolsets(file),
    permissions(write_files),
    requires_approval,
    destructive,
    aliases(write, write_file)
)]
pub async fn create_file(
    ctx: &ToolContext,
    /// File (`project:path` for another project).
    #[param(alias = "file_path")]
    path: String,
    /// The whole content of the file.
    content: String,
    /// Replace the file if it exists.
    #[param(default)]
    overwrite: bool,
    /// Create missing parent directories.
    #[param(default)]
    create_parents: bool,
) -> ToolResult<FileWritten> {
    let ws = ctx.require_service::<Workspace>()?;
    let config = FileConfig::of(ctx);
    blocking(move || create(&ws, &config, &path, &content, overwrite, create_parents)).await
}
