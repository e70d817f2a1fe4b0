//! What every writing tool does around its own change: refuse what the workspace refuses
//! before anything is read, check staleness, load the file as text, and write it back
//! atomically only if nobody changed it meanwhile; then record the write.

use std::io::Read;

use tool_core::{ToolContext, ToolError};

use super::config::FileConfig;
use super::text::TextFile;
use crate::workspace::{EntryInfo, Workspace, WriteOptions, WriteOutcome, WsPath, tracking};

/// A file loaded for an edit.
#[derive(Debug)]
pub(crate) struct Loaded {
    /// The path as the model named it (resolved).
    pub(crate) path: WsPath,
    /// Its text.
    pub(crate) file: TextFile,
    /// Its metadata when it was read: the write checks nothing changed since.
    pub(crate) info: EntryInfo,
}

/// Runs blocking file work off the async threads.
pub(crate) async fn blocking<T, F>(f: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ToolError::system(format!("the file operation stopped unexpectedly: {e}")))?
}

/// Resolves a path for writing: refused (`security_error`) before anything is opened when it
/// leads outside, into a read-only root or to a protected path.
pub(crate) fn writable_path(ws: &Workspace, path: &str) -> Result<WsPath, ToolError> {
    let p = ws.resolve(path)?;
    ws.check_writable(&p)?;
    // Links are resolved inside the root; a link leading out (or dangling out) is refused here.
    match ws.canonical(&p) {
        Ok(c) => ws.check_writable(&c)?,
        Err(e) if e.kind() == tool_core::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    Ok(p)
}

/// Loads an existing file for an edit: refused when not writable, stale (unless `overwrite`),
/// larger than the configured limit, or binary.
pub(crate) fn load(
    ctx: &ToolContext,
    ws: &Workspace,
    config: &FileConfig,
    path: &str,
    overwrite: bool,
) -> Result<Loaded, ToolError> {
    let p = writable_path(ws, path)?;
    if !overwrite {
        tracking::check_fresh(ctx, ws, &p)?;
    }
    let shown = p.to_string();
    let opened = ws.open_file(&p)?;
    if opened.info.len > config.max_edit_bytes {
        return Err(ToolError::user(format!(
            "`{shown}` is {} bytes; the file tools edit files of at most {} bytes",
            opened.info.len, config.max_edit_bytes
        ))
        .with_suggestion("Edit it with the bash tool (sed, a script) instead."));
    }
    let mut bytes = Vec::with_capacity(opened.info.len as usize + 1);
    (&opened.file)
        .take(config.max_edit_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::system(format!("reading `{shown}` failed: {e}")))?;
    let file = TextFile::decode(&shown, bytes)?;
    Ok(Loaded {
        path: p,
        file,
        info: opened.info,
    })
}

/// Writes `bytes` over a loaded file, atomically, if it is unchanged since [`load`]; records the
/// write for staleness checks.
pub(crate) fn commit(
    ctx: &ToolContext,
    ws: &Workspace,
    loaded: &Loaded,
    bytes: &[u8],
) -> Result<WriteOutcome, ToolError> {
    let now = ws.metadata(&loaded.path)?;
    let same = now.as_ref().is_some_and(|n| {
        n.len == loaded.info.len && n.modified == loaded.info.modified && n.ino == loaded.info.ino
    });
    if !same {
        return Err(ToolError::user(format!(
            "modified since read: `{}` changed on disk while this edit ran; nothing was written",
            loaded.path
        ))
        .with_suggestion("Read the file again and redo the edit on its current content."));
    }
    write(ctx, ws, &loaded.path, bytes, WriteOptions::must_exist())
}

/// Writes through the workspace and records the write.
pub(crate) fn write(
    ctx: &ToolContext,
    ws: &Workspace,
    p: &WsPath,
    bytes: &[u8],
    options: WriteOptions,
) -> Result<WriteOutcome, ToolError> {
    let outcome = ws.write_file(p, bytes, options)?;
    tracking::record_write(ctx, &outcome.path, &outcome.info);
    Ok(outcome)
}

/// Refuses content larger than the configured limit.
pub(crate) fn check_content(config: &FileConfig, content: &str) -> Result<(), ToolError> {
    if content.len() > config.max_write_bytes {
        return Err(ToolError::validation(format!(
            "content is {} bytes; a write takes at most {} bytes",
            content.len(),
            config.max_write_bytes
        ))
        .with_suggestion(
            "Write the file in parts: create_file with the first part, then append_file.",
        ));
    }
    Ok(())
}
