//! `apply_patch`: many file edits in one call, in the patch format OpenAI's models are trained
//! to write, applied all or nothing through the [workspace](crate::workspace) policy.
//!
//! A patch is an envelope of file operations:
//!
//! ```text
//! *** Begin Patch
//! *** Add File: docs/usage.md
//! +Run `cart --help`.
//! *** Update File: src/cart.py
//! *** Move to: src/basket.py
//! @@ def total(self):
//!      items = self.items
//! -    return sum(items)
//! +    return sum(i.price for i in items)
//! *** Delete File: src/old_cart.py
//! *** End Patch
//! ```
//!
//! # How a patch is applied
//!
//! 1. **Parse** ([`parser`]): the grammar, with the leniency models need (padded markers, a
//!    heredoc wrapper, a missing first `@@`, blank lines) and nothing more. A mistake is a
//!    `validation_error` quoting the line, the syntax expected there and a short example.
//! 2. **Plan** (every path, every file, every hunk, before any write): each path is resolved
//!    by the workspace and must be writable, there and where its links lead; an added file
//!    must not exist (unless the patch deletes it first), a moved file's destination neither;
//!    a file updated or deleted that changed since the model saw it is refused ("modified
//!    since read": its version in `expected_versions`, else the workspace's record, see
//!    [`Guard`](crate::workspace::Guard)) unless the call passes `overwrite`. Files are read through the workspace (regular
//!    files only, UTF-8, at most [`MAX_FILE_BYTES`] each and [`MAX_TOTAL_BYTES`] in all) and
//!    each hunk is placed ([`locate`], [`text`]). If anything fails, nothing has been
//!    written, and the error names the file, the hunk (number, patch line, first lines) and
//!    the nearest text in the file with line numbers.
//! 3. **Commit** (all or nothing): every new content is staged as a temporary file beside its
//!    target, then the targets are switched in turn by rename; if one switch fails the ones
//!    already made are switched back, so the files are as they were.
//!
//! # Where a hunk goes
//!
//! As in Codex's own tool: each hunk is searched for below the previous one; each `@@ anchor`
//! line is searched for in turn and moves the search below it; the hunk's context and `-`
//! lines are then searched for at four [`MatchLevel`]s in turn — exact, ignoring trailing
//! whitespace, ignoring surrounding whitespace, then with typographic dashes, quotes and
//! spaces folded — each over the whole remaining file before the next. **A hunk that matches
//! in two places goes to the first one below the cursor at the strictest level that matches
//! at all**; the format's answer to ambiguity is more context or an `@@` line, not an error
//! (Codex behaves the same way). `*** End of File` requires the lines to be the file's last. The
//! result reports each hunk's line and level, so a loose match is visible. Context lines keep
//! the file's own text, so a match that ignored indentation does not rewrite it.
//!
//! Differences from Codex, on purpose: a file's line endings (CRLF, even mixed), byte order
//! mark, mode and missing final newline are kept; consecutive `@@` lines narrow step by step;
//! a hunk of only `+` lines below an `@@` anchor is inserted below the anchor (Codex appends it
//! to the file); a move never overwrites an existing file; an update with `*** Move to:` and
//! no hunk is a rename; nothing is written unless everything applies.
//!
//! # Permissions
//!
//! The tool is `destructive`, needs approval, and needs both `write_files` and `delete_files`
//! on every call: the runtime decides permissions from the tool (or its action) before it reads
//! the arguments, so it cannot ask for `delete_files` only when a patch deletes.
//!
//! ```
//! use tool_std::file::apply_patch::{ChangeKind, MatchLevel, PatchOptions, apply};
//! use tool_std::workspace::{Version, Workspace};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("app.py"), "def greet():\n    print(\"Hi\")\n")?;
//! let ws = Workspace::single(dir.path())?;
//! // The version read_file gave the model.
//! let read = Version::of(b"def greet():\n    print(\"Hi\")\n").to_string();
//!
//! let done = apply(&ws, "*** Begin Patch
//! *** Update File: app.py
//! @@ def greet():
//! -    print(\"Hi\")
//! +    print(\"Hello\")
//! *** Add File: README.md
//! +# app
//! *** End Patch", &PatchOptions::new().expected_version("app.py", read))?;
//!
//! assert_eq!(done.files[0].action, ChangeKind::Updated);
//! assert_eq!(done.files[0].hunks[0].level, MatchLevel::Exact);
//! let new = Version::of(b"def greet():\n    print(\"Hello\")\n").to_string();
//! assert_eq!(done.files[0].version.as_deref(), Some(new.as_str()));
//! assert_eq!(std::fs::read_to_string(dir.path().join("app.py"))?, "def greet():\n    print(\"Hello\")\n");
//! assert_eq!(std::fs::read_to_string(dir.path().join("README.md"))?, "# app\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod commit;
mod error;
pub mod locate;
pub mod parser;
mod patch;
mod plan;
mod report;
pub mod text;
mod tool;

pub use locate::MatchLevel;
pub use parser::{MAX_OPERATIONS, MAX_PATCH_BYTES};
pub use plan::{MAX_FILE_BYTES, MAX_TOTAL_BYTES};
pub use report::{ChangeKind, FileChange, HunkMatch, MAX_LISTED_HUNKS, PatchApplied};
pub use tool::{ApplyPatchTool, PatchOptions, apply, apply_patch};
