//! The facade's integration tests, in one test binary: a module per behaviour, grouped by
//! area, and the helpers they share in [`support`].
//!
//! Golden files are under `tests/snapshots/` (`UPDATE_SNAPSHOTS=1 cargo test -p toolsmith
//! --test tests` rewrites them); the compile-fail cases of the macros under `tests/ui/`. The
//! `toolsmith` command's tests are its package's (`toolsmith-cli/tests/`). Some tests drive
//! real programs (the Python `mcp` client) and skip, saying why, where they are not installed
//! (`.ci/run` installs them).

mod support;

/// The examples, run as programs.
mod examples {
    mod run;
}

/// `#[tool]`, `#[derive(Action)]` and `#[action]`: what they generate, seed 000's tools
/// declared with them, and their compile-fail contract.
mod macros {
    mod constraints;
    mod decode;
    mod derive;
    mod seed000_prompt;
    mod seed000_web;
    mod tool_fn;
    mod tool_impl;
    mod ui;
}

/// An rmcp server of one's own serving toolsmith's tools, driven by a real client.
mod mcp {
    mod own_server;
}

/// Call spans in the GenAI conventions, through the SDK's in-memory exporter.
#[cfg(feature = "otel")]
mod trace {
    mod spans;
}

/// Provider formats for every tool linked into the facade.
#[cfg(feature = "std")]
mod providers {
    mod export;
    mod property;
    mod roundtrip;
}
