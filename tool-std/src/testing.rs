//! The testing kit's tool-std part (feature `testing`): a temporary workspace made from a
//! literal list of files, and a [`Harness`] over the linked tools working in it.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use serde_json::json;
//! use tool_std::testing::TestWorkspace;
//!
//! let ws = TestWorkspace::with_files([("src/lib.rs", "pub fn answer() -> u32 { 42 }\n")]);
//! let harness = ws.harness().build();
//! let found = harness.call("grep", json!({"pattern": "answer"})).await;
//! assert!(found.expect_ok().text.contains("src/lib.rs"));
//! # });
//! ```

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use tool_core::testing::{Harness, HarnessBuilder};

use crate::workspace::Workspace;

/// A temporary directory holding the files a test names, as the one root of a [`Workspace`];
/// removed when dropped.
#[derive(Debug)]
pub struct TestWorkspace {
    _dir: tempfile::TempDir,
    root: PathBuf,
    workspace: Workspace,
}

impl TestWorkspace {
    /// A workspace holding `files`: each a path relative to the root (`src/lib.rs`, its
    /// directories made) and its content.
    ///
    /// # Panics
    ///
    /// On a path that is absolute or climbs out (`..`), or when the files cannot be written;
    /// the message names the path.
    pub fn with_files<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> TestWorkspace {
        let dir = tempfile::tempdir().expect("a temporary directory");
        // The tools answer with real paths: the root is canonical.
        let root = dir
            .path()
            .canonicalize()
            .expect("the temporary directory's path");
        for (path, content) in files {
            let relative = Path::new(path);
            let beneath = relative
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
            assert!(
                beneath && !path.is_empty(),
                "`{path}` is not a path beneath the workspace's root (relative, without `..`)"
            );
            let file = root.join(relative);
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent)
                    .unwrap_or_else(|e| panic!("cannot make the directory of `{path}`: {e}"));
            }
            std::fs::write(&file, content).unwrap_or_else(|e| panic!("cannot write `{path}`: {e}"));
        }
        let workspace = Workspace::single(&root)
            .unwrap_or_else(|e| panic!("the workspace at {} cannot open: {e}", root.display()));
        TestWorkspace {
            _dir: dir,
            root,
            workspace,
        }
    }

    /// The root directory (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// The text of `path` (relative to the root) as it is now.
    ///
    /// # Panics
    ///
    /// When it cannot be read, naming it.
    pub fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.root.join(path))
            .unwrap_or_else(|e| panic!("cannot read `{path}`: {e}"))
    }

    /// Whether `path` (relative to the root) exists.
    pub fn exists(&self, path: &str) -> bool {
        self.root.join(path).exists()
    }

    /// A harness over the tools the test binary links (tool-std's and the crate's own
    /// `#[tool]`s), working in this workspace.
    pub fn harness(&self) -> HarnessBuilder {
        Harness::linked().service(Arc::new(self.workspace.clone()))
    }
}
