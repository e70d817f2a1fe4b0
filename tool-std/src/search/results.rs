//! What `grep` and `search` answer: [`GrepResults`], its summary line and its text for the
//! model.
//!
//! The structured form (MCP's `structuredContent`, which some hosts send the model instead
//! of the text) holds the lines as the text shows them and the numbers of the summary, not
//! its sentence. Measured on the token benchmark (`cargo bench -p tool-std --bench tokens`,
//! `o200k_base` tokens, structured / text):
//!
//! | call | with the summary sentence | without (as answered) |
//! |---|---:|---:|
//! | `grep "fn "`, 50 matching lines | 1.08x | 1.01x |
//! | `grep Format::Gemini`, context 1 (9 matches, 27 lines) | 1.12x | 1.09x |
//! | `grep impl`, `files_with_matches` | 1.08x | 1.04x |
//! | `grep "fn "`, `count` | 1.07x | 0.92x |
//! | `search schema` (paths and lines) | 1.08x | 1.01x |
//!
//! What stays above 1x is JSON's own cost: each line as an array element costs about one
//! token more than a line of text (where the newline merges with the line's last
//! characters), a file's path as a key about two more, and quotes in code are escaped. A
//! file's lines as one string cost more still (`\n` escapes), so they stay a list. The
//! `--` between groups that are not adjacent is in the text only, and only with context
//! lines (as ripgrep prints it); the line numbers part the groups in the list.

use serde::Serialize;
use tool_core::{Render, ResourcesTracker};

use std::collections::BTreeMap;

/// A line around a match (the engine's; the answer carries it as an `N-text` line).
#[derive(Debug, Clone)]
pub(crate) struct ContextLine {
    /// Its number (1-based).
    pub(crate) line: u64,
    /// Its text (cut when long).
    pub(crate) text: String,
}

/// One match as the engine finds it (the answer carries it as an `N:text` line).
#[derive(Debug, Clone)]
pub(crate) struct GrepMatch {
    /// The file, as the model writes paths.
    pub(crate) path: String,
    /// The line number (1-based; a multiline match's first line).
    pub(crate) line: u64,
    /// The matching line (lines, for a multiline match), cut around the match when longer
    /// than the configured width, with `…` where text was left out.
    pub(crate) text: String,
    /// Lines before it (`before` / `context`).
    pub(crate) before: Vec<ContextLine>,
    /// Lines after it (`after` / `context`).
    pub(crate) after: Vec<ContextLine>,
}

/// Files a search left out.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Skipped {
    /// Binary files (a NUL byte).
    pub binary: usize,
    /// Files larger than the size limit.
    pub too_large: usize,
    /// Files that could not be read.
    pub unreadable: usize,
}

impl Skipped {
    fn is_empty(&self) -> bool {
        self.binary == 0 && self.too_large == 0 && self.unreadable == 0
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The answer of `grep` (`type: "grep_results"`) and `search` (`type:
/// "file_search_results"`, apart from the web tool's `search_results`).
///
/// One of `matches` (`content` mode), `files` (`files_with_matches`) or `counts` (`count`)
/// holds the results, in ripgrep's compact line forms; the numbers stand for the text's
/// summary line.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct GrepResults {
    /// `grep_results` or `file_search_results`.
    pub r#type: &'static str,
    /// `content` mode: each file's lines, by path: `N:text` for a matching line (a multiline
    /// match's lines in one entry), `N-text` for a context line. Long lines are cut around
    /// the match with `…`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub matches: BTreeMap<String, Vec<String>>,
    /// `files_with_matches` mode: the files shown, sorted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// `count` mode: matches per file, for the files shown.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub counts: BTreeMap<String, u64>,
    /// Files whose path contains the text (`search` only), sorted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_matches: Option<Vec<String>>,
    /// Matches found (matching lines; in multiline mode, matches). Absent in
    /// `files_with_matches` mode, which stops reading a file at its first match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_matches: Option<u64>,
    /// Files with matches.
    pub total_files: u64,
    /// Whether the totals are exact; `false` when the search stopped early (it had what it
    /// returns, or the deadline came), so they are lower bounds.
    pub exact: bool,
    /// The offset of the first result shown (absent for 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub offset: usize,
    /// The offset that shows the next results, when there are more.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// Files left out.
    #[serde(skip_serializing_if = "Skipped::is_empty")]
    pub skipped: Skipped,
    /// Why the search stopped before the end (the call's deadline, or a cancellation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
    /// What else cut the results short (the output size limit, the walk's file cap).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// What was found and shown, and how to see more: "Found 523 matches in 41 files,
    /// showing first 50. ...". The text's last line; not part of the structured form, whose
    /// fields say the same.
    #[serde(skip)]
    pub summary: String,
    /// Whether context lines were asked for: the text parts groups with `--` then, as
    /// ripgrep does.
    #[serde(skip)]
    pub(crate) context: bool,
}

/// The engine's matches as each file's lines (`N:text`, `N-text`): context shared by two
/// matches is shown once, and after-context stops where the file's next match begins.
pub(crate) fn grouped(matches: &[GrepMatch]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut last: Option<(&str, u64)> = None;
    for (k, m) in matches.iter().enumerate() {
        let lines = out.entry(m.path.clone()).or_default();
        let mut end = match last {
            Some((p, end)) if p == m.path => end,
            _ => 0,
        };
        for c in &m.before {
            if c.line > end {
                lines.push(format!("{}-{}", c.line, c.text));
            }
        }
        lines.push(format!("{}:{}", m.line, m.text));
        end = end.max(m.line + m.text.matches('\n').count() as u64);
        let next = matches
            .get(k + 1)
            .filter(|n| n.path == m.path)
            .map_or(u64::MAX, |n| n.line);
        for c in &m.after {
            if c.line < next && c.line > end {
                lines.push(format!("{}-{}", c.line, c.text));
                end = c.line;
            }
        }
        last = Some((&m.path, end));
    }
    out
}

/// Said (in the summary and the `note`) when the output size limit cut the list.
pub(crate) const BUDGET_CUT: &str = "The output size limit cut the list short.";

/// Said (in the summary and the `note`) when the walk stopped at its file cap.
pub(crate) fn walk_capped(max_files: usize) -> String {
    format!("The walk stopped after {max_files} files; search a subdirectory.")
}

/// The number an `N:text` or `N-text` line starts with.
fn line_number(line: &str) -> u64 {
    let digits = line
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(line.len());
    line[..digits].parse().unwrap_or(0)
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The pieces of a summary.
pub(crate) struct SummaryOf<'a> {
    pub(crate) what: &'a str,
    pub(crate) mode: &'static str,
    pub(crate) total_matches: Option<u64>,
    pub(crate) total_files: u64,
    pub(crate) exact: bool,
    pub(crate) offset: usize,
    pub(crate) shown: usize,
    pub(crate) next_offset: Option<usize>,
    pub(crate) skipped: &'a Skipped,
    pub(crate) max_file_bytes: u64,
    pub(crate) interrupted: bool,
    pub(crate) budget_cut: bool,
}

/// Seed 003's summary line: "Found 523 matches in 41 files, showing first 50." and how to see
/// more.
pub(crate) fn summary(s: &SummaryOf<'_>) -> String {
    let at_least = if s.exact { "" } else { "at least " };
    let mut out = if s.total_files == 0 {
        if s.exact {
            format!("No matches for {}.", s.what)
        } else {
            format!("No matches for {} in the files searched.", s.what)
        }
    } else {
        let found = match (s.mode, s.total_matches) {
            ("files_with_matches", _) | (_, None) => {
                format!(
                    "Found {at_least}{}",
                    plural(s.total_files, "file with matches", "files with matches")
                )
            }
            (_, Some(m)) => format!(
                "Found {at_least}{} in {}",
                plural(m, "match", "matches"),
                plural(s.total_files, "file", "files")
            ),
        };
        let unit = if s.mode == "content" { "" } else { " files" };
        let all = s.offset == 0 && s.next_offset.is_none();
        let showing = if all {
            String::new()
        } else if s.shown == 0 {
            format!(", none shown at offset {}", s.offset)
        } else if s.offset == 0 {
            format!(", showing first {}{unit}", s.shown)
        } else {
            format!(", showing{unit} {}-{}", s.offset + 1, s.offset + s.shown)
        };
        format!("{found}{showing}.")
    };
    if !s.exact && !s.interrupted && s.total_files > 0 {
        out.push_str(
            " The search stopped once it had the results shown, so the totals are lower bounds.",
        );
    }
    if s.budget_cut {
        out.push(' ');
        out.push_str(BUDGET_CUT);
    }
    if let Some(next) = s.next_offset {
        out.push_str(&format!(
            " To see more, call again with offset: {next}, or narrow the search with a more specific path, glob or file_type."
        ));
    }
    let mut skips = Vec::new();
    if s.skipped.binary > 0 {
        skips.push(plural(
            s.skipped.binary as u64,
            "binary file",
            "binary files",
        ));
    }
    if s.skipped.too_large > 0 {
        skips.push(format!(
            "{} over {}",
            plural(s.skipped.too_large as u64, "file", "files"),
            human_bytes(s.max_file_bytes)
        ));
    }
    if s.skipped.unreadable > 0 {
        skips.push(plural(
            s.skipped.unreadable as u64,
            "unreadable file",
            "unreadable files",
        ));
    }
    if !skips.is_empty() {
        out.push_str(&format!(" Skipped {}.", skips.join(" and ")));
    }
    out
}

/// `1 MB`, `512 KB`, `100 bytes`.
pub(crate) fn human_bytes(n: u64) -> String {
    const MB: u64 = 1024 * 1024;
    if n >= MB && n.is_multiple_of(MB) {
        format!("{} MB", n / MB)
    } else if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KB", n / 1024)
    } else {
        format!("{n} bytes")
    }
}

impl Render for GrepResults {
    fn status(&self) -> Option<String> {
        Some(
            self.summary
                .split(". ")
                .next()
                .unwrap_or(&self.summary)
                .trim_end_matches('.')
                .to_owned(),
        )
    }

    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        let mut out = String::new();
        if let Some(paths) = &self.path_matches
            && !paths.is_empty()
        {
            out.push_str("Paths containing the text:\n");
            for p in paths {
                out.push_str(p);
                out.push('\n');
            }
            out.push('\n');
        }
        for (k, (path, lines)) in self.matches.iter().enumerate() {
            if k > 0 {
                out.push('\n');
            }
            out.push_str(path);
            out.push('\n');
            let mut end: Option<u64> = None;
            for line in lines {
                let first = line_number(line);
                if self.context && end.is_some_and(|end| first > end + 1) {
                    out.push_str("--\n");
                }
                end = Some(first + line.matches('\n').count() as u64);
                out.push_str(line);
                out.push('\n');
            }
        }
        for f in &self.files {
            out.push_str(f);
            out.push('\n');
        }
        for (path, count) in &self.counts {
            out.push_str(&format!("{path}:{count}\n"));
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&self.summary);
        if let Some(why) = &self.interrupted {
            out.push(' ');
            out.push_str(why);
        }
        out.push('\n');
        Some(out)
    }
}
