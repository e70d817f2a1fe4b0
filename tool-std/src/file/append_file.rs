//! `append_file`: add content at the end of an existing file.
//!
//! The content is written in the file's own line ends (CRLF stays CRLF) after its last byte;
//! the whole file is then replaced atomically, so a reader never sees half an append. A file
//! that changed since the model saw it is refused ([`Guard`]) unless `overwrite: true`.

use tool_core::{ToolContext, ToolError, ToolResult};
use tool_macros::tool;

use super::config::FileConfig;
use super::diff::{self, Change};
use super::edit::{self, blocking, check_content};
use super::output::FileWritten;
use super::text::count_lines;
use crate::workspace::{Guard, Workspace};

/// Appends to a file; see the [module documentation](self).
pub fn append(
    ws: &Workspace,
    config: &FileConfig,
    path: &str,
    content: &str,
    guard: Guard,
) -> Result<FileWritten, ToolError> {
    check_content(config, content)?;
    let loaded = edit::load(ws, config, path, guard)?;
    let old = &loaded.file.text;
    let added = loaded.file.normalize_input(content);
    let mut text = String::with_capacity(old.len() + added.len());
    text.push_str(old);
    text.push_str(&added);
    let bytes = loaded.file.encode(&text);
    let (outcome, version) = edit::commit(ws, &loaded, &bytes)?;
    let shown = loaded.path.to_string();
    let change = Change {
        old: (old.len(), old.len()),
        new: (old.len(), text.len()),
    };
    let (diff, _) = diff::unified(&shown, old, &text, &[change], config.max_diff_chars);
    let lines = count_lines(&text);
    Ok(FileWritten {
        diagnostics: Vec::new(),
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
        version: version.to_string(),
        replacements: None,
        diff: Some(diff),
    })
}

/// Append content to the end of an existing file.
#[tool(
    name = "append_file",
    description = "Append content to the end of an existing file (in its own line endings).",
    category = "file_writing",
    toolsets(file),
    permissions(write_files),
    requires_approval,
    destructive
)]
pub async fn append_file(
    ctx: &ToolContext,
    /// File (`project:path` for another project).
    #[param(alias = "file_path")]
    path: String,
    /// Text to add (start with a newline if the file lacks a final one).
    content: String,
    /// From read_file or your last edit; refused if the file changed since.
    expected_version: Option<String>,
    /// Skip the changed-since-read check.
    #[param(default)]
    overwrite: bool,
) -> ToolResult<FileWritten> {
    let ws = ctx.require_service::<Workspace>()?;
    let config = FileConfig::of(ctx);
    let guard = Guard::for_call(expected_version.as_deref(), overwrite)?;
    blocking(move || append(&ws, &config, &path, &content, guard)).await
}
