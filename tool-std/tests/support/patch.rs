//! Shared set-up of the `apply_patch` tests: a temp dir with a workspace root `ws`, a sibling
//! `ws-evil` sharing its prefix and an `outside` directory holding a secret, and a snapshot of
//! all of it to prove a refused or failed patch changed nothing.

use std::fs;
use std::path::PathBuf;

use tool_core::{ErrorKind, ToolError};
use tool_std::file::apply_patch::{PatchApplied, PatchOptions, apply};
use tool_std::workspace::Workspace;

use super::Snapshot;

pub(crate) const SECRET: &str = "outside-secret-7f3a\n";

pub(crate) struct Fx {
    _tmp: tempfile::TempDir,
    /// The canonical temp dir.
    pub(crate) base: PathBuf,
    /// `base/ws`, the workspace's only (read-write) root.
    pub(crate) root: PathBuf,
    pub(crate) ws: Workspace,
}

pub(crate) fn fixture() -> Fx {
    let (tmp, base) = super::temp_dir();
    let root = super::escape_layout(&base, SECRET);
    let ws = Workspace::builder()
        .root("ws", &root)
        .build()
        .expect("workspace");
    Fx {
        _tmp: tmp,
        base,
        root,
        ws,
    }
}

/// `*** Begin Patch`, `body`, `*** End Patch`.
pub(crate) fn patch(body: &str) -> String {
    format!("*** Begin Patch\n{body}\n*** End Patch\n")
}

impl Fx {
    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub(crate) fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        super::write(&self.path(rel), content);
    }

    pub(crate) fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    pub(crate) fn exists(&self, rel: &str) -> bool {
        fs::symlink_metadata(self.path(rel)).is_ok()
    }

    pub(crate) fn apply(&self, patch: &str) -> Result<PatchApplied, ToolError> {
        apply(&self.ws, patch, &PatchOptions::new())
    }

    pub(crate) fn applied(&self, patch: &str) -> PatchApplied {
        self.apply(patch)
            .unwrap_or_else(|e| panic!("{}", e.to_json()))
    }

    /// The error a patch must fail with, after checking its kind.
    pub(crate) fn fails(&self, patch: &str, kind: ErrorKind) -> ToolError {
        match self.apply(patch) {
            Ok(done) => panic!("expected a {kind:?}, the patch applied: {done:?}"),
            Err(e) => {
                assert_eq!(e.kind(), kind, "{}", e.to_json());
                e
            }
        }
    }

    /// Everything under the temp dir (the root, the sibling, the outside).
    pub(crate) fn snapshot(&self) -> Snapshot {
        super::snapshot(&self.base)
    }
}
