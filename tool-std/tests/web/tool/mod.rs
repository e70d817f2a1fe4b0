//! The `web` tool through the runtime: its spec, `search`, `fetch`, and its errors.

mod errors;
mod fetch;
mod search;
mod spec;
