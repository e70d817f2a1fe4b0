//! `grep`: search file contents with a regular expression, ripgrep's way (seed 003's
//! Decision 1 parameters, plus ripgrep's filters, context, multiline and paging).

use tool_core::{ToolContext, ToolResult};
use tool_macros::{Action, tool};

use super::blocking;
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
    /// The regular expression (Rust regex syntax, as ripgrep), e.g. "fn\\s+main" or "TODO|FIXME".
    pattern: String,
    /// The file or directory to search, relative to the first project or `project:path` (default: the first project's root).
    #[param(default = ".")]
    path: String,
    /// Match letter case exactly (default false: case-insensitive).
    #[param(default)]
    case_sensitive: bool,
    /// Case-insensitive unless the pattern contains an upper-case letter (overrides case_sensitive).
    #[param(default)]
    smart_case: bool,
    /// Only files of this type: an extension ("rs", "tsx") or a ripgrep type name ("rust", "py", "js").
    file_type: Option<String>,
    /// Include/exclude globs relative to path, ripgrep -g style: ["*.rs"], ["src/**", "!**/generated/**"].
    glob: Option<Vec<String>>,
    /// Most results to return: matches in content mode, files otherwise (default 50, at most 1000).
    max_results: Option<usize>,
    /// content (default), files_with_matches or count.
    output_mode: Option<OutputMode>,
    /// Lines to show before each match.
    before: Option<usize>,
    /// Lines to show after each match.
    after: Option<usize>,
    /// Lines to show before and after each match (before/after override it).
    context: Option<usize>,
    /// Let matches span lines.
    #[param(default)]
    multiline: bool,
    /// Results to skip, to page on (the summary gives the next offset).
    #[param(default)]
    offset: usize,
    /// Search hidden files and directories too.
    #[param(default)]
    include_hidden: bool,
    /// Leave out what .gitignore/.ignore files ignore (default true).
    #[param(default = true)]
    respect_gitignore: bool,
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
    let ctx = ctx.clone();
    let deadline = ctx.deadline();
    blocking(move || {
        let report = super::progress(&ctx);
        engine::run(&ws, &config, req, &|| ctx.is_cancelled(), &report, deadline)
    })
    .await
}
