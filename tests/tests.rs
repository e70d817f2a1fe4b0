//! The facade's integration tests, in one test binary: a module per behaviour, grouped by
//! area, and the helpers they share in [`support`].
//!
//! Golden files are under `tests/snapshots/` (`UPDATE_SNAPSHOTS=1 cargo test --test tests`
//! rewrites them); the compile-fail cases of the macros under `tests/ui/`. Some tests drive
//! real programs (Chromium, the Python `mcp` client, the MCP Inspector) and skip, saying why,
//! where they are not installed (`.ci/run` installs them).

mod support;

/// The activity `toolsmith serve` records and shows: the live page on HTTP and beside
/// stdio, the SQLite store, `toolsmith activity`.
mod activity {
    mod approval;
    mod approval_browser;
    mod bash_browser;
    mod serve;
    mod stdio;
}

/// The `toolsmith` command line and the examples, run as programs.
mod cli {
    mod agents;
    mod aliases;
    mod background;
    mod commands;
    mod config;
    mod config_found;
    mod examples;
    mod hidden;
    mod media;
    mod plan;
    mod sandbox;
    mod seeds;
    mod shell;
    mod stop;
    mod suggested;
    mod terminal;
    mod tools;
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

/// The MCP server driven by real clients, by `toolsmith serve` (every frame answered), and
/// over sessions.
mod mcp {
    mod approval;
    mod approval_replicas;
    mod clients;
    mod frames;
    #[cfg(unix)]
    mod fuzz;
    mod guarded;
    mod identity;
    mod listing;
    mod memory;
    mod own_server;
    #[cfg(unix)]
    mod principals;
    mod replicas;
    mod selection;
    mod serve;
    mod sessions;
    mod state;
}

/// Call spans and logs: the GenAI conventions through an in-memory exporter, a real OTLP
/// exchange, and JSON log lines.
#[cfg(feature = "otel")]
mod trace {
    mod logs;
    mod otlp;
    mod spans;
}

/// Provider formats for every tool linked into the facade.
#[cfg(feature = "std")]
mod providers {
    mod export;
    mod property;
    mod roundtrip;
    mod typescript;
}
