//! What every writing tool does around its own change: refuse what the workspace refuses
//! before anything is read, load the file as text, check it is what the model saw (its
//! [`Guard`]), and write it back atomically only if nobody changed it meanwhile; then record
//! the write and answer with the new version.

use std::io::Read;

use tool_core::ToolError;

use super::config::FileConfig;
use super::text::TextFile;
use crate::workspace::{
    EntryInfo, Guard, Stamp, Version, Workspace, WriteOptions, WriteOutcome, WsPath, stamp_within,
};

/// A file loaded for an edit.
#[derive(Debug)]
pub(crate) struct Loaded {
    /// The path as the model named it (resolved).
    pub(crate) path: WsPath,
    /// Its text.
    pub(crate) file: TextFile,
    /// Its metadata when it was read: the write checks nothing changed since.
    pub(crate) info: EntryInfo,
    /// Its content's stamp.
    pub(crate) stamp: Stamp,
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

/// Loads an existing file for an edit: refused when not writable, changed since the model saw
/// it (as `guard` says), larger than the configured limit, or binary.
pub(crate) fn load(
    ws: &Workspace,
    config: &FileConfig,
    path: &str,
    guard: Guard,
) -> Result<Loaded, ToolError> {
    let p = writable_path(ws, path)?;
    let shown = p.to_string();
    let opened = match ws.open_file(&p) {
        Ok(opened) => opened,
        Err(e) if e.kind() == tool_core::ErrorKind::NotFound => {
            // Gone: say so if the model had seen it.
            let canonical = ws.canonicalize(&p, true).map_or(p, |c| c.path);
            ws.check_unchanged(&shown, &canonical, guard, None, || Ok(None))?;
            return Err(e);
        }
        Err(e) => return Err(e),
    };
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
    let stamp = Stamp::of(&bytes);
    ws.check_unchanged(&shown, &opened.path, guard, Some(&opened.info), || {
        Ok(Some(stamp))
    })?;
    let file = TextFile::decode(&shown, bytes)?;
    Ok(Loaded {
        path: p,
        file,
        info: opened.info,
        stamp,
    })
}

/// Writes `bytes` over a loaded file, atomically, if it is unchanged since [`load`]; records the
/// write in the workspace and returns the new content's version.
pub(crate) fn commit(
    ws: &Workspace,
    loaded: &Loaded,
    bytes: &[u8],
) -> Result<(WriteOutcome, Version), ToolError> {
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
    write(ws, &loaded.path, bytes, WriteOptions::must_exist())
}

/// Writes through the workspace, records the write and returns the new content's version.
pub(crate) fn write(
    ws: &Workspace,
    p: &WsPath,
    bytes: &[u8],
    options: WriteOptions,
) -> Result<(WriteOutcome, Version), ToolError> {
    let outcome = ws.write_file(p, bytes, options)?;
    let stamp = Stamp::of(bytes);
    ws.record_seen(&outcome.path, &outcome.info, Some(stamp));
    Ok((outcome, stamp.version))
}

/// The stamp of the file at `p` (links followed, as `read_file` reads it), if it has at most
/// `limit` bytes.
pub(crate) fn stamp_of(ws: &Workspace, p: &WsPath, limit: u64) -> Result<Option<Stamp>, ToolError> {
    let opened = ws.open_file(p)?;
    if opened.info.len > limit {
        return Ok(None);
    }
    stamp_within(&opened.file, limit)
        .map_err(|e| ToolError::system(format!("reading `{p}` failed: {e}")))
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
