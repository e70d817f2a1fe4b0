//! `update_file`: replace the whole content of an existing file.
//!
//! The file must exist. Its byte-order mark and CRLF line ends are kept; a file changed on disk
//! since this session read it is refused ("modified since read") unless `overwrite: true`.
//! The answer carries a diff when the file is small enough to diff whole.

use tool_core::{ToolContext, ToolError, ToolResult};
use tool_macros::tool;

use super::config::FileConfig;
use super::diff;
use super::edit::{self, blocking, check_content};
use super::output::FileWritten;
use super::text::{BOM, count_lines};
use crate::workspace::Workspace;

/// Files up to this size (old and new together) get a diff in the answer.
const DIFF_UP_TO: usize = 2 * 1024 * 1024;

/// Replaces a file's content; see the [module documentation](self).
pub fn update(
    ctx: &ToolContext,
    ws: &Workspace,
    config: &FileConfig,
    path: &str,
    content: &str,
    overwrite: bool,
) -> Result<FileWritten, ToolError> {
    check_content(config, content)?;
    let loaded = edit::load(ctx, ws, config, path, overwrite)?;
    let content = content.strip_prefix(BOM).unwrap_or(content);
    let text = loaded.file.normalize_input(content);
    let bytes = loaded.file.encode(&text);
    let outcome = edit::commit(ctx, ws, &loaded, &bytes)?;
    let shown = loaded.path.to_string();
    let diff = (loaded.file.text.len() + text.len() <= DIFF_UP_TO)
        .then(|| diff::whole(&shown, &loaded.file.text, &text, config.max_diff_chars).0);
    let lines = count_lines(&text);
    Ok(FileWritten {
        r#type: "file_updated",
        message: format!("Updated `{shown}` ({} bytes, {lines} lines)", outcome.bytes),
        path: shown,
        written: true,
        bytes: outcome.bytes,
        line_count: lines,
        replacements: None,
        diff,
    })
}

/// Replace the whole content of an existing file.
#[tool(
    name = "update_file",
    description = "Replace the whole content of an existing file. Keeps its line endings and byte-order mark. Fails if the file changed on disk since you read it, unless overwrite is true.",
    category = "file_writing",
    toolsets(file),
    permissions(write_files),
    requires_approval,
    destructive
)]
pub async fn update_file(
    ctx: &ToolContext,
    /// The file to update, relative to the first project or `project:path`.
    path: String,
    /// The new content of the whole file.
    content: String,
    /// Write even if the file changed on disk since this session read it.
    #[param(default)]
    overwrite: bool,
) -> ToolResult<FileWritten> {
    let ws = ctx.require_service::<Workspace>()?;
    let config = FileConfig::of(ctx);
    let ctx = ctx.clone();
    blocking(move || update(&ctx, &ws, &config, &path, &content, overwrite)).await
}
