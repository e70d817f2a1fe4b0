//! How much of what a stdio client sent is served at once: a budget of bytes for the requests
//! that have not been answered yet, so that a client sending faster than the tools answer
//! cannot grow the server's memory without bound.
//!
//! A request takes its frame's length plus [`REQUEST_COST`] from the budget when it is handed
//! to rmcp, and gives it back when its answer is written (or when the client cancels it, after
//! which MCP sends no answer). While the budget is spent, the next frame is not read: the
//! client's writes wait, as a pipe's do.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use super::frames::Track;

/// The most bytes of requests a stdio session serves at once.
pub const MAX_IN_FLIGHT_BYTES: usize = 32 * 1024 * 1024;

/// What a request costs beyond its frame: its task, its call's state. With the budget, at
/// most 2,048 requests are served at once.
pub(crate) const REQUEST_COST: usize = 16 * 1024;

/// The budget is counted in KiB (a semaphore's permits are a `u32`).
const UNIT: usize = 1024;

/// The requests being served, by id (as JSON text), and the budget they hold.
pub(crate) struct InFlight {
    budget: Arc<Semaphore>,
    total: u32,
    held: Mutex<HashMap<String, Vec<OwnedSemaphorePermit>>>,
}

impl InFlight {
    /// A budget of [`MAX_IN_FLIGHT_BYTES`].
    pub(crate) fn new() -> Arc<InFlight> {
        Self::with_budget(MAX_IN_FLIGHT_BYTES)
    }

    /// A budget of `bytes`.
    pub(crate) fn with_budget(bytes: usize) -> Arc<InFlight> {
        let total = u32::try_from(bytes / UNIT).unwrap_or(u32::MAX).max(1);
        Arc::new(InFlight {
            budget: Arc::new(Semaphore::new(total as usize)),
            total,
            held: Mutex::new(HashMap::new()),
        })
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<OwnedSemaphorePermit>>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for room for the request `id` of `len` bytes, and holds it until
    /// [`answered`](Self::answered). A request larger than the whole budget waits for all of
    /// it.
    pub(crate) async fn admit(&self, id: String, len: usize) {
        let units = ((len + REQUEST_COST) / UNIT).max(1);
        let units = u32::try_from(units).unwrap_or(u32::MAX).min(self.total);
        // The semaphore is never closed.
        if let Ok(permit) = self.budget.clone().acquire_many_owned(units).await {
            self.held().entry(id).or_default().push(permit);
        }
    }

    /// The request `id` was answered (or cancelled): its room is free again.
    pub(crate) fn answered(&self, id: &str) {
        let mut held = self.held();
        if let Some(permits) = held.get_mut(id) {
            permits.pop();
            if permits.is_empty() {
                held.remove(id);
            }
        }
    }

    /// How many requests are being served.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.held().values().map(Vec::len).sum()
    }
}

/// Hands rmcp the frames from `next` in order, each request once `inflight` has room for it.
/// While a request waits, frames that need no room (responses to the server, notifications,
/// cancellations) go on; a second request waits for the first. Returns when `next` ends or
/// rmcp stops reading.
pub(crate) async fn forward_admitted<W: AsyncWrite + Unpin>(
    mut next: mpsc::Receiver<(Track, Vec<u8>)>,
    mut to_rmcp: W,
    inflight: Arc<InFlight>,
) {
    // A request read while another waited: it waits next.
    let mut queued: Option<(String, Vec<u8>)> = None;
    loop {
        let (id, line) = match queued.take() {
            Some(request) => request,
            None => match next.recv().await {
                None => return,
                Some((Track::Request(id), line)) => (id, line),
                Some((track, line)) => {
                    if !forward(&mut to_rmcp, &track, &line, &inflight).await {
                        return;
                    }
                    continue;
                }
            },
        };
        let admit = inflight.admit(id.clone(), line.len());
        tokio::pin!(admit);
        let mut open = true;
        loop {
            tokio::select! {
                biased;
                () = &mut admit => break,
                got = next.recv(), if open && queued.is_none() => match got {
                    None => open = false,
                    Some((Track::Request(other), l)) => queued = Some((other, l)),
                    Some((track, l)) => {
                        if !forward(&mut to_rmcp, &track, &l, &inflight).await {
                            return;
                        }
                    }
                },
            }
        }
        if !forward(&mut to_rmcp, &Track::Request(id), &line, &inflight).await {
            return;
        }
        if !open && queued.is_none() {
            return;
        }
    }
}

/// Writes one frame to rmcp; `false` when rmcp no longer reads.
async fn forward<W: AsyncWrite + Unpin>(
    to_rmcp: &mut W,
    track: &Track,
    line: &[u8],
    inflight: &InFlight,
) -> bool {
    if to_rmcp.write_all(line).await.is_err()
        || to_rmcp.write_all(b"\n").await.is_err()
        || to_rmcp.flush().await.is_err()
    {
        return false;
    }
    if let Track::Cancel(id) = track {
        inflight.answered(id);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_spent_budget_holds_the_next_request_until_an_answer() {
        let inflight = InFlight::with_budget(80 * 1024);
        let soon = |f| tokio::time::timeout(Duration::from_secs(5), f);
        soon(inflight.admit("1".into(), 20 * 1024)).await.unwrap();
        soon(inflight.admit("2".into(), 20 * 1024)).await.unwrap();
        assert_eq!(inflight.len(), 2);
        // 2 x 36 KiB spent of 80: a third (16 KiB) waits.
        let third = {
            let inflight = inflight.clone();
            tokio::spawn(async move { inflight.admit("3".into(), 1).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!third.is_finished());
        inflight.answered("1");
        tokio::time::timeout(Duration::from_secs(5), third)
            .await
            .expect("admitted once room is free")
            .unwrap();
        assert_eq!(inflight.len(), 2);
        // An answer to an unknown id frees nothing; a request over the whole budget waits for
        // all of it.
        inflight.answered("9");
        inflight.answered("2");
        inflight.answered("3");
        soon(inflight.admit("big".into(), 1 << 30)).await.unwrap();
        assert_eq!(inflight.len(), 1);
    }

    // The calls holding the budget wait for the user's answer (a response to the server's own
    // request); that answer, sent after the next request, must still reach rmcp, or nothing
    // ever frees the budget.
    #[tokio::test]
    async fn responses_pass_a_request_waiting_for_room() {
        use tokio::io::AsyncBufReadExt;
        let inflight = InFlight::with_budget(REQUEST_COST + 1024);
        let (tx, rx) = mpsc::channel(1);
        let (to_rmcp, from_forwarder) = tokio::io::duplex(1 << 16);
        let forwarder = tokio::spawn(forward_admitted(rx, to_rmcp, inflight.clone()));
        let mut lines = tokio::io::BufReader::new(from_forwarder).lines();
        macro_rules! next {
            () => {
                tokio::time::timeout(Duration::from_secs(5), lines.next_line())
                    .await
                    .expect("a line in time")
                    .unwrap()
                    .expect("a line")
            };
        }
        let frame = |track, text: &str| (track, text.as_bytes().to_vec());
        tx.send(frame(Track::Request("1".into()), "call 1"))
            .await
            .unwrap();
        assert_eq!(next!(), "call 1");
        // The budget is spent: call 2 waits, and the answer behind it goes through.
        tx.send(frame(Track::Request("2".into()), "call 2"))
            .await
            .unwrap();
        tx.send(frame(Track::Nothing, "answer to the server"))
            .await
            .unwrap();
        assert_eq!(next!(), "answer to the server");
        // A third request waits behind the second, and nothing more is read meanwhile.
        tx.send(frame(Track::Request("3".into()), "call 3"))
            .await
            .unwrap();
        tx.send(frame(Track::Nothing, "later")).await.unwrap();
        assert!(
            tokio::time::timeout(Duration::from_millis(100), lines.next_line())
                .await
                .is_err()
        );
        inflight.answered("1");
        assert_eq!(next!(), "call 2");
        // Call 3 now waits in turn, and what needs no room passes it.
        assert_eq!(next!(), "later");
        inflight.answered("2");
        assert_eq!(next!(), "call 3");
        drop(tx);
        tokio::time::timeout(Duration::from_secs(5), forwarder)
            .await
            .expect("the forwarder ends with its input")
            .unwrap();
    }

    #[tokio::test]
    async fn a_reused_id_holds_room_for_each_request() {
        let inflight = InFlight::with_budget(1 << 20);
        inflight.admit("7".into(), 10).await;
        inflight.admit("7".into(), 10).await;
        inflight.answered("7");
        assert_eq!(inflight.len(), 1);
        inflight.answered("7");
        assert_eq!(inflight.len(), 0);
    }
}
