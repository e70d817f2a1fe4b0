//! What `apply_patch` answers with: per file, what happened, how many lines, and where and
//! how loosely each hunk matched.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::{Render, ResourcesTracker};

use super::locate::MatchLevel;
use crate::workspace::EditDiagnostics;

/// The most hunks the model text lists per file (the structured result lists all).
pub const MAX_LISTED_HUNKS: usize = 20;

/// What happened to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// `*** Add File:` created it.
    Added,
    /// `*** Update File:` changed it in place.
    Updated,
    /// `*** Delete File:` removed it.
    Deleted,
    /// `*** Update File:` with `*** Move to:` changed and renamed it.
    Moved,
}

impl ChangeKind {
    fn letter(self) -> char {
        match self {
            ChangeKind::Added => 'A',
            ChangeKind::Updated => 'M',
            ChangeKind::Deleted => 'D',
            ChangeKind::Moved => 'R',
        }
    }
}

/// Where one hunk applied and at which [`MatchLevel`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HunkMatch {
    /// The hunk's number in its file's section (1-based).
    pub hunk: usize,
    /// The line of the file (as it was before the patch, 1-based) where the hunk's lines start.
    pub line: usize,
    /// How loosely the hunk's lines had to be compared to be found.
    pub level: MatchLevel,
}

/// One file operation of the patch and its effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileChange {
    /// The path as the patch named it.
    pub path: String,
    /// What happened.
    pub action: ChangeKind,
    /// The new path of a moved file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<String>,
    /// Lines added.
    pub lines_added: usize,
    /// Lines removed (`null` for a deleted link, or a deleted file too large to count).
    pub lines_removed: Option<usize>,
    /// Each hunk's place and match level (updates only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hunks: Vec<HunkMatch>,
    /// The version of the file this operation leaves (at `moved_to` for a move) once the whole
    /// patch is applied: pass it as `expected_version` to the next edit. None for a delete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

impl FileChange {
    pub(crate) fn new(action: ChangeKind, path: String) -> FileChange {
        FileChange {
            path,
            action,
            moved_to: None,
            lines_added: 0,
            lines_removed: Some(0),
            hunks: Vec::new(),
            version: None,
        }
    }

    pub(crate) fn lines(mut self, added: usize, removed: Option<usize>) -> FileChange {
        self.lines_added = added;
        self.lines_removed = removed;
        self
    }

    /// `A notes.txt (+3, version 3f2a9c1b7d4e)`,
    /// `R a.py -> b.py (+1 -1, version 9c1b2d3e4f5a): hunk 1 at line 3 (exact)`, `D old (-2)`.
    fn line(&self) -> String {
        let mut out = format!("{} {}", self.action.letter(), self.path);
        if let Some(to) = &self.moved_to {
            out.push_str(&format!(" -> {to}"));
        }
        let mut facts = Vec::new();
        match (self.action, self.lines_removed) {
            (ChangeKind::Added, _) => facts.push(format!("+{}", self.lines_added)),
            (ChangeKind::Deleted, Some(n)) => facts.push(format!("-{n}")),
            (ChangeKind::Deleted, None) => {}
            (_, removed) => facts.push(format!("+{} -{}", self.lines_added, removed.unwrap_or(0))),
        }
        if let Some(v) = &self.version {
            facts.push(format!("version {v}"));
        }
        if !facts.is_empty() {
            out.push_str(&format!(" ({})", facts.join(", ")));
        }
        if !self.hunks.is_empty() {
            let listed: Vec<String> = self
                .hunks
                .iter()
                .take(MAX_LISTED_HUNKS)
                .map(|h| format!("hunk {} at line {} ({})", h.hunk, h.line, h.level.as_str()))
                .collect();
            out.push_str(": ");
            out.push_str(&listed.join(", "));
            if self.hunks.len() > MAX_LISTED_HUNKS {
                out.push_str(&format!(
                    ", and {} more (the structured result lists them all)",
                    self.hunks.len() - MAX_LISTED_HUNKS
                ));
            }
        }
        out
    }
}

/// The answer of a successful `apply_patch` (`type: "patch_applied"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PatchApplied {
    /// Always `patch_applied`.
    #[serde(rename = "type")]
    pub kind: String,
    /// One entry per file operation, in patch order.
    pub files: Vec<FileChange>,
    /// Lines added over all files.
    pub lines_added: usize,
    /// Lines removed over all files (lines of files too large to count left out).
    pub lines_removed: usize,
    /// Whether any hunk matched only loosely (see each hunk's `level`): worth a look.
    pub loose_matches: bool,
    /// What the language servers of the changed files' languages say of them now (their
    /// errors), for the files whose server runs and answered within its short wait.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<EditDiagnostics>,
}

impl PatchApplied {
    pub(crate) fn new(files: Vec<FileChange>) -> PatchApplied {
        PatchApplied {
            kind: "patch_applied".to_owned(),
            lines_added: files.iter().map(|f| f.lines_added).sum(),
            lines_removed: files.iter().filter_map(|f| f.lines_removed).sum(),
            loose_matches: files
                .iter()
                .flat_map(|f| &f.hunks)
                .any(|h| h.level != MatchLevel::Exact),
            files,
            diagnostics: Vec::new(),
        }
    }

    /// Sets what the language servers say of the changed files.
    pub(crate) fn with_diagnostics(mut self, diagnostics: Vec<EditDiagnostics>) -> PatchApplied {
        self.diagnostics = diagnostics;
        self
    }
}

impl Render for PatchApplied {
    fn status(&self) -> Option<String> {
        Some(format!(
            "Patched {} file(s): +{} -{}",
            self.files.len(),
            self.lines_added,
            self.lines_removed
        ))
    }

    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        let mut out = format!(
            "Patch applied: {} file operation(s), +{} -{} lines.",
            self.files.len(),
            self.lines_added,
            self.lines_removed
        );
        for f in &self.files {
            out.push('\n');
            out.push_str(&f.line());
        }
        if self.loose_matches {
            out.push_str(
                "\nSome hunks matched only after ignoring whitespace or typographic punctuation; \
                 the file's own text was kept on their context lines. Read those places to check.",
            );
        }
        out.push_str(&EditDiagnostics::render(&self.diagnostics));
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_text_lists_each_file() {
        let mut moved = FileChange::new(ChangeKind::Moved, "a.py".into()).lines(1, Some(2));
        moved.moved_to = Some("b.py".into());
        moved.version = Some("9c1b2d3e4f5a".into());
        moved.hunks = vec![HunkMatch {
            hunk: 1,
            line: 3,
            level: MatchLevel::SurroundingWhitespace,
        }];
        let out = PatchApplied::new(vec![
            FileChange::new(ChangeKind::Added, "n.txt".into()).lines(3, Some(0)),
            moved,
            FileChange::new(ChangeKind::Deleted, "old".into()).lines(0, None),
        ]);
        let text = out.render(&mut ResourcesTracker::new()).unwrap();
        assert_eq!(
            text,
            "Patch applied: 3 file operation(s), +4 -2 lines.\n\
             A n.txt (+3)\n\
             R a.py -> b.py (+1 -2, version 9c1b2d3e4f5a): hunk 1 at line 3 (surrounding_whitespace)\n\
             D old\n\
             Some hunks matched only after ignoring whitespace or typographic punctuation; \
             the file's own text was kept on their context lines. Read those places to check."
        );
        assert_eq!(serde_json::to_value(&out).unwrap()["type"], "patch_applied");
    }
}
