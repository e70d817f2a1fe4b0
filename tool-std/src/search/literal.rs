//! The `search` tool (this module is `literal`): seed 003's "existing search tool,
//! enhanced": literal text (no regex syntax) looked for in file paths and file contents in one
//! call, on the same engine as `grep`.

use tool_core::{ToolContext, ToolResult};
use tool_macros::tool;

use super::config::SearchConfig;
use super::engine::{self, Output, Request};
use super::matcher::{Case, Pattern};
use super::results::GrepResults;
use super::walk::WalkOptions;
use crate::workspace::Workspace;

/// Find literal text in file paths and contents.
#[tool(
    name = "search",
    description = "Find literal text in file paths and contents in one call. Case-insensitive by default. Skips .gitignored, hidden, binary and large files. max_results (default 50) and offset page through the lines. Use grep for regular expressions.",
    category = "search",
    toolsets(search),
    permissions(read_files),
    read_only
)]
#[allow(clippy::too_many_arguments)]
pub async fn search(
    ctx: &ToolContext,
    /// Taken literally: "foo(bar" finds exactly that.
    query: String,
    /// File or directory (`project:path` for another project).
    #[param(default = ".")]
    path: String,
    /// Match case exactly.
    #[param(default)]
    case_sensitive: bool,
    /// An extension ("rs") or ripgrep type ("rust").
    file_type: Option<String>,
    /// Globs relative to path; "!" excludes.
    glob: Option<Vec<String>>,
    /// Default 50, at most 1000.
    max_results: Option<usize>,
    /// Matching lines to skip.
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
    engine::run_for(ctx, ws, config, req).await
}
