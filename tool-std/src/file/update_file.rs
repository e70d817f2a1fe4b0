//! `update_file`: replace the whole content of an existing file.
//!
//! The file must exist. Its byte-order mark and CRLF line ends are kept; a file that changed
//! since the model saw it is refused ("modified since read", see [`Guard`]) unless
//! `overwrite: true`. The answer carries the file's new version, and a diff when the file is
//! small enough to diff whole.

use tool_core::{ToolContext, ToolError, ToolResult};
use tool_macros::tool;

use super::config::FileConfig;
use super::diff;
use super::edit::{self, blocking, check_content};
use super::output::FileWritten;
use super::text::{BOM, count_lines};
use crate::workspace::{Guard, Workspace};

/// Files up to this size (old and new together) get a diff in the answer.
const DIFF_UP_TO: usize = 2 * 1024 * 1024;

/// Replaces a file's content; see the [module documentation](self).
pub fn update(
    ws: &Workspace,
    config: &FileConfig,
    path: &str,
    content: &str,
    guard: Guard,
) -> Result<FileWritten, ToolError> {
    check_content(config, content)?;
    let loaded = edit::load(ws, config, path, guard)?;
    let content = content.strip_prefix(BOM).unwrap_or(content);
    let text = loaded.file.normalize_input(content);
    let bytes = loaded.file.encode(&text);
    let (outcome, version) = edit::commit(ws, &loaded, &bytes)?;
    let shown = loaded.path.to_string();
    let diff = (loaded.file.text.len() + text.len() <= DIFF_UP_TO)
        .then(|| diff::whole(&shown, &loaded.file.text, &text, config.max_diff_chars).0);
    let lines = count_lines(&text);
    Ok(FileWritten {
        diagnostics: Vec::new(),
        r#type: "file_updated",
        message: format!("Updated `{shown}` ({} bytes, {lines} lines)", outcome.bytes),
        path: shown,
        written: true,
        bytes: outcome.bytes,
        line_count: lines,
        version: version.to_string(),
        replacements: None,
        diff,
    })
}

/// Replace the whole content of an existing file.
#[tool(
    name = "update_file",
    description = "Replace the whole content of an existing file, keeping its line endings and byte-order mark.",
    category = "file_writing",
    toolsets(file),
    permissions(write_files),
    requires_approval,
    destructive
)]
pub async fn update_file(
    ctx: &ToolContext,
    /// File (`project:path` for another project).
    #[param(alias = "file_path")]
    path: String,
    /// The whole new content.
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
    blocking(move || update(&ws, &config, &path, &content, guard)).await
}
