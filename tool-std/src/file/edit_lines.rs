//! `edit_lines`: insert, delete or replace lines by number (seed 003).
//!
//! `insert` puts `content` after line `start_line` (0: at the top); `delete` and `replace` act
//! on lines `start_line` to `end_line` (default: `start_line`), 1-based and inclusive. The
//! optional `expected` is the current text of the target lines (for `insert`, of line
//! `start_line`): if the file no longer has it there, nothing is written, so an edit made with
//! stale line numbers fails safely; a file that changed since the model saw it is refused
//! ([`Guard`]) unless `overwrite`. The answer has the diff, the new line count (seed 003's
//! open question 4) and the file's new version. A file's BOM, CRLF line ends and missing
//! final newline are kept.

use tool_core::{Choice, ToolContext, ToolError, ToolResult};
use tool_macros::{Action, tool};

use super::config::FileConfig;
use super::diff::{self, Change};
use super::edit::{self, blocking};
use super::output::FileWritten;
use super::text::{count_lines, cut_chars};
use crate::workspace::{Guard, Workspace};

/// What `edit_lines` does.
#[derive(Action, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineOperation {
    /// Insert `content` after `start_line` (0 for the top of the file).
    Insert,
    /// Delete lines `start_line` to `end_line`.
    Delete,
    /// Replace lines `start_line` to `end_line` with `content`.
    Replace,
}

/// A line edit: the tool's parameters.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LineEdit {
    /// The file.
    pub path: String,
    /// What to do.
    pub operation: LineOperation,
    /// First line (1-based; for insert, the line after which to insert, 0 for the top).
    pub start_line: usize,
    /// Last line, inclusive (delete, replace); default `start_line`.
    pub end_line: Option<usize>,
    /// New lines (insert, replace).
    pub content: Option<String>,
    /// The current text of the target lines, checked before writing.
    pub expected: Option<String>,
    /// The version the whole file must have (`read_file`'s `version`), or the workspace's
    /// record is consulted ([`Guard`]).
    pub expected_version: Option<String>,
    /// Skip the "modified since read" check.
    pub overwrite: bool,
}

impl LineEdit {
    /// An edit of `path` without `end_line`, `content` or `expected`.
    pub fn new(path: impl Into<String>, operation: LineOperation, start_line: usize) -> Self {
        LineEdit {
            path: path.into(),
            operation,
            start_line,
            end_line: None,
            content: None,
            expected: None,
            expected_version: None,
            overwrite: false,
        }
    }
}

/// Text compared for `expected`: `\r\n` as `\n`, trailing whitespace of each line and final
/// newlines ignored.
fn comparable(s: &str) -> String {
    s.replace("\r\n", "\n")
        .trim_end_matches('\n')
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Edits lines; see the [module documentation](self).
pub fn edit_lines_in(
    ws: &Workspace,
    config: &FileConfig,
    e: &LineEdit,
) -> Result<FileWritten, ToolError> {
    let guard = Guard::for_call(e.expected_version.as_deref(), e.overwrite)?;
    let loaded = edit::load(ws, config, &e.path, guard)?;
    let shown = loaded.path.to_string();
    let old = &loaded.file.text;
    let lines: Vec<&str> = old.split_inclusive('\n').collect();
    let n = lines.len();
    let start = e.start_line;
    let (from, to) = match e.operation {
        LineOperation::Insert => {
            if start > n {
                return Err(ToolError::user(format!(
                    "start_line {start} is past the end of `{shown}`, which has {n} lines; insert after a line from 0 (the top) to {n}"
                )));
            }
            (start, start)
        }
        LineOperation::Delete | LineOperation::Replace => {
            let end = e.end_line.unwrap_or(start);
            if start == 0 || end < start || end > n {
                return Err(ToolError::user(format!(
                    "lines {start}-{end} are not in `{shown}`, which has {n} lines; start_line is 1 to {n} and end_line from start_line to {n}"
                )));
            }
            (start - 1, end)
        }
    };
    let content = match (e.operation, e.content.as_deref()) {
        (LineOperation::Delete, _) => String::new(),
        (_, None) => {
            return Err(ToolError::validation(format!(
                "content is required for operation `{}`",
                e.operation.as_str()
            )));
        }
        (_, Some(c)) => {
            let mut c = loaded.file.normalize_input(c);
            if !c.is_empty() && !c.ends_with('\n') {
                c.push('\n');
            }
            c
        }
    };
    if let Some(expected) = &e.expected {
        let (a, b) = match e.operation {
            LineOperation::Insert => (start.max(1) - 1, start),
            _ => (from, to),
        };
        let actual: String = lines[a..b].concat();
        if comparable(expected) != comparable(&actual) {
            let (shown_actual, _) = cut_chars(&actual, 2_000);
            return Err(ToolError::user(format!(
                "expected text does not match line(s) {}-{b} of `{shown}` (the file changed, or the line numbers are stale); nothing was changed",
                a + 1
            ))
            .with_field("actual", shown_actual.to_owned())
            .with_suggestion(format!(
                "Read the lines again with read_file(paths=[\"{shown}:{}-{}\"]) and retry with their current numbers and text.",
                (a + 1).saturating_sub(3).max(1),
                b + 3
            )));
        }
    }
    let mut prefix: String = lines[..from].concat();
    let prefix_len = prefix.len();
    if !prefix.is_empty() && !prefix.ends_with('\n') && !content.is_empty() {
        prefix.push('\n');
    }
    let suffix: String = lines[to..].concat();
    let mut text = String::with_capacity(prefix.len() + content.len() + suffix.len());
    text.push_str(&prefix);
    text.push_str(&content);
    text.push_str(&suffix);
    if suffix.is_empty() && !old.is_empty() && !old.ends_with('\n') && text.ends_with('\n') {
        text.pop();
    }
    let change = Change {
        old: (prefix_len.saturating_sub(1), old.len() - suffix.len()),
        new: (prefix_len.saturating_sub(1), text.len() - suffix.len()),
    };
    let (diff, _) = diff::unified(&shown, old, &text, &[change], config.max_diff_chars);
    let bytes = loaded.file.encode(&text);
    let (outcome, version) = edit::commit(ws, &loaded, &bytes)?;
    let new_lines = count_lines(&text);
    let added = count_lines(&content);
    let what = match e.operation {
        LineOperation::Insert => format!("Inserted {added} line(s) after line {start}"),
        LineOperation::Delete => format!("Deleted lines {}-{to}", from + 1),
        LineOperation::Replace => format!("Replaced lines {}-{to} with {added} line(s)", from + 1),
    };
    Ok(FileWritten {
        diagnostics: Vec::new(),
        r#type: "lines_edited",
        message: format!("{what} of `{shown}`; it now has {new_lines} lines"),
        path: shown,
        written: true,
        bytes: outcome.bytes,
        line_count: new_lines,
        version: version.to_string(),
        replacements: None,
        diff: Some(diff),
    })
}

/// Insert, delete or replace lines of a file by line number.
#[tool(
    name = "edit_lines",
    description = "Insert, delete or replace lines by number. Pass expected (the current text of those lines) so stale line numbers fail instead of editing the wrong lines. Returns the diff.",
    category = "file_writing",
    toolsets(file),
    permissions(write_files),
    requires_approval,
    destructive
)]
#[allow(clippy::too_many_arguments)]
pub async fn edit_lines(
    ctx: &ToolContext,
    /// File (`project:path` for another project).
    #[param(alias = "file_path")]
    path: String,
    /// insert, delete or replace.
    operation: LineOperation,
    /// 1-based; insert goes after it (0: top).
    start_line: usize,
    /// Inclusive (delete, replace); default start_line.
    end_line: Option<usize>,
    /// New lines (insert, replace).
    content: Option<String>,
    /// Current text of those lines (insert: of start_line); the edit fails if it differs.
    expected: Option<String>,
    /// From read_file or your last edit; refused if the file changed since.
    expected_version: Option<String>,
    /// Skip the changed-since-read check.
    #[param(default)]
    overwrite: bool,
) -> ToolResult<FileWritten> {
    let ws = ctx.require_service::<Workspace>()?;
    let config = FileConfig::of(ctx);
    let e = LineEdit {
        path,
        operation,
        start_line,
        end_line,
        content,
        expected,
        expected_version,
        overwrite,
    };
    let done = {
        let ws = ws.clone();
        blocking(move || edit_lines_in(&ws, &config, &e)).await?
    };
    Ok(done.with_diagnostics(&ws).await)
}
