//! `append_file`: add content at the end of an existing file.
//!
//! The content is written in the file's own line ends (CRLF stays CRLF) after its last byte;
//! the whole file is then replaced atomically, so a reader never sees half an append. A file
//! changed on disk since this session read it is refused unless `overwrite: true`.

use tool_core::{ToolContext, ToolError, ToolResult};
use tool_macros::tool;

use super::config::FileConfig;
use super::diff::{self, Change};
use super::edit::{self, blocking, check_content};
use super::output::FileWritten;
use super::text::count_lines;
use crate::workspace::Workspace;

/// Appends to a file; see the [module documentation](self).
pub fn append(
    ctx: &ToolContext,
    ws: &Workspace,
    config: &FileConfig,
    path: &str,
    content: &str,
    overwrite: bool,
) -> Result<FileWritten, ToolError> {
    check_content(config, content)?;
    let loaded = edit::load(ctx, ws, config, path, overwrite)?;
    let old = &loaded.file.text;
    let added = loaded.file.normalize_input(content);
    let mut text = String::with_capacity(old.len() + added.len());
    text.push_str(old);
    text.push_str(&added);
    let bytes = loaded.file.encode(&text);
    let outcome = edit::commit(ctx, ws, &loaded, &bytes)?;
    let shown = loaded.path.to_string();
    let change = Change {
        old: (old.len(), old.len()),
        new: (old.len(), text.len()),
    };
    let (diff, _) = diff::unified(&shown, old, &text, &[change], config.max_diff_chars);
    let lines = count_lines(&text);
    Ok(FileWritten {
        r#type: "file_appended",
        message: format!(
            "Appended {} bytes to `{shown}` (now {} bytes, {lines} lines)",
            content.len(),
            outcome.bytes
        ),
        path: shown,
        written: true,
        bytes: outcome.bytes,
        line_count: lines,
        replacements: None,
        diff: Some(diff),
    })
}

/// Append content to the end of an existing file.
#[tool(
    name = "append_file",
    description = "Append content to the end of an existing file (in the file's own line endings). Fails if the file changed on disk since you read it, unless overwrite is true.",
    category = "file_writing",
    toolsets(file),
    permissions(write_files),
    requires_approval,
    destructive
)]
pub async fn append_file(
    ctx: &ToolContext,
    /// The file to append to, relative to the first project or `project:path`.
    path: String,
    /// The text to add at the end (include a leading newline if the file lacks a final one).
    content: String,
    /// Append even if the file changed on disk since this session read it.
    #[param(default)]
    overwrite: bool,
) -> ToolResult<FileWritten> {
    let ws = ctx.require_service::<Workspace>()?;
    let config = FileConfig::of(ctx);
    let ctx = ctx.clone();
    blocking(move || append(&ctx, &ws, &config, &path, &content, overwrite)).await
}
