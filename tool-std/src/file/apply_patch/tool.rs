//! The `apply_patch` tool, declared with `#[tool]` over [`apply`].

use tool_core::{ToolContext, ToolError, ToolResult};
use tool_macros::tool;

use super::commit::commit;
use super::error::parse_error;
use super::parser::parse;
use super::plan::plan;
use super::report::{ChangeKind, PatchApplied};
use crate::file::ExpectedVersion;
use crate::workspace::Workspace;

/// How [`apply`] checks the files a patch updates or deletes: the tool's `overwrite` and
/// `expected_versions`.
///
/// ```
/// use tool_std::file::apply_patch::PatchOptions;
///
/// let options = PatchOptions::new().expected_version("src/cart.py", "3f2a9c1b7d4e");
/// assert_eq!(options.expected_versions[0].path, "src/cart.py");
/// assert!(!options.overwrite);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PatchOptions {
    /// Skip the "modified since read" check: apply even to files that changed since they were
    /// read.
    pub overwrite: bool,
    /// The versions the files must have (each a path the patch updates or deletes); files not
    /// named are checked against the workspace's record
    /// ([`Guard`](crate::workspace::Guard)).
    pub expected_versions: Vec<ExpectedVersion>,
}

impl PatchOptions {
    /// No `overwrite`, no expected versions.
    pub fn new() -> Self {
        PatchOptions::default()
    }

    /// Sets [`PatchOptions::overwrite`].
    pub fn overwrite(mut self, yes: bool) -> Self {
        self.overwrite = yes;
        self
    }

    /// Adds the version `path` must have.
    pub fn expected_version(mut self, path: impl Into<String>, version: impl Into<String>) -> Self {
        self.expected_versions
            .push(ExpectedVersion::new(path, version));
        self
    }
}

/// Applies `patch` to the files of `ws`, all or nothing, as the `apply_patch` tool does
/// (without its approval gate and permission checks, which are the runtime's).
///
/// A file the patch updates or deletes that changed since the model saw it is refused
/// ("modified since read"), unless `options.overwrite`: checked against its version in
/// `options.expected_versions`, else against the workspace's record of reads and writes.
/// Written files are recorded in that record, deleted ones forgotten; the answer gives each
/// file's new version.
///
/// Errors: a `validation_error` for a patch that does not parse or an `expected_versions`
/// entry that names no file the patch updates or deletes; `security_error` for a path outside
/// the writable roots or protected; `not_found`, `user_error` (a hunk that does not match, a
/// file that exists or changed, not text, too large) and `system_error` (a write that failed;
/// what was written is restored first) otherwise.
pub fn apply(
    ws: &Workspace,
    patch: &str,
    options: &PatchOptions,
) -> Result<PatchApplied, ToolError> {
    let parsed = parse(patch).map_err(|e| parse_error(&e))?;
    let planned = plan(ws, &parsed, options.overwrite, &options.expected_versions)?;
    let committed = commit(ws, planned.steps)?;
    for (p, stamp) in &committed.written {
        if let Ok(Some(info)) = ws.metadata(p) {
            ws.record_seen(p, &info, Some(*stamp));
        }
    }
    for p in &committed.removed {
        ws.forget_seen(p);
    }
    Ok(PatchApplied::new(planned.changes))
}

/// Edit files with a patch (see the tool description).
#[tool(
    name = "apply_patch",
    description_file = "src/file/apply_patch/description.md",
    category = "file_writing",
    toolsets(file),
    // A patch may delete files, and the runtime decides permissions before it sees the
    // arguments (per tool or per action, not per call), so both are needed for every call.
    permissions(write_files, delete_files),
    requires_approval,
    destructive,
    timeout = "120s"
)]
pub async fn apply_patch(
    ctx: &ToolContext,
    /// The patch, from `*** Begin Patch` to `*** End Patch`.
    patch: String,
    /// Skip the check that files are unchanged since read.
    #[param(default)]
    overwrite: bool,
    /// read_file versions of changed files; refused if one changed since.
    #[param(default)]
    expected_versions: Vec<ExpectedVersion>,
) -> ToolResult<PatchApplied> {
    let ws = ctx.require_service::<Workspace>()?;
    let options = PatchOptions {
        overwrite,
        expected_versions,
    };
    // File I/O blocks; run it off the async threads. Once started, a patch runs to its end
    // even if the call is cancelled: stopping between two renames is what the commit avoids.
    let applied = {
        let ws = ws.clone();
        tokio::task::spawn_blocking(move || apply(&ws, &patch, &options))
            .await
            .map_err(|e| ToolError::system(format!("apply_patch stopped unexpectedly: {e}")))??
    };
    // What the language servers say of the files the patch left (moved ones at their new
    // path, deleted ones not at all).
    let left: Vec<_> = applied
        .files
        .iter()
        .filter(|f| f.action != ChangeKind::Deleted)
        .filter_map(|f| ws.resolve(f.moved_to.as_deref().unwrap_or(&f.path)).ok())
        .collect();
    let diagnostics = ws.edited(&left).await;
    Ok(applied.with_diagnostics(diagnostics))
}
