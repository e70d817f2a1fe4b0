//! What the tests share, one submodule per area: the command line, raw HTTP requests, the macro
//! tests' calls, the MCP test tools, servers and clients, and the provider tests' sandbox; plus
//! tool-core's browser driver and provider fixtures, included by path. Here: the tools the
//! facade links.
// `pub` for the test modules; a test binary exports nothing.
#![allow(unreachable_pub)]

use std::path::Path;

use toolsmith::{Registry, RegistryBuilder};

#[path = "../../tool-core/tests/support/browser.rs"]
pub mod browser;
pub mod cli;
#[cfg(feature = "std")]
#[path = "../../tool-core/tests/fixtures/mod.rs"]
pub mod fixtures;
pub mod fuzz;
pub mod http;
pub mod macros;
pub mod mcp;
#[cfg(feature = "std")]
pub mod providers;
pub mod stdio;

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
