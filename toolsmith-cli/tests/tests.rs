//! The `toolsmith` command's integration tests, in one test binary: the built command run as a
//! program (`toolsmith serve` on stdio and HTTP, the other subcommands), a module per
//! behaviour, grouped by area, and the helpers they share in [`support`].
//!
//! Some tests drive real programs (Chromium, the Python `mcp` client, the MCP Inspector,
//! TypeScript's compiler) and skip, saying why, where they are not installed (`.ci/run`
//! installs them).

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

/// The `toolsmith` command line, run as a program.
mod cli {
    mod agents;
    mod aliases;
    mod background;
    mod code;
    mod commands;
    mod config;
    mod config_found;
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
    #[cfg(unix)]
    mod principals;
    mod replicas;
    mod selection;
    mod serve;
    mod sessions;
    mod shared_store;
    mod state;
}

/// What `toolsmith serve` traces and logs: a real OTLP exchange, and JSON log lines.
mod trace {
    mod logs;
    mod otlp;
}

/// `toolsmith list --format typescript` checked by TypeScript's own compiler.
mod providers {
    mod typescript;
}
