//! `expected_versions`: the per-file form of `expected_version`, for the tools that change
//! several files in one call (`delete_file`, `apply_patch`).
//!
//! The form is a list of `{"path": ..., "version": ...}` objects rather than a map from path
//! to version: a map (an object with arbitrary keys) cannot be stated in OpenAI's strict mode
//! or Gemini's schema subset, and the standard tools speak every provider's format. A path is
//! matched to the call's paths after resolution (`./a.txt`, `a.txt` and `main:a.txt` are one
//! file); an entry that names no file the call changes is an error, so a misspelt path never
//! turns the check off silently.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::ToolError;

use crate::workspace::{Guard, Version, Workspace, WsPath, parse_expected};

/// A file and its expected version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ExpectedVersion {
    /// The file.
    pub path: String,
    /// From read_file or an edit.
    pub version: String,
}

impl ExpectedVersion {
    /// An entry for `path` at `version`.
    pub fn new(path: impl Into<String>, version: impl Into<String>) -> Self {
        ExpectedVersion {
            path: path.into(),
            version: version.into(),
        }
    }
}

/// A call's expected versions, resolved, and which of them the call used.
#[derive(Debug)]
pub(crate) struct Expected {
    entries: Vec<Entry>,
}

#[derive(Debug)]
struct Entry {
    path: WsPath,
    given: String,
    version: Version,
    used: bool,
}

impl Expected {
    /// Resolves every entry. Errors: more than `limit` entries (the most files the call may
    /// name), a path the workspace refuses, a malformed version, two different versions for
    /// one file.
    pub(crate) fn resolve(
        ws: &Workspace,
        list: &[ExpectedVersion],
        limit: usize,
    ) -> Result<Expected, ToolError> {
        if list.len() > limit {
            return Err(ToolError::validation(format!(
                "expected_versions has {} entries; this call changes at most {limit} files",
                list.len()
            )));
        }
        let mut entries: Vec<Entry> = Vec::with_capacity(list.len());
        for e in list {
            let path = ws.resolve(&e.path)?;
            let version = parse_expected(&e.version)?;
            if let Some(other) = entries.iter().find(|o| o.path == path) {
                if other.version != version {
                    return Err(ToolError::validation(format!(
                        "expected_versions gives `{}` two versions ({} and {version}); nothing was changed",
                        e.path, other.version
                    ))
                    .with_suggestion("Give each file once, with its latest version."));
                }
                continue;
            }
            entries.push(Entry {
                path,
                given: e.path.clone(),
                version,
                used: false,
            });
        }
        Ok(Expected { entries })
    }

    /// The guard of the file the call names `p` (resolved, as [`Workspace::resolve`] gives
    /// it): off with `overwrite`, its expected version if it has one, else the record.
    pub(crate) fn guard(&mut self, p: &WsPath, overwrite: bool) -> Guard {
        let version = self.entries.iter_mut().find(|e| e.path == *p).map(|e| {
            e.used = true;
            e.version
        });
        match (overwrite, version) {
            (true, _) => Guard::Off,
            (false, Some(v)) => Guard::Version(v),
            (false, None) => Guard::Record,
        }
    }

    /// Refuses entries that named no file the call changes (`what`: "delete_file's paths").
    pub(crate) fn check_all_used(&self, what: &str) -> Result<(), ToolError> {
        let unused: Vec<String> = self
            .entries
            .iter()
            .filter(|e| !e.used)
            .map(|e| format!("`{}`", e.given))
            .collect();
        if unused.is_empty() {
            return Ok(());
        }
        Err(ToolError::validation(format!(
            "expected_versions names {}, which is not among {what}; nothing was changed",
            unused.join(", ")
        ))
        .with_suggestion(
            "Give versions only for the existing files the call changes, with the same paths.",
        ))
    }
}
