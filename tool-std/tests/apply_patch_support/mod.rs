//! Shared set-up of the `apply_patch` tests: a temp dir with a workspace root `ws`, a sibling
//! `ws-evil` sharing its prefix and an `outside` directory holding a secret, and snapshots to
//! prove a refused or failed patch changed nothing.

#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tool_core::{ErrorKind, Services, ToolContext, ToolError};
use tool_std::file::apply_patch::{PatchApplied, apply};
use tool_std::workspace::Workspace;

pub(crate) const SECRET: &str = "outside-secret-7f3a\n";

pub(crate) struct Fx {
    _tmp: tempfile::TempDir,
    /// The canonical temp dir.
    pub(crate) base: PathBuf,
    /// `base/ws`, the workspace's only (read-write) root.
    pub(crate) root: PathBuf,
    pub(crate) ws: Workspace,
    pub(crate) ctx: ToolContext,
}

pub(crate) fn fixture() -> Fx {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = tmp.path().canonicalize().expect("canonical");
    let root = base.join("ws");
    fs::create_dir_all(root.join(".git")).unwrap();
    fs::create_dir_all(base.join("ws-evil")).unwrap();
    fs::create_dir_all(base.join("outside/dir")).unwrap();
    fs::write(root.join(".git/config"), "[core]\n").unwrap();
    fs::write(root.join(".env"), "TOKEN=1\n").unwrap();
    fs::write(base.join("ws-evil/x.txt"), SECRET).unwrap();
    fs::write(base.join("outside/secret.txt"), SECRET).unwrap();
    fs::write(base.join("outside/dir/secret.txt"), SECRET).unwrap();
    let ws = Workspace::builder()
        .root("ws", &root)
        .build()
        .expect("workspace");
    Fx {
        _tmp: tmp,
        base,
        root,
        ws,
        ctx: ToolContext::detached("apply_patch", Services::new()),
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
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(p, content).unwrap();
    }

    pub(crate) fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    pub(crate) fn exists(&self, rel: &str) -> bool {
        fs::symlink_metadata(self.path(rel)).is_ok()
    }

    pub(crate) fn apply(&self, patch: &str) -> Result<PatchApplied, ToolError> {
        apply(&self.ctx, &self.ws, patch, false)
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
        snapshot(&self.base)
    }
}

/// Like [`snapshot`], without directories' times (a restored patch leaves the entries as they
/// were, but the directories it wrote in were touched).
pub(crate) fn entries(dir: &Path) -> Snapshot {
    snapshot(dir)
        .into_iter()
        .map(|mut e| {
            if e.1 == "dir" {
                (e.4, e.5) = (0, 0);
            }
            e
        })
        .collect()
}

/// Every entry under a directory: path, kind, content or link target, mode, inode, mtime.
pub(crate) type Snapshot = Vec<(String, String, u32, u64, i64, i64)>;

pub(crate) fn snapshot(dir: &Path) -> Snapshot {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = fs::symlink_metadata(e.path()).unwrap();
            let what = if m.file_type().is_symlink() {
                format!("link -> {}", fs::read_link(e.path()).unwrap().display())
            } else if m.is_dir() {
                stack.push(e.path());
                "dir".to_owned()
            } else {
                format!("file {:?}", fs::read(e.path()).unwrap())
            };
            out.push((
                e.path().strip_prefix(dir).unwrap().display().to_string(),
                what,
                m.permissions().mode(),
                m.ino(),
                m.mtime(),
                m.mtime_nsec(),
            ));
        }
    }
    out.sort();
    out
}
