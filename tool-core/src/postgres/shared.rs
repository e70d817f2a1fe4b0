//! The trust state replicas share: rate windows, and (with `mcp`) the approvals used.

use std::time::Duration;

use async_trait::async_trait;

use super::{PostgresError, PostgresStore};
use crate::windows::{RateDecision, RateWindows};

impl PostgresStore {
    /// Counts one event under `key` if fewer than `limit` were counted in the last `window`,
    /// on the database's clock, under a lock per key (see [`RateWindows`]). A key keeps at
    /// most `limit` rows: older ones are deleted as it is counted.
    pub async fn take_window(
        &self,
        key: &str,
        limit: usize,
        window: Duration,
    ) -> Result<RateDecision, PostgresError> {
        let q = |e| PostgresError::query("counting a rate window", e);
        let window_ms = i64::try_from(window.as_millis()).unwrap_or(i64::MAX).max(1);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(q)?;
        let now: i64 = tx
            .query_one(
                "SELECT pg_advisory_xact_lock(hashtextextended($1, 7)),
                        (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
                &[&key],
            )
            .await
            .map_err(q)?
            .get(1);
        tx.execute(
            "DELETE FROM toolsmith_rate_events WHERE key = $1 AND at_ms <= $2",
            &[&key, &now.saturating_sub(window_ms)],
        )
        .await
        .map_err(q)?;
        let row = tx
            .query_one(
                "SELECT count(*), min(at_ms) FROM toolsmith_rate_events WHERE key = $1",
                &[&key],
            )
            .await
            .map_err(q)?;
        let (count, oldest): (i64, Option<i64>) = (row.get(0), row.get(1));
        let decision = if count < limit {
            tx.execute(
                "INSERT INTO toolsmith_rate_events (key, at_ms) VALUES ($1, $2)",
                &[&key, &now],
            )
            .await
            .map_err(q)?;
            RateDecision::Allowed
        } else {
            let leaves = oldest.map_or(now + window_ms, |t| t.saturating_add(window_ms));
            RateDecision::Refused {
                retry_in: Duration::from_millis(leaves.saturating_sub(now).max(0) as u64),
            }
        };
        tx.commit().await.map_err(q)?;
        Ok(decision)
    }

    /// Records the approval state `nonce` as used until `expires` (seconds since the epoch):
    /// `true` the first time, `false` when any replica used it before. A bounded number of
    /// expired entries goes on each use.
    pub async fn use_approval(&self, nonce: &str, expires: u64) -> Result<bool, PostgresError> {
        let q = |e| PostgresError::query("recording a used approval", e);
        let client = self.client().await?;
        let expires = i64::try_from(expires).unwrap_or(i64::MAX);
        let fresh = client
            .execute(
                "INSERT INTO toolsmith_used_approvals (nonce, expires_at) VALUES ($1, $2)
                 ON CONFLICT (nonce) DO NOTHING",
                &[&nonce, &expires],
            )
            .await
            .map_err(q)?;
        // An entry stays a minute past its state's expiry, as the states' clocks may differ.
        client
            .execute(
                "DELETE FROM toolsmith_used_approvals WHERE nonce IN (
                     SELECT nonce FROM toolsmith_used_approvals
                     WHERE expires_at < extract(epoch FROM now())::bigint - 60
                     LIMIT 256)",
                &[],
            )
            .await
            .map_err(q)?;
        Ok(fresh == 1)
    }
}

#[async_trait]
impl RateWindows for PostgresStore {
    async fn take(
        &self,
        key: &str,
        limit: usize,
        window: Duration,
    ) -> Result<RateDecision, String> {
        self.take_window(key, limit, window)
            .await
            .map_err(|e| e.to_string())
    }
}

#[cfg(feature = "mcp")]
#[async_trait]
impl crate::mcp::UsedApprovalStore for PostgresStore {
    async fn consume(&self, nonce: &str, expires: u64) -> Result<bool, String> {
        self.use_approval(nonce, expires)
            .await
            .map_err(|e| e.to_string())
    }
}
