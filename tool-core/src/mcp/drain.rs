//! Stopping well: when [`ServeOptions::shutdown`](super::ServeOptions::shutdown) fires, the
//! server stops taking calls, ends the calls it runs (their tools see the cancellation, `bash`
//! ends its process group) and answers each with [`ToolError::server_stopping`], then waits
//! until every call has answered (at most [`DRAIN_TIMEOUT`]) before it closes its transport.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// The longest a stopping server waits for its calls to answer before it closes its
/// transport anyway.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(8);

/// How long a drained server leaves its last answers to be written before it closes its
/// transport: the answer of a call leaves its handler a moment before the transport has
/// written it.
pub(crate) const ANSWER_GRACE: Duration = Duration::from_millis(100);

/// The calls a server is running, and whether it is stopping.
#[derive(Debug)]
pub(crate) struct Drain {
    stopping: CancellationToken,
    running: AtomicUsize,
    idle: Notify,
}

/// One call counted as running until dropped.
pub(crate) struct Running(Arc<Drain>);

impl Drop for Running {
    fn drop(&mut self) {
        if self.0.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

impl Drain {
    /// A drain that starts stopping when `stopping` is cancelled.
    pub(crate) fn new(stopping: CancellationToken) -> Arc<Drain> {
        Arc::new(Drain {
            stopping,
            running: AtomicUsize::new(0),
            idle: Notify::new(),
        })
    }

    /// Counts a call as running; `None` once the server is stopping (the call is refused).
    pub(crate) fn enter(self: &Arc<Self>) -> Option<Running> {
        self.running.fetch_add(1, Ordering::AcqRel);
        let running = Running(self.clone());
        (!self.stopping.is_cancelled()).then_some(running)
    }

    /// Completes once the server is stopping.
    pub(crate) async fn stopping(&self) {
        self.stopping.cancelled().await;
    }

    /// Completes once the server is stopping and every call has answered, or `bound` after
    /// it began to stop; whether every call answered.
    pub(crate) async fn drained(&self, bound: Duration) -> bool {
        self.stopping.cancelled().await;
        let drained = self.idle(bound).await;
        tokio::time::sleep(ANSWER_GRACE).await;
        drained
    }

    /// Completes once no call runs, or after `bound`; whether none runs.
    pub(crate) async fn idle(&self, bound: Duration) -> bool {
        let idle = async {
            loop {
                let notified = self.idle.notified();
                if self.running.load(Ordering::Acquire) == 0 {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(bound, idle).await.is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_stopping_drain_refuses_calls_and_waits_for_the_running_ones() {
        let stop = CancellationToken::new();
        let drain = Drain::new(stop.clone());
        let first = drain.enter().expect("running");
        stop.cancel();
        assert!(drain.enter().is_none(), "no new call once stopping");
        let waiter = tokio::spawn({
            let drain = drain.clone();
            async move { drain.drained(Duration::from_secs(5)).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiter.is_finished(), "waits while a call runs");
        drop(first);
        assert!(waiter.await.expect("join"));

        let stop = CancellationToken::new();
        let stuck = Drain::new(stop.clone());
        let _never_ends = stuck.enter().expect("running");
        stop.cancel();
        assert!(!stuck.drained(Duration::from_millis(20)).await, "bounded");
    }
}
