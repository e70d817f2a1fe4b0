//! What the tests share, one submodule per area: the macro tests' calls, the MCP test tools,
//! clients and built examples, and the provider tests' sandbox; plus tool-core's provider
//! fixtures, included by path. Here: the repository and the tools the facade links.
// `pub` for the test modules; a test binary exports nothing.
#![allow(unreachable_pub)]

use std::path::{Path, PathBuf};

use toolsmith::{Registry, RegistryBuilder};

#[cfg(feature = "std")]
#[path = "../../tool-core/tests/fixtures/mod.rs"]
pub mod fixtures;
pub mod macros;
// Shared with the command's tests (toolsmith-cli's, which include it by path); they use the
// parts these do not.
#[allow(dead_code)]
pub mod mcp;
#[cfg(feature = "std")]
pub mod providers;

/// The repository: the workspace's root, where this package is.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every tool linked into the facade, as the `toolsmith` binary has them: what `inventory`
/// holds, less the tools this test binary submits itself (the macro tests' `#[tool]`s, which
/// say where they were declared: under `tests/`).
pub fn linked_tools() -> RegistryBuilder {
    let tests = Path::new(file!())
        .parent()
        .and_then(Path::parent)
        .expect("this file is tests/support/mod.rs");
    let inventory = Registry::from_inventory().expect("the linked tools register");
    inventory
        .iter()
        .filter(|e| !Path::new(e.location()).starts_with(tests))
        .fold(Registry::builder(), |b, e| b.register_arc(e.tool().clone()))
}
