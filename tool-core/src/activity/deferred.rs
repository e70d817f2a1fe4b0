//! Calls whose question is answered by a later call ([`ApprovalDecision::Defer`], MCP
//! 2026-07-28's `input_required` round): each one's record waits `awaiting_approval` with a
//! timer that ends it, unanswered, when the question expires, unless the call bringing the
//! answer takes it first ([`Deferrals::take`]). What still waits when the runtime goes ends
//! then ("the server stopped before the user answered").
//!
//! [`ApprovalDecision::Defer`]: crate::ApprovalDecision::Defer

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use super::{ActivityUpdate, Conversation};
use crate::context::Host;
use crate::error::{ErrorKind, ToolError};
use crate::events::{Event, EventData, EventKind};

/// The most calls one runtime keeps waiting for an answer that comes with a later call; past
/// it, a deferred call's record ends at once, unanswered.
pub const MAX_DEFERRED_CALLS: usize = 10_000;

/// One record waiting for the call that brings its answer.
struct Waiting {
    tool: Arc<str>,
    conversation: Option<Arc<Conversation>>,
    /// Ends the record when the question expires (none outside a tokio runtime).
    timer: Option<tokio::task::AbortHandle>,
}

/// The records of one runtime waiting for an answer from a later call.
#[derive(Default)]
pub(crate) struct Deferrals {
    waiting: Mutex<HashMap<Arc<str>, Waiting>>,
}

impl Deferrals {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Waiting>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps the record `id` of `host` waiting until `expires_at_ms`; when it is still
    /// waiting then, it ends `failure`, unanswered, with its ERROR. Past
    /// [`MAX_DEFERRED_CALLS`] it ends now.
    pub(crate) fn wait(
        host: &Arc<Host>,
        id: Arc<str>,
        tool: Arc<str>,
        conversation: Option<Arc<Conversation>>,
        expires_at_ms: u64,
    ) {
        let mut waiting = Waiting {
            tool,
            conversation,
            timer: None,
        };
        if host.deferred.lock().len() >= MAX_DEFERRED_CALLS {
            end(
                host,
                &id,
                &waiting,
                "too many calls are waiting for their user's answer",
            );
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let wait = Duration::from_millis(expires_at_ms.saturating_sub(crate::events::now_ms()));
            let (weak, key) = (Arc::downgrade(host), id.clone());
            let task = runtime.spawn(async move {
                tokio::time::sleep(wait).await;
                expire(&weak, &key);
            });
            waiting.timer = Some(task.abort_handle());
        }
        let old = host.deferred.lock().insert(id, waiting);
        if let Some(timer) = old.and_then(|old| old.timer) {
            timer.abort();
        }
    }

    /// The call that brings the answer to `id`'s question takes it: its timer stops. Whether
    /// the question was asked here (else another process sharing the store asked it).
    pub(crate) fn take(&self, id: &str) -> bool {
        match self.lock().remove(id) {
            Some(waiting) => {
                if let Some(timer) = waiting.timer {
                    timer.abort();
                }
                true
            }
            None => false,
        }
    }

    /// Ends every record still waiting: the runtime is going.
    pub(crate) fn end_all(host: &Host) {
        let waiting: Vec<(Arc<str>, Waiting)> = host.deferred.lock().drain().collect();
        for (id, waiting) in waiting {
            if let Some(timer) = &waiting.timer {
                timer.abort();
            }
            end(
                host,
                &id,
                &waiting,
                "the server stopped before the user answered",
            );
        }
    }
}

/// The question of `id` expired: ends its record if nothing took it.
fn expire(host: &Weak<Host>, id: &str) {
    let Some(host) = host.upgrade() else {
        return;
    };
    let waiting = host.deferred.lock().remove(id);
    if let Some(waiting) = waiting {
        end(
            &host,
            id,
            &waiting,
            "the user did not answer before the question expired",
        );
    }
}

/// Ends the waiting record `id` `failure` (if it still waits: a call continuing it in
/// another process is not ended here) and emits its ERROR.
fn end(host: &Host, id: &str, waiting: &Waiting, why: &str) {
    let error = ToolError::new(
        ErrorKind::ApprovalDenied,
        format!("the call was not approved: {why}"),
    )
    .with_suggestion("Call again to be asked anew.");
    host.activities.update(
        id,
        ActivityUpdate::Unanswered {
            error: error.full_message(),
        },
    );
    if host.events.wants(EventKind::Error) {
        let data = EventData::Error {
            error: error.to_json(),
        };
        let event = Event::new(EventKind::Error, id, &*waiting.tool, data)
            .with_conversation(waiting.conversation.clone());
        host.events.emit(event);
    }
}
