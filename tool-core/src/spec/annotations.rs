//! Behaviour hints a client may show or act on: [`Annotations`].

use serde::{Deserialize, Serialize};

/// Behaviour hints a client may show or act on (MCP's tool annotations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Annotations {
    /// The tool does not change its environment.
    pub read_only: bool,
    /// The tool may destroy or overwrite data.
    pub destructive: bool,
    /// Calling it again with the same arguments has no further effect.
    pub idempotent: bool,
    /// The tool reaches an open world (the web) rather than a closed domain.
    pub open_world: bool,
}

impl Annotations {
    /// No hint set.
    pub const fn new() -> Self {
        Annotations {
            read_only: false,
            destructive: false,
            idempotent: false,
            open_world: false,
        }
    }
    /// Sets `read_only`.
    pub const fn read_only(mut self, v: bool) -> Self {
        self.read_only = v;
        self
    }
    /// Sets `destructive`.
    pub const fn destructive(mut self, v: bool) -> Self {
        self.destructive = v;
        self
    }
    /// Sets `idempotent`.
    pub const fn idempotent(mut self, v: bool) -> Self {
        self.idempotent = v;
        self
    }
    /// Sets `open_world`.
    pub const fn open_world(mut self, v: bool) -> Self {
        self.open_world = v;
        self
    }
}
