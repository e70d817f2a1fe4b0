//! `replace_in_file` (alias `edit`): find and replace in one file (seed 003).
//!
//! `find` is literal text unless `is_regex`; `replace` is inserted as written unless
//! `is_regex`, where `$1`/`${name}` name capture groups (so a literal `$` never surprises).
//! Without `replace_all`, `find` must match exactly once: more matches are an error listing the
//! line of every match, and nothing is written. No match at all is a success that says "0
//! replacements". `preview_only` returns the unified diff without writing. The file's BOM and
//! CRLF line ends are kept (`find` written with `\n` matches a CRLF file); a file that
//! changed since the model saw it is refused ([`Guard`]) unless `overwrite`. The answer
//! carries the file's version after the call.

use regex::RegexBuilder;
use tool_core::{ToolContext, ToolError, ToolResult};
use tool_macros::tool;

use super::config::FileConfig;
use super::diff::{self, Change};
use super::edit::{self, blocking};
use super::output::FileWritten;
use super::text::{count_lines, line_of, line_starts};
use crate::workspace::{Guard, Workspace};

/// The largest compiled regex (bytes of the automaton).
const REGEX_SIZE_LIMIT: usize = 10 * 1024 * 1024;

/// What to replace: the tool's parameters.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Replace {
    /// The file.
    pub path: String,
    /// The text (or regex) to find.
    pub find: String,
    /// The replacement.
    pub replace: String,
    /// `find` is a regular expression and `replace` may name its groups.
    pub is_regex: bool,
    /// Replace every match; otherwise exactly one must exist.
    pub replace_all: bool,
    /// Only return the diff.
    pub preview_only: bool,
    /// The version the file must have (`read_file`'s `version`), or the workspace's record is
    /// consulted ([`Guard`]).
    pub expected_version: Option<String>,
    /// Skip the "modified since read" check.
    pub overwrite: bool,
}

impl Replace {
    /// A literal, single replacement of `find` by `replace` in `path`.
    pub fn new(
        path: impl Into<String>,
        find: impl Into<String>,
        replace: impl Into<String>,
    ) -> Self {
        Replace {
            path: path.into(),
            find: find.into(),
            replace: replace.into(),
            ..Replace::default()
        }
    }
}

/// Replaces in a file; see the [module documentation](self).
pub fn replace(ws: &Workspace, config: &FileConfig, r: &Replace) -> Result<FileWritten, ToolError> {
    if r.find.is_empty() {
        return Err(ToolError::validation("find is empty; give the text to replace")
            .with_suggestion(r#"Example: replace_in_file(path="src/lib.rs", find="old_name", replace="new_name")"#));
    }
    let guard = Guard::for_call(r.expected_version.as_deref(), r.overwrite || r.preview_only)?;
    let loaded = edit::load(ws, config, &r.path, guard)?;
    let version_now = loaded.stamp.version.to_string();
    let shown = loaded.path.to_string();
    let old = &loaded.file.text;
    let find = loaded.file.normalize_input(&r.find);
    let replacement = loaded.file.normalize_input(&r.replace);

    // Every match, and what it becomes.
    let mut found: Vec<(usize, usize, String)> = Vec::new();
    if r.is_regex {
        let re = RegexBuilder::new(&find)
            .size_limit(REGEX_SIZE_LIMIT)
            .multi_line(true)
            .build()
            .map_err(|e| {
                ToolError::validation(format!("find is not a valid regular expression: {e}"))
                    .with_suggestion("Escape special characters, or pass is_regex: false to match the text literally.")
            })?;
        for caps in re.captures_iter(old) {
            let Some(m) = caps.get(0) else { continue };
            if m.is_empty() {
                continue;
            }
            let mut to = String::new();
            caps.expand(&replacement, &mut to);
            found.push((m.start(), m.end(), to));
        }
    } else {
        for (at, m) in old.match_indices(find.as_str()) {
            found.push((at, at + m.len(), String::new()));
        }
    }
    let line_count = count_lines(old);
    if found.is_empty() {
        return Ok(FileWritten {
            r#type: if r.preview_only {
                "preview"
            } else {
                "replaced"
            },
            message: format!(
                "0 replacements: `find` was not found in `{shown}`; the file is unchanged"
            ),
            path: shown,
            written: false,
            bytes: loaded.info.len,
            line_count,
            version: version_now,
            replacements: Some(0),
            diff: None,
        });
    }
    if found.len() > 1 && !r.replace_all {
        let starts = line_starts(old);
        let lines: Vec<usize> = found.iter().map(|m| line_of(&starts, m.0) + 1).collect();
        let mut listed: Vec<String> = lines
            .iter()
            .take(config.max_reported_matches)
            .map(usize::to_string)
            .collect();
        if lines.len() > config.max_reported_matches {
            listed.push(format!(
                "and {} more",
                lines.len() - config.max_reported_matches
            ));
        }
        return Err(ToolError::user(format!(
            "`find` matches {} times in `{shown}` (lines {}); replace_all is false, so nothing was changed",
            found.len(),
            listed.join(", ")
        ))
        .with_field(
            "match_lines",
            lines.into_iter().take(config.max_reported_matches).collect::<Vec<_>>(),
        )
        .with_suggestion(
            "Include more surrounding lines in `find` so it matches exactly once, or pass replace_all: true to replace every match.",
        ));
    }

    let mut text = String::with_capacity(old.len());
    let mut changes = Vec::with_capacity(found.len());
    let mut last = 0;
    for (start, end, to) in &found {
        text.push_str(&old[last..*start]);
        let new_start = text.len();
        text.push_str(if r.is_regex { to } else { &replacement });
        changes.push(Change {
            old: (*start, *end),
            new: (new_start, text.len()),
        });
        last = *end;
    }
    text.push_str(&old[last..]);
    let (diff, _) = diff::unified(&shown, old, &text, &changes, config.max_diff_chars);
    let n = found.len();
    let new_lines = count_lines(&text);
    if r.preview_only {
        return Ok(FileWritten {
            r#type: "preview",
            message: format!("Preview: {n} replacement(s) in `{shown}`; nothing was written"),
            path: shown,
            written: false,
            bytes: loaded.file.encode(&text).len() as u64,
            line_count: new_lines,
            version: version_now,
            replacements: Some(n),
            diff: Some(diff),
        });
    }
    let bytes = loaded.file.encode(&text);
    let (outcome, version) = edit::commit(ws, &loaded, &bytes)?;
    Ok(FileWritten {
        r#type: "replaced",
        message: format!("Replaced {n} occurrence(s) in `{shown}` (now {new_lines} lines)"),
        path: shown,
        written: true,
        bytes: outcome.bytes,
        line_count: new_lines,
        version: version.to_string(),
        replacements: Some(n),
        diff: Some(diff),
    })
}

/// Find and replace text in a file.
#[tool(
    name = "replace_in_file",
    description = "Find and replace text in a file. Without replace_all, find must match exactly once (an error lists every match). No match is 0 replacements.",
    category = "file_writing",
    toolsets(file),
    permissions(write_files),
    requires_approval,
    destructive,
    aliases(edit)
)]
#[allow(clippy::too_many_arguments)]
pub async fn replace_in_file(
    ctx: &ToolContext,
    /// File (`project:path` for another project).
    path: String,
    /// Literal text, or a regex if is_regex.
    find: String,
    /// The replacement text.
    replace: String,
    /// find is a regex; replace may use $1.
    #[param(default)]
    is_regex: bool,
    /// Else find must match exactly once.
    #[param(default)]
    replace_all: bool,
    /// Return the diff, write nothing.
    #[param(default)]
    preview_only: bool,
    /// From read_file or your last edit; refused if the file changed since.
    expected_version: Option<String>,
    /// Skip the changed-since-read check.
    #[param(default)]
    overwrite: bool,
) -> ToolResult<FileWritten> {
    let ws = ctx.require_service::<Workspace>()?;
    let config = FileConfig::of(ctx);
    let r = Replace {
        path,
        find,
        replace,
        is_regex,
        replace_all,
        preview_only,
        expected_version,
        overwrite,
    };
    blocking(move || self::replace(&ws, &config, &r)).await
}
