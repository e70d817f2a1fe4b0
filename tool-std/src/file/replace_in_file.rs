//! `replace_in_file` (alias `edit`): find and replace in one file (seed 003).
//!
//! `find` is literal text unless `is_regex`; `replace` is inserted as written unless
//! `is_regex`, where `$1`/`${1}`/`${name}` name capture groups (so a literal `$` never
//! surprises): `$1TA` is group 1 followed by `TA`, `$$` a literal `$`, and a group `find` does
//! not capture is refused, naming the ones it does.
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
        let replacement = group_references(&replacement, &re)?;
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
            diagnostics: Vec::new(),
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
            diagnostics: Vec::new(),
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
        diagnostics: Vec::new(),
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

/// `replace` with every group reference written out in full (`${1}`, `${name}`), as the regex
/// crate reads it unambiguously: `$1TA` is group 1 followed by `TA` (the crate alone would read
/// a group named `1TA`, which does not exist, and drop the text). A reference to a group that
/// `re` does not have is refused, naming the groups it has.
fn group_references(replace: &str, re: &regex::Regex) -> Result<String, ToolError> {
    let names: Vec<&str> = re.capture_names().flatten().collect();
    let groups = re.captures_len();
    let refuse = |given: &str| {
        let mut have: Vec<String> = (1..groups).map(|n| format!("${n}")).collect();
        have.extend(names.iter().map(|n| format!("${{{n}}}")));
        let have = if have.is_empty() {
            "find has no groups".to_owned()
        } else {
            format!("find's groups are {}", have.join(", "))
        };
        ToolError::validation(format!(
            "replace refers to `{given}`, which find does not capture; {have}"
        ))
        .with_suggestion(
            "Name a group find has; write `${1}` before letters or digits that follow it, and \
             `$$` for a literal `$`.",
        )
    };
    let known = |name: &str| match name.parse::<usize>() {
        Ok(n) => n < groups,
        Err(_) => names.contains(&name),
    };
    let mut out = String::with_capacity(replace.len() + 8);
    let mut rest = replace;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push_str("$$");
            rest = tail;
        } else if let Some(inner) = after.strip_prefix('{') {
            let Some(close) = inner.find('}') else {
                return Err(refuse(&rest[at..]));
            };
            let name = &inner[..close];
            if !known(name) {
                return Err(refuse(&format!("${{{name}}}")));
            }
            out.push_str(&format!("${{{name}}}"));
            rest = &inner[close + 1..];
        } else {
            let word = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let (word, tail) = after.split_at(word);
            if word.is_empty() {
                // A `$` followed by nothing a group name is made of stands for itself.
                out.push_str("$$");
                rest = after;
                continue;
            }
            let digits = word
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(word.len());
            let (name, literal) = if digits > 0 {
                word.split_at(digits)
            } else {
                (word, "")
            };
            if !known(name) {
                return Err(refuse(&format!("${name}")));
            }
            out.push_str(&format!("${{{name}}}{literal}"));
            rest = tail;
        }
    }
    out.push_str(rest);
    Ok(out)
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
    #[param(alias = "file_path")]
    path: String,
    /// Literal text, or a regex if is_regex.
    #[param(alias = "old_string")]
    find: String,
    /// The replacement text.
    #[param(alias = "new_string")]
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
    let done = {
        let ws = ws.clone();
        blocking(move || self::replace(&ws, &config, &r)).await?
    };
    Ok(done.with_diagnostics(&ws).await)
}

#[cfg(test)]
mod tests {
    use super::group_references;

    fn refs(replace: &str, find: &str) -> Result<String, String> {
        let re = regex::Regex::new(find).expect("regex");
        group_references(replace, &re).map_err(|e| e.message().to_owned())
    }

    #[test]
    fn group_references_are_written_out_and_unknown_ones_refused() {
        assert_eq!(refs("B$1TA", "b(e)ta").as_deref(), Ok("B${1}TA"));
        assert_eq!(refs("$1$2", "(a)(b)").as_deref(), Ok("${1}${2}"));
        assert_eq!(refs("${1}x", "(a)").as_deref(), Ok("${1}x"));
        assert_eq!(refs("<$w>", "(?P<w>a)").as_deref(), Ok("<${w}>"));
        assert_eq!(refs("$$1 costs $", "(a)").as_deref(), Ok("$$1 costs $$"));
        assert_eq!(refs("$0!", "a").as_deref(), Ok("${0}!"));
        assert_eq!(refs("a-$-b", "a").as_deref(), Ok("a-$$-b"));
        for (replace, find, named) in [
            ("$2", "(a)", "$2"),
            ("$name", "(a)", "$name"),
            ("${other}", "(?P<w>a)", "${other}"),
            ("$3x", "(a)(b)", "$3"),
        ] {
            let e = refs(replace, find).unwrap_err();
            assert!(e.contains(&format!("`{named}`")), "{replace}: {e}");
            assert!(e.contains("groups are") || e.contains("no groups"), "{e}");
        }
        assert!(refs("${open", "(a)").is_err());
    }

    #[test]
    fn a_reference_followed_by_letters_keeps_them() {
        let re = regex::Regex::new("b(e)ta").expect("regex");
        let expanded = group_references("B$1TA", &re).expect("refs");
        assert_eq!(
            re.replace_all("alpha beta", expanded.as_str()),
            "alpha BeTA"
        );
    }
}
