//! The replicas' leases, the closing of dead replicas' calls, and the listening connection.

use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use deadpool_postgres::Object;
use futures_util::StreamExt;
use tokio_postgres::{AsyncMessage, NoTls};

use super::{PostgresError, PostgresStore, rows};
use crate::activity::ABANDONED;

/// The channel writes are announced on; the payload is the write's change number.
pub(super) const CHANNEL: &str = "toolsmith_activity";

/// The most records one round of closing takes.
const MAX_CLOSED_PER_ROUND: i64 = 1000;

/// This replica's name: the host, the process id and a random part (two replicas of one
/// process are two names).
pub(super) fn name() -> String {
    let host = host_name();
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    format!("{host}:{}:{:08x}", std::process::id(), h.finish() as u32)
}

fn host_name() -> String {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let name = read("/proc/sys/kernel/hostname")
        .or_else(|| read("/etc/hostname"))
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default();
    let name: String = name
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
        .take(64)
        .collect();
    if name.is_empty() {
        "host".to_owned()
    } else {
        name
    }
}

fn lease_ms(lease: Duration) -> i64 {
    i64::try_from(lease.as_millis()).unwrap_or(i64::MAX)
}

/// Takes (or renews) `replica`'s lease.
pub(super) async fn register(
    client: &Object,
    replica: &str,
    lease: Duration,
) -> Result<(), PostgresError> {
    client
        .execute(
            "INSERT INTO toolsmith_replicas (replica, host, pid, lease_ms) VALUES ($1, $2, $3, $4)
             ON CONFLICT (replica) DO UPDATE SET heartbeat_at = now(), lease_ms = excluded.lease_ms",
            &[
                &replica,
                &host_name(),
                &i64::from(std::process::id()),
                &lease_ms(lease),
            ],
        )
        .await
        .map_err(|e| PostgresError::query("taking the replica's lease", e))?;
    Ok(())
}

/// Gives `replica`'s lease back.
pub(super) async fn release(client: &Object, replica: &str) {
    let _ = client
        .execute(
            "DELETE FROM toolsmith_replicas WHERE replica = $1",
            &[&replica],
        )
        .await;
}

/// Closes, as `failure` with [`ABANDONED`], the open records of replicas whose lease has run
/// out (or was given back), at most [`MAX_CLOSED_PER_ROUND`]; how many. Expired leases long
/// gone by are removed.
pub(super) async fn close_abandoned(client: &mut Object) -> Result<u64, PostgresError> {
    let q = |e| PostgresError::query("closing the calls of stopped replicas", e);
    let tx = client.transaction().await.map_err(q)?;
    let seqs: Vec<i64> = tx
        .query(
            "SELECT a.seq FROM toolsmith_activity a
             WHERE a.status IN ('awaiting_approval', 'in_progress')
               AND NOT EXISTS (
                   SELECT 1 FROM toolsmith_replicas r
                   WHERE r.replica = a.process
                     AND r.heartbeat_at > now() - r.lease_ms * interval '1 millisecond')
             ORDER BY a.seq LIMIT $1
             FOR UPDATE SKIP LOCKED",
            &[&MAX_CLOSED_PER_ROUND],
        )
        .await
        .map_err(q)?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut closed = 0;
    if !seqs.is_empty() {
        let change = rows::next_change(&*tx).await?;
        closed = tx
            .execute(
                "UPDATE toolsmith_activity SET status = 'failure', error = $1,
                     finished_at_ms = $2, changed = $3
                 WHERE seq = ANY($4) AND status IN ('awaiting_approval', 'in_progress')",
                &[
                    &ABANDONED,
                    &(crate::events::now_ms() as i64),
                    &(change as i64),
                    &seqs,
                ],
            )
            .await
            .map_err(q)?;
        rows::notify(&*tx, change).await?;
    }
    tx.execute(
        "DELETE FROM toolsmith_replicas
         WHERE heartbeat_at < now() - 10 * lease_ms * interval '1 millisecond'",
        &[],
    )
    .await
    .map_err(q)?;
    tx.commit().await.map_err(q)?;
    Ok(closed)
}

/// Renews the lease and closes dead replicas' calls every third of the lease, until the
/// store is closed or dropped.
pub(super) fn spawn_lease(store: &PostgresStore) {
    let weak = std::sync::Arc::downgrade(&store.inner);
    let stop = store.stopped().clone();
    let every = store.inner.config.lease / 3;
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                _ = tick.tick() => {}
            }
            let Some(inner) = weak.upgrade() else { return };
            let store = PostgresStore { inner };
            let Ok(mut client) = store.client().await else {
                continue;
            };
            if register(&client, store.replica(), store.inner.config.lease)
                .await
                .is_err()
            {
                continue;
            }
            match close_abandoned(&mut client).await {
                Ok(0) => {}
                Ok(n) => tracing::warn!(
                    target: "toolsmith::activity",
                    closed = n,
                    "closed {n} calls of replicas that stopped without closing them"
                ),
                Err(e) => tracing::debug!(target: "toolsmith::activity", "{e}"),
            }
        }
    });
}

/// Listens on [`CHANNEL`] on a connection of its own, outside the pool, and publishes each
/// notified change number (and, after a reconnection, the counter as it stands, so that a
/// reader catches up with what it missed) to [`PostgresStore`]'s change watch.
pub(super) fn spawn_listener(store: &PostgresStore) {
    let weak = std::sync::Arc::downgrade(&store.inner);
    let stop = store.stopped().clone();
    let pg = store.inner.pg.clone();
    let server = store.inner.server.clone();
    tokio::spawn(async move {
        let mut backoff = Duration::from_millis(100);
        let mut was_down = false;
        loop {
            if stop.is_cancelled() {
                return;
            }
            let connected = tokio::select! {
                () = stop.cancelled() => return,
                c = pg.connect(NoTls) => c,
            };
            let (client, mut connection) = match connected {
                Ok(pair) => pair,
                Err(e) => {
                    if !was_down {
                        tracing::debug!(
                            target: "toolsmith::activity",
                            server = %server,
                            "the listening connection is down: {}",
                            super::error::driver_message(&e)
                        );
                        was_down = true;
                    }
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                    continue;
                }
            };
            // The connection's messages (the notifications among them) come from polling it;
            // each notified number goes straight to the watch (nothing queues in between).
            let notified = weak.clone();
            let mut pump = tokio::spawn(async move {
                let mut messages =
                    futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                while let Some(Ok(message)) = messages.next().await {
                    if let AsyncMessage::Notification(n) = message {
                        let Some(inner) = notified.upgrade() else {
                            return;
                        };
                        if let Ok(change) = n.payload().parse::<u64>() {
                            inner.changes.send_modify(|v| *v = (*v).max(change));
                        }
                    }
                }
            });
            let listening = client.batch_execute(&format!("LISTEN {CHANNEL}")).await;
            let head = rows::counter_of(&client).await;
            if let (Ok(()), Ok(head), Some(inner)) = (listening, head, weak.upgrade()) {
                backoff = Duration::from_millis(100);
                was_down = false;
                // Whatever happened while not listening is behind the counter now.
                inner.changes.send_modify(|v| *v = (*v).max(head));
                drop(inner);
                // Listening until the connection ends or the store stops.
                tokio::select! {
                    () = stop.cancelled() => { pump.abort(); return; }
                    _ = &mut pump => {}
                }
            }
            pump.abort();
            tokio::time::sleep(backoff).await;
        }
    });
}
