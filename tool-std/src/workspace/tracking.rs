//! Which files this session has seen, so an edit of a file that changed on disk since it was
//! read fails instead of overwriting someone else's work (seed 004's file tracking).
//!
//! Reads and writes record the file's fingerprint (modification time, size, inode) in the
//! session's values; [`check_fresh`] compares it with the file as it is now. A file this
//! session never read passes: whether a tool demands a read before an edit is the tool's
//! choice. At most [`MAX_TRACKED_FILES`] files are remembered per session, the oldest forgotten
//! first.

use std::time::UNIX_EPOCH;

use serde_json::{Map, Value, json};
use tool_core::{ToolContext, ToolError};

use super::access::EntryInfo;
use super::{Workspace, WsPath};

/// The session value the fingerprints live under.
pub const SESSION_KEY: &str = "toolsmith.workspace.seen";

/// How many files one session remembers.
pub const MAX_TRACKED_FILES: usize = 10_000;

fn fingerprint(info: &EntryInfo) -> Value {
    let modified = info
        .modified
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64);
    json!([modified, info.len, info.ino])
}

fn key(p: &WsPath) -> String {
    format!("{}:{}", p.root(), p.relative().display())
}

fn remember(ctx: &ToolContext, p: &WsPath, info: &EntryInfo) {
    let session = ctx.session();
    let mut seen = match session.value(SESSION_KEY) {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let k = key(p);
    seen.shift_remove(&k);
    while seen.len() >= MAX_TRACKED_FILES {
        let Some(oldest) = seen.keys().next().cloned() else {
            break;
        };
        seen.shift_remove(&oldest);
    }
    seen.insert(k, fingerprint(info));
    session.set_value(SESSION_KEY, Value::Object(seen));
}

/// Records that this session read `p` (its canonical path) as `info` describes it.
pub fn record_read(ctx: &ToolContext, p: &WsPath, info: &EntryInfo) {
    remember(ctx, p, info);
}

/// Records that this session wrote `p`: its new state is known, later edits may follow.
pub fn record_write(ctx: &ToolContext, p: &WsPath, info: &EntryInfo) {
    remember(ctx, p, info);
}

/// Forgets `p` (after a delete).
pub fn forget(ctx: &ToolContext, p: &WsPath) {
    let session = ctx.session();
    if let Some(Value::Object(mut seen)) = session.value(SESSION_KEY)
        && seen.shift_remove(&key(p)).is_some()
    {
        session.set_value(SESSION_KEY, Value::Object(seen));
    }
}

/// Whether this session has read or written `p` (canonical).
pub fn was_seen(ctx: &ToolContext, p: &WsPath) -> bool {
    matches!(ctx.session().value(SESSION_KEY), Some(Value::Object(m)) if m.contains_key(&key(p)))
}

/// Fails with "modified since read" when this session read or wrote `p` and the file has
/// changed on disk since (or is gone). Passes for a file this session never saw.
pub fn check_fresh(ctx: &ToolContext, ws: &Workspace, p: &WsPath) -> Result<(), ToolError> {
    let canonical = match ws.canonical(p) {
        Ok(c) => c,
        Err(e) if e.kind() == tool_core::ErrorKind::NotFound => p.clone(),
        Err(e) => return Err(e),
    };
    let Some(Value::Object(seen)) = ctx.session().value(SESSION_KEY) else {
        return Ok(());
    };
    let Some(recorded) = seen.get(&key(&canonical)) else {
        return Ok(());
    };
    let now = ws.metadata(&canonical)?;
    let changed = match &now {
        None => Some("it was deleted".to_owned()),
        Some(info) if &fingerprint(info) != recorded => Some(describe_change(recorded, info)),
        Some(_) => None,
    };
    match changed {
        None => Ok(()),
        Some(how) => Err(ToolError::user(format!(
            "modified since read: `{p}` changed on disk after this session last read it ({how})"
        ))
        .with_suggestion(
            "Read the file again with read_file and redo the edit on its current content, or \
             pass overwrite: true to replace it anyway.",
        )),
    }
}

fn describe_change(recorded: &Value, now: &EntryInfo) -> String {
    let before = recorded.get(1).and_then(Value::as_u64).unwrap_or(0);
    if before != now.len {
        format!("size {before} -> {} bytes", now.len)
    } else {
        "same size, newer modification time".to_owned()
    }
}
