//! The `search` tool (this module is `literal`): seed 003's "existing search tool,
//! enhanced": literal text (no regex syntax) looked for in file paths and file contents in one
//! call, on the same engine as `grep`.

use tool_core::{ToolContext, ToolResult};
use tool_macros::tool;

use super::blocking;
use super::config::SearchConfig;
use super::engine::{self, Output, Request};
use super::matcher::{Case, Pattern};
use super::results::GrepResults;
use super::walk::WalkOptions;
use crate::workspace::Workspace;

/// Find literal text in file paths and contents.
#[tool(
    name = "search",
    description = "Find literal text (no regex syntax needed) in file paths and file contents in one call. Case-insensitive unless case_sensitive is true. Respects .gitignore, skips hidden, binary and large files. Returns the files whose path contains the text and the matching lines (sorted by path then line, max_results each, default 50; offset pages through the lines), with a summary of how many there are. Use grep for regular expressions.",
    category = "search",
    toolsets(search),
    permissions(read_files),
    read_only
)]
#[allow(clippy::too_many_arguments)]
pub async fn search(
    ctx: &ToolContext,
    /// The text to find, taken literally ("foo(bar" finds exactly that).
    query: String,
    /// The file or directory to search, relative to the first project or `project:path` (default: the first project's root).
    #[param(default = ".")]
    path: String,
    /// Match letter case exactly (default false).
    #[param(default)]
    case_sensitive: bool,
    /// Only files of this type: an extension ("rs") or a ripgrep type name ("rust", "py").
    file_type: Option<String>,
    /// Include/exclude globs relative to path, ripgrep -g style: ["*.md", "!docs/**"].
    glob: Option<Vec<String>>,
    /// Most paths and most matching lines to return (default 50, at most 1000).
    max_results: Option<usize>,
    /// Matching lines to skip, to page on.
    #[param(default)]
    offset: usize,
) -> ToolResult<GrepResults> {
    let ws = ctx.require_service::<Workspace>()?;
    let config = SearchConfig::of(ctx);
    let req = Request {
        kind: "file_search_results",
        path,
        pattern: Pattern {
            text: query,
            literal: true,
            case: Case::of(case_sensitive, false),
            multiline: false,
        },
        walk: WalkOptions {
            include_hidden: false,
            respect_ignore: true,
            file_type,
            globs: glob.unwrap_or_default(),
            ..WalkOptions::default()
        },
        output: Output::Content,
        max_results,
        offset,
        before: 0,
        after: 0,
        path_matches: true,
    };
    let ctx = ctx.clone();
    let deadline = ctx.deadline();
    blocking(move || {
        let report = super::progress(&ctx);
        engine::run(&ws, &config, req, &|| ctx.is_cancelled(), &report, deadline)
    })
    .await
}
