//! `grep`: search file contents with a regular expression, ripgrep's way (seed 003's
//! Decision 1 parameters, plus ripgrep's filters, context, multiline and paging).

use tool_core::{ToolContext, ToolResult};
use tool_macros::{Action, tool};

use super::config::SearchConfig;
use super::engine::{self, Output, Request};
use super::matcher::{Case, Pattern};
use super::results::GrepResults;
use super::walk::WalkOptions;
use crate::workspace::Workspace;

/// What `grep` shows.
#[derive(Action, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputMode {
    /// Matching lines with line numbers (and context lines when asked).
    Content,
    /// Only the paths of files with matches.
    FilesWithMatches,
    /// The paths of files with matches and how many matches each has.
    Count,
}

impl OutputMode {
    fn output(self) -> Output {
        match self {
            OutputMode::Content => Output::Content,
            OutputMode::FilesWithMatches => Output::FilesWithMatches,
            OutputMode::Count => Output::Count,
        }
    }
}

/// Search file contents with a regular expression.
#[tool(
    name = "grep",
    description_file = "src/search/grep.md",
    category = "search",
    toolsets(search),
    permissions(read_files),
    read_only
)]
#[allow(clippy::too_many_arguments)]
pub async fn grep(
    ctx: &ToolContext,
    /// e.g. "fn\\s+main", "TODO|FIXME".
    pattern: String,
    /// File or directory (`project:path` for another project).
    #[param(default = ".")]
    path: String,
    #[param(default, negated_alias = "-i")] case_sensitive: bool,
    #[param(default)] smart_case: bool,
    /// e.g. "tsx", "rust".
    #[param(alias = "type")]
    file_type: Option<String>,
    /// e.g. ["*.rs", "!**/tests/**"].
    glob: Option<Vec<String>>,
    /// Default 50, at most 1000.
    #[param(alias = "head_limit")]
    max_results: Option<usize>,
    /// Default content.
    output_mode: Option<OutputMode>,
    #[param(alias = "-B")] before: Option<usize>,
    #[param(alias = "-A")] after: Option<usize>,
    #[param(alias = "-C")] context: Option<usize>,
    /// `.` still stops at line ends; use [\s\S].
    #[param(default)]
    multiline: bool,
    /// Results to skip.
    #[param(default)]
    offset: usize,
    #[param(default)] include_hidden: bool,
    #[param(default = true)] respect_gitignore: bool,
) -> ToolResult<GrepResults> {
    let ws = ctx.require_service::<Workspace>()?;
    let config = SearchConfig::of(ctx);
    let req = Request {
        kind: "grep_results",
        path,
        pattern: Pattern {
            text: pattern,
            literal: false,
            case: Case::of(case_sensitive, smart_case),
            multiline,
        },
        walk: WalkOptions {
            include_hidden,
            respect_ignore: respect_gitignore,
            file_type,
            globs: glob.unwrap_or_default(),
            ..WalkOptions::default()
        },
        output: output_mode.unwrap_or(OutputMode::Content).output(),
        max_results,
        offset,
        before: before.or(context).unwrap_or(0),
        after: after.or(context).unwrap_or(0),
        path_matches: false,
    };
    engine::run_for(ctx, ws, config, req).await
}
