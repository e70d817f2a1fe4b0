//! The `code` tool: one polymorphic tool whose actions ask the language server of a file's
//! language and root.
//!
//! ```text
//! code(action, path, line?, symbol?, column?, query?, language?, direction?, max_results?, offset?)
//!   definition | references | hover | calls: path, line, and symbol (the name on that line)
//!                                           or column (1-based)
//!   symbols | diagnostics:                   path (one file)
//!   workspace_symbols:                       query, path (a source file of the project)
//! ```

use tool_core::{ToolContext, ToolResult};
use tool_macros::{Action, tool};

use super::actions::{At, Page};
use super::answer::CodeResults;
use super::call::Call;

/// The `code` tool; see the [module documentation](super).
#[derive(Debug, Clone, Copy, Default)]
pub struct CodeTool;

/// Which calls `calls` lists.
#[derive(Action, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallDirection {
    /// The functions that call it.
    Incoming,
    /// The functions it calls.
    Outgoing,
}

/// Code intelligence from language servers.
#[tool(
    name = "code",
    description_file = "src/code/code.md",
    category = "search",
    toolsets(code),
    // Language servers run project code (build scripts, macros), confined like bash's
    // commands.
    permissions(read_files, execute_commands),
    read_only,
    timeout = "90s"
)]
impl CodeTool {
    /// Where it is defined.
    #[action]
    async fn definition(
        &self,
        ctx: &ToolContext,
        /// File (`project:path` for another project).
        path: String,
        /// 1-based.
        line: usize,
        /// The name on that line, or give column.
        symbol: Option<String>,
        /// 1-based, in characters.
        column: Option<usize>,
    ) -> ToolResult<CodeResults> {
        let at = At {
            path,
            line,
            symbol,
            column,
        };
        Call::new(ctx)?.definition(at).await
    }

    /// Its uses.
    #[action]
    #[allow(clippy::too_many_arguments)]
    async fn references(
        &self,
        ctx: &ToolContext,
        path: String,
        line: usize,
        symbol: Option<String>,
        column: Option<usize>,
        /// Default 50.
        max_results: Option<usize>,
        /// Results to skip.
        #[param(default)]
        offset: usize,
    ) -> ToolResult<CodeResults> {
        let at = At {
            path,
            line,
            symbol,
            column,
        };
        Call::new(ctx)?
            .references(
                at,
                Page {
                    max_results,
                    offset,
                },
            )
            .await
    }

    /// Its type and docs.
    #[action]
    async fn hover(
        &self,
        ctx: &ToolContext,
        path: String,
        line: usize,
        symbol: Option<String>,
        column: Option<usize>,
    ) -> ToolResult<CodeResults> {
        let at = At {
            path,
            line,
            symbol,
            column,
        };
        Call::new(ctx)?.hover(at).await
    }

    /// The file's symbols.
    #[action]
    async fn symbols(
        &self,
        ctx: &ToolContext,
        path: String,
        max_results: Option<usize>,
        #[param(default)] offset: usize,
    ) -> ToolResult<CodeResults> {
        Call::new(ctx)?
            .symbols(
                path,
                Page {
                    max_results,
                    offset,
                },
            )
            .await
    }

    /// The project's symbols matching query.
    #[action]
    async fn workspace_symbols(
        &self,
        ctx: &ToolContext,
        /// A name or part of one.
        query: String,
        /// A source file of the project (or a directory, with language).
        #[param(default = ".")]
        path: String,
        /// With a directory path: c, python, rust...
        language: Option<String>,
        max_results: Option<usize>,
        #[param(default)] offset: usize,
    ) -> ToolResult<CodeResults> {
        Call::new(ctx)?
            .workspace_symbols(
                query,
                path,
                language,
                Page {
                    max_results,
                    offset,
                },
            )
            .await
    }

    /// The file's errors and warnings.
    #[action]
    async fn diagnostics(
        &self,
        ctx: &ToolContext,
        path: String,
        max_results: Option<usize>,
        #[param(default)] offset: usize,
    ) -> ToolResult<CodeResults> {
        Call::new(ctx)?
            .diagnostics(
                path,
                Page {
                    max_results,
                    offset,
                },
            )
            .await
    }

    /// Its callers (incoming) or callees (outgoing).
    #[action]
    #[allow(clippy::too_many_arguments)]
    async fn calls(
        &self,
        ctx: &ToolContext,
        path: String,
        line: usize,
        symbol: Option<String>,
        column: Option<usize>,
        /// Default incoming.
        direction: Option<CallDirection>,
        max_results: Option<usize>,
        #[param(default)] offset: usize,
    ) -> ToolResult<CodeResults> {
        let at = At {
            path,
            line,
            symbol,
            column,
        };
        let outgoing = direction == Some(CallDirection::Outgoing);
        Call::new(ctx)?
            .calls(
                at,
                outgoing,
                Page {
                    max_results,
                    offset,
                },
            )
            .await
    }
}
