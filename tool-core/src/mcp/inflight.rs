//! How much of what a stdio client sent is served at once: a budget of bytes for the requests
//! that have not been answered yet, so that a client sending faster than the tools answer
//! cannot grow the server's memory without bound.
//!
//! A request takes its frame's length plus [`REQUEST_COST`] from the budget when the
//! transport ([`super::lines`]) hands it to rmcp, and gives it back when its answer is written
//! (or when the client cancels it, after which MCP sends no answer). While the budget is
//! spent, the transport reads no further request: the client's writes wait, as a pipe's do.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::RequestId;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The most bytes of requests a stdio session serves at once.
pub const MAX_IN_FLIGHT_BYTES: usize = 32 * 1024 * 1024;

/// What a request costs beyond its frame: its task, its call's state. With the budget, at
/// most 2,048 requests are served at once.
pub(crate) const REQUEST_COST: usize = 16 * 1024;

/// The budget is counted in KiB (a semaphore's permits are a `u32`).
const UNIT: usize = 1024;

/// The requests being served, by id, and the budget they hold.
pub(crate) struct InFlight {
    budget: Arc<Semaphore>,
    total: u32,
    held: Mutex<HashMap<RequestId, Vec<OwnedSemaphorePermit>>>,
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

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Vec<OwnedSemaphorePermit>>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The budget units a request of `len` bytes takes.
    fn units(&self, len: usize) -> u32 {
        let units = (len.saturating_add(REQUEST_COST) / UNIT).max(1);
        u32::try_from(units).unwrap_or(u32::MAX).min(self.total)
    }

    /// Holds room for the request `id` of `len` bytes until [`answered`](Self::answered), if
    /// there is room now.
    pub(crate) fn try_admit(&self, id: &RequestId, len: usize) -> bool {
        match self.budget.clone().try_acquire_many_owned(self.units(len)) {
            Ok(permit) => {
                self.hold(id, permit);
                true
            }
            Err(_) => false,
        }
    }

    /// Waits for room for the request `id` of `len` bytes, and holds it until
    /// [`answered`](Self::answered). A request larger than the whole budget waits for all of
    /// it. Cancel-safe: dropped before it returns, it holds nothing.
    pub(crate) async fn admit(&self, id: &RequestId, len: usize) {
        // The semaphore is never closed.
        if let Ok(permit) = self
            .budget
            .clone()
            .acquire_many_owned(self.units(len))
            .await
        {
            self.hold(id, permit);
        }
    }

    fn hold(&self, id: &RequestId, permit: OwnedSemaphorePermit) {
        self.held().entry(id.clone()).or_default().push(permit);
    }

    /// The request `id` was answered (or cancelled): its room is free again.
    pub(crate) fn answered(&self, id: &RequestId) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn id(n: i64) -> RequestId {
        RequestId::Number(n)
    }

    #[tokio::test]
    async fn a_spent_budget_holds_the_next_request_until_an_answer() {
        let inflight = InFlight::with_budget(80 * 1024);
        tokio::time::timeout(Duration::from_secs(5), inflight.admit(&id(1), 20 * 1024))
            .await
            .unwrap();
        tokio::time::timeout(Duration::from_secs(5), inflight.admit(&id(2), 20 * 1024))
            .await
            .unwrap();
        assert_eq!(inflight.len(), 2);
        // 2 x 36 KiB spent of 80: a third (16 KiB) waits.
        let third = {
            let inflight = inflight.clone();
            tokio::spawn(async move { inflight.admit(&id(3), 1).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!third.is_finished());
        inflight.answered(&id(1));
        tokio::time::timeout(Duration::from_secs(5), third)
            .await
            .expect("admitted once room is free")
            .unwrap();
        assert_eq!(inflight.len(), 2);
        // An answer to an unknown id frees nothing; a request over the whole budget waits for
        // all of it.
        inflight.answered(&id(9));
        inflight.answered(&id(2));
        inflight.answered(&id(3));
        tokio::time::timeout(
            Duration::from_secs(5),
            inflight.admit(&RequestId::String("big".into()), 1 << 30),
        )
        .await
        .unwrap();
        assert_eq!(inflight.len(), 1);
        // Nothing is left for another request, which `try_admit` says without waiting.
        assert!(!inflight.try_admit(&id(10), 1));
        inflight.answered(&RequestId::String("big".into()));
        assert!(inflight.try_admit(&id(10), 1));
    }

    #[tokio::test]
    async fn a_reused_id_holds_room_for_each_request() {
        let inflight = InFlight::with_budget(1 << 20);
        inflight.admit(&id(7), 10).await;
        inflight.admit(&id(7), 10).await;
        inflight.answered(&id(7));
        assert_eq!(inflight.len(), 1);
        inflight.answered(&id(7));
        assert_eq!(inflight.len(), 0);
    }
}
