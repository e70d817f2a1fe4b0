//! Fetching and searching against a loopback server, and the `web` tool through the runtime.

mod fetch;
mod search;
mod tool;
