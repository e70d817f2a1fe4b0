//! The testing kit's tool-std part (feature `testing`): a temporary workspace made from a
//! literal list of files, and a [`Harness`] over the linked tools working in it.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use serde_json::json;
//! use tool_core::ErrorKind;
//! use tool_core::Effect;
//! use tool_std::testing::TestWorkspace;
//!
//! let ws = TestWorkspace::with_files([
//!     ("src/lib.rs", "pub fn answer() -> u32 { 42 }\n"),
//!     ("secrets/key.txt", "answer=hunter2\n"),
//! ]);
//! let harness = ws.harness().build();
//! let found = harness.call("grep", json!({"pattern": "answer"})).await;
//! assert!(found.expect_ok().text.contains("secrets/key.txt"));
//!
//! // Under a host's rules: the denied path is hidden from every tool.
//! let ruled = ws
//!     .harness_with_rules([(Effect::Deny, "read_file(secrets/**)")])
//!     .unwrap()
//!     .build();
//! let found = ruled.call("grep", json!({"pattern": "answer"})).await;
//! assert!(!found.expect_ok().text.contains("secrets"));
//! let read = ruled.call("read_file", json!({"paths": ["secrets/key.txt"]})).await;
//! assert!(!read.is_ok());
//! # });
//! ```

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use tool_core::Effect;
use tool_core::Registry;
use tool_core::testing::{Harness, HarnessBuilder};

use crate::trust::rules::{RuleError, StandardPolicy};
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

    /// [`harness`](Self::harness) under a host's permission rules, as `toolsmith.toml`'s
    /// `[rules]` give them (`(Effect::Deny, "read_file(secrets/**)")`, ...): the standard
    /// policy decides each call before the approver, and the paths denied to reading tools
    /// are hidden from every tool, as `toolsmith serve` does.
    ///
    /// # Errors
    ///
    /// A rule that cannot be used (an unknown tool, a bad pattern), naming it.
    pub fn harness_with_rules<'a>(
        &self,
        rules: impl IntoIterator<Item = (Effect, &'a str)>,
    ) -> Result<HarnessBuilder, RuleError> {
        let registry = Registry::from_inventory()
            .unwrap_or_else(|e| panic!("the linked tools do not make a registry: {e}"));
        // A workspace of its own over the same root: what the rules hide stays hidden from
        // this harness alone.
        let workspace = Workspace::single(&self.root).unwrap_or_else(|e| {
            panic!("the workspace at {} cannot open: {e}", self.root.display())
        });
        let workspace = Arc::new(workspace);
        let mut builder = StandardPolicy::builder(&registry, workspace.clone());
        for (effect, rule) in rules {
            builder = builder.rules(effect, [rule.to_owned()]);
        }
        let policy = builder.build()?;
        // The specifiers compiled as the policy's rules: hiding them cannot fail.
        let _ = workspace.hide(&policy.hidden_paths());
        Ok(Harness::builder(registry)
            .service(workspace)
            .policy(Arc::new(policy)))
    }
}
