//! The `apply_patch` tool, declared with `#[tool]` over [`apply`].

use tool_core::{ToolContext, ToolError, ToolResult};
use tool_macros::tool;

use super::commit::commit;
use super::error::parse_error;
use super::parser::parse;
use super::plan::plan;
use super::report::PatchApplied;
use crate::workspace::{Workspace, tracking};

/// Applies `patch` to the files of `ws`, all or nothing, as the `apply_patch` tool does
/// (without its approval gate and permission checks, which are the runtime's).
///
/// `ctx` carries the session whose reads the staleness check consults: a file this session
/// read or wrote that has changed on disk since is refused unless `overwrite`. Written files
/// are recorded as this session's writes, deleted ones forgotten.
///
/// Errors: a `validation_error` for a patch that does not parse; `security_error` for a path
/// outside the writable roots or protected; `not_found`, `user_error` (a hunk that does not
/// match, a file that exists or changed, not text, too large) and `system_error` (a write
/// that failed; what was written is restored first) otherwise.
pub fn apply(
    ctx: &ToolContext,
    ws: &Workspace,
    patch: &str,
    overwrite: bool,
) -> Result<PatchApplied, ToolError> {
    let parsed = parse(patch).map_err(|e| parse_error(&e))?;
    let planned = plan(ctx, ws, &parsed, overwrite)?;
    let committed = commit(ws, planned.steps)?;
    for p in &committed.written {
        if let Ok(Some(info)) = ws.metadata(p) {
            tracking::record_write(ctx, p, &info);
        }
    }
    for p in &committed.removed {
        tracking::forget(ctx, p);
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
    /// Apply even to files that changed on disk since this session last read them.
    #[param(default)]
    overwrite: bool,
) -> ToolResult<PatchApplied> {
    let ws = ctx.require_service::<Workspace>()?;
    let ctx = ctx.clone();
    // File I/O blocks; run it off the async threads. Once started, a patch runs to its end
    // even if the call is cancelled: stopping between two renames is what the commit avoids.
    tokio::task::spawn_blocking(move || apply(&ctx, &ws, &patch, overwrite))
        .await
        .map_err(|e| ToolError::system(format!("apply_patch stopped unexpectedly: {e}")))?
}
