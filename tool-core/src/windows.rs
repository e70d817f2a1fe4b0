//! [`RateWindows`]: limits counted in rolling windows that several processes can share.

use std::time::Duration;

use async_trait::async_trait;

/// What [`RateWindows::take`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateDecision {
    /// The event was counted.
    Allowed,
    /// The window is full; one event leaves it in `retry_in`.
    Refused {
        /// How long until the next event would be allowed.
        retry_in: Duration,
    },
}

/// Counts events in rolling windows kept where several processes see them (a database), so
/// that a limit such as "10 searches a minute" holds for a whole deployment rather than per
/// replica. `tool_std`'s search window uses one when given; the Postgres store
/// (`postgres::PostgresStore`, feature `postgres`) is one.
#[async_trait]
pub trait RateWindows: Send + Sync + std::fmt::Debug + 'static {
    /// Counts one event under `key` now, if fewer than `limit` were counted under it in the
    /// last `window`; else says how long until one leaves the window. `Err` says why the
    /// count could not be reached (the caller decides whether to fall back).
    async fn take(&self, key: &str, limit: usize, window: Duration)
    -> Result<RateDecision, String>;
}
