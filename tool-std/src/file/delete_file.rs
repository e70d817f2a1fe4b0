//! `delete_file` (alias `delete_files`): delete files, or a directory with `recursive: true`.
//!
//! Every path is checked before anything is deleted (inside a writable root, not protected,
//! existing, a file not changed since the model saw it unless `overwrite`: its version in
//! `expected_versions`, else the workspace's record, see [`Guard`]);
//! one bad path deletes nothing. A link is deleted itself, never what it points to (its
//! version is its target's content, as `read_file` reads it). A directory needs
//! `recursive: true`; the tool needs approval by default, like every writing tool.

use serde::Serialize;
use tool_core::{Render, ResourcesTracker, ToolContext, ToolError, ToolResult};
use tool_macros::tool;

use super::config::FileConfig;
use super::edit::{blocking, stamp_of};
use super::expected::{Expected, ExpectedVersion};
use crate::workspace::{EntryKind, Guard, Workspace, WsPath};

/// The answer of `delete_file`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FilesDeleted {
    /// Always `files_deleted`.
    pub r#type: &'static str,
    /// The paths deleted.
    pub deleted: Vec<String>,
    /// How many were directories (deleted with what they held).
    pub directories: usize,
}

impl Render for FilesDeleted {
    fn status(&self) -> Option<String> {
        Some(format!("Deleted {} path(s)", self.deleted.len()))
    }

    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        let list: Vec<String> = self.deleted.iter().map(|p| format!("`{p}`")).collect();
        Some(format!("Deleted {}", list.join(", ")))
    }
}

/// Deletes the paths; see the [module documentation](self).
pub fn delete(
    ws: &Workspace,
    config: &FileConfig,
    paths: &[String],
    recursive: bool,
    overwrite: bool,
    expected_versions: &[ExpectedVersion],
) -> Result<FilesDeleted, ToolError> {
    if paths.is_empty() {
        return Err(ToolError::validation(
            "paths is empty; name at least one file to delete",
        ));
    }
    if paths.len() > config.max_files_per_delete {
        return Err(ToolError::validation(format!(
            "{} paths given; one call deletes at most {}",
            paths.len(),
            config.max_files_per_delete
        )));
    }
    let mut expected = Expected::resolve(ws, expected_versions, config.max_files_per_delete)?;
    // Check everything first: one refusal deletes nothing.
    let mut targets: Vec<(WsPath, bool)> = Vec::new();
    for path in paths {
        let p = ws.resolve(path)?;
        ws.check_writable(&p)?;
        let Some(info) = ws.metadata(&p).or_else(|e| {
            // A link is deleted itself: its target may be missing or outside.
            if e.kind() == tool_core::ErrorKind::SecurityError {
                Err(e)
            } else {
                Ok(None)
            }
        })?
        else {
            return Err(
                ToolError::not_found(format!("`{p}` does not exist; nothing was deleted"))
                    .with_suggestion("Check the path with list_directory."),
            );
        };
        let is_dir = info.kind == EntryKind::Dir;
        if is_dir && !recursive {
            return Err(ToolError::user(format!(
                "`{p}` is a directory; deleting a directory needs recursive: true (nothing was deleted)"
            )));
        }
        let guard = expected.guard(&p, overwrite);
        if is_dir {
            if matches!(guard, Guard::Version(_)) {
                return Err(ToolError::validation(format!(
                    "expected_versions names `{p}`, a directory; versions are of files (nothing was deleted)"
                )));
            }
        } else {
            let canonical = ws.canonical(&p)?;
            ws.check_unchanged(&p.to_string(), &canonical, guard, Some(&info), || {
                stamp_of(ws, &p, config.max_edit_bytes)
            })?;
        }
        targets.push((p, is_dir));
    }
    expected.check_all_used("delete_file's paths")?;
    let mut deleted = Vec::new();
    let mut directories = 0;
    for (p, is_dir) in &targets {
        let canonical = ws.canonical(p).ok();
        let done = if *is_dir {
            ws.remove_dir_all(p)
        } else {
            ws.remove_file(p)
        };
        if let Err(e) = done {
            let already = if deleted.is_empty() {
                "nothing was deleted".to_owned()
            } else {
                format!("already deleted: {}", deleted.join(", "))
            };
            return Err(ToolError::new(
                e.kind(),
                format!("{} ({already})", e.message()),
            ));
        }
        if let Some(c) = canonical {
            ws.forget_seen(&c);
        }
        directories += usize::from(*is_dir);
        deleted.push(p.to_string());
    }
    Ok(FilesDeleted {
        r#type: "files_deleted",
        deleted,
        directories,
    })
}

/// Delete files (or a directory, with recursive: true).
#[tool(
    name = "delete_file",
    description = "Delete files; a directory needs recursive: true. All or nothing: if one cannot be deleted, none is.",
    category = "file_management",
    toolsets(file),
    permissions(delete_files),
    requires_approval,
    destructive,
    aliases(delete_files)
)]
pub async fn delete_file(
    ctx: &ToolContext,
    /// Files or directories (`project:path` for another project).
    #[param(alias = "file_path")]
    paths: Vec<String>,
    /// Delete directories with their contents.
    #[param(default)]
    recursive: bool,
    /// Skip the changed-since-read check.
    #[param(default)]
    overwrite: bool,
    /// From read_file or your last edits; refused if a file changed since.
    #[param(default)]
    expected_versions: Vec<ExpectedVersion>,
) -> ToolResult<FilesDeleted> {
    let ws = ctx.require_service::<Workspace>()?;
    let config = FileConfig::of(ctx);
    blocking(move || {
        delete(
            &ws,
            &config,
            &paths,
            recursive,
            overwrite,
            &expected_versions,
        )
    })
    .await
}
