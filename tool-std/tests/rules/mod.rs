//! Permission rules for the standard tools: a table of rule/call pairs against a real
//! workspace (with links inside and out of its root), the builder's errors, and the rules on
//! a call's path through the runtime.

mod hidden;
mod runtime;
mod table;

use std::sync::Arc;

use tool_std::workspace::Workspace;

use crate::support::{temp_dir, write};

/// A workspace of two roots, `main` and `docs`, beside an `outside` directory:
/// `main/src/lib.rs`, `main/secrets/key`, `main/src/inner -> ../secrets` (a link inside the
/// root), `main/src/out -> <outside>` (a link out of it), `docs/guide.md`.
pub(crate) fn workspace() -> (tempfile::TempDir, Arc<Workspace>) {
    let (tmp, base) = temp_dir();
    let main = base.join("main");
    let docs = base.join("docs");
    write(&main.join("src/lib.rs"), "fn main() {}\n");
    write(&main.join("secrets/key"), "k\n");
    write(&docs.join("guide.md"), "# guide\n");
    write(&base.join("outside/x"), "x\n");
    std::os::unix::fs::symlink("../secrets", main.join("src/inner")).expect("link");
    std::os::unix::fs::symlink(base.join("outside"), main.join("src/out")).expect("link");
    let ws = Workspace::builder()
        .root("main", &main)
        .root("docs", &docs)
        .build()
        .expect("workspace");
    (tmp, Arc::new(ws))
}
