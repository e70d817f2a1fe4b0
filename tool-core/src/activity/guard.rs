//! [`ActivityGuard`]: a call's open activity record, closed on every exit.

use std::sync::Arc;

use serde_json::Value;

use super::{ActivityStart, ActivityStatus, ActivityStore, ActivityUpdate, Allowed, Conversation};
use crate::error::ToolError;
use crate::events::{Event, EventData, EventKind, EventStream};
use crate::output::ToolOutput;

/// A call's activity record while it is `in_progress`. [`open`](Self::open) records it and
/// emits `TOOL_CALL_START`; [`succeed`](Self::succeed) or [`fail`](Self::fail) records the end
/// and emits `TOOL_CALL_END` or `ERROR`; dropped unfinished, the call was abandoned: the
/// record ends `failure` ("the call was abandoned before it finished") and `ERROR` is
/// emitted. The store's write side and the event stream never wait, so `Drop` can do that.
pub(crate) struct ActivityGuard<'a> {
    store: &'a dyn ActivityStore,
    events: &'a EventStream,
    id: Arc<str>,
    tool: Arc<str>,
    conversation: Option<Arc<Conversation>>,
    /// Cleared once the record is finished.
    open: bool,
}

impl<'a> ActivityGuard<'a> {
    /// Records `start` (`in_progress`, or `awaiting_approval`) and emits its START.
    pub(crate) fn open(
        store: &'a dyn ActivityStore,
        events: &'a EventStream,
        start: ActivityStart,
    ) -> Self {
        Self::opened(store, events, start, true, |store, start| {
            store.begin(start)
        })
    }

    /// Records `start` as `awaiting_approval`, and emits its START and AWAITING_APPROVAL
    /// (what asks, and what "allow for this session" would grant).
    pub(crate) fn open_awaiting(
        store: &'a dyn ActivityStore,
        events: &'a EventStream,
        mut start: ActivityStart,
        asked_by: String,
        scope: Vec<String>,
    ) -> Self {
        start.status = ActivityStatus::AwaitingApproval;
        let guard = Self::open(store, events, start);
        guard.emit(EventKind::AwaitingApproval, || EventData::Awaiting {
            asked_by,
            scope,
        });
        guard
    }

    /// Goes on with the record `start.id`, awaiting approval since an earlier call asked
    /// ([`ActivityStore::resume`]); emits START again when that call's was not emitted here
    /// (`announce`: another process asked).
    pub(crate) fn resume(
        store: &'a dyn ActivityStore,
        events: &'a EventStream,
        mut start: ActivityStart,
        announce: bool,
    ) -> Self {
        start.status = ActivityStatus::AwaitingApproval;
        Self::opened(store, events, start, announce, |store, start| {
            store.resume(start)
        })
    }

    fn opened(
        store: &'a dyn ActivityStore,
        events: &'a EventStream,
        start: ActivityStart,
        announce: bool,
        keep: impl FnOnce(&dyn ActivityStore, ActivityStart),
    ) -> Self {
        let (id, tool) = (start.id.clone(), start.name.clone());
        let conversation = start.conversation.clone();
        let event = (announce && events.wants(EventKind::ToolCallStart)).then(|| {
            let arguments = start.input();
            Event::new(
                EventKind::ToolCallStart,
                &*id,
                &*tool,
                EventData::Start { arguments },
            )
            .with_conversation(conversation.clone())
        });
        keep(store, start);
        if let Some(event) = event {
            events.emit(event);
        }
        ActivityGuard {
            store,
            events,
            id,
            tool,
            conversation,
            open: true,
        }
    }

    /// The call waiting for approval was allowed: the record runs (`in_progress`) and says
    /// how; APPROVED is emitted.
    pub(crate) fn approved(&self, allowed: Allowed) {
        let event = allowed.clone();
        self.store
            .update(&self.id, ActivityUpdate::Approved(allowed));
        self.emit(EventKind::Approved, || EventData::Approved {
            allowed: event,
        });
    }

    /// The call ends, but its record stays `awaiting_approval` for the call that brings the
    /// answer ([`ApprovalDecision::Defer`](crate::ApprovalDecision::Defer)): no END now.
    pub(crate) fn defer(mut self) {
        self.open = false;
    }

    fn emit(&self, kind: EventKind, data: impl FnOnce() -> EventData) {
        if self.events.wants(kind) {
            let event = Event::new(kind, &*self.id, &*self.tool, data())
                .with_conversation(self.conversation.clone());
            self.events.emit(event);
        }
    }

    /// Finishes the record with a successful call's `output` and emits END.
    pub(crate) fn succeed(mut self, output: &ToolOutput) {
        self.open = false;
        let end = self
            .events
            .wants(EventKind::ToolCallEnd)
            .then(|| EventData::End {
                success: output.is_success(),
                result: output.to_value().unwrap_or(Value::Null),
                status_line: output.status(),
                preview: Some(super::result_preview(output)),
                error: output.failure(),
            });
        self.store.succeed(&self.id, output);
        if let Some(data) = end {
            let event = Event::new(EventKind::ToolCallEnd, &*self.id, &*self.tool, data)
                .with_conversation(self.conversation.clone());
            self.events.emit(event);
        }
    }

    /// Finishes the record `failure` with `error` and emits ERROR.
    pub(crate) fn fail(mut self, error: &ToolError) {
        self.close_failed(error);
    }

    fn close_failed(&mut self, error: &ToolError) {
        self.open = false;
        let update = ActivityUpdate::Finish {
            status: ActivityStatus::Failure,
            data: None,
            error: Some(error.full_message()),
        };
        self.store.update(&self.id, update);
        if self.events.wants(EventKind::Error) {
            let data = EventData::Error {
                error: error.to_json(),
            };
            let event = Event::new(EventKind::Error, &*self.id, &*self.tool, data)
                .with_conversation(self.conversation.clone());
            self.events.emit(event);
        }
    }
}

impl Drop for ActivityGuard<'_> {
    fn drop(&mut self) {
        if self.open {
            self.close_failed(&ToolError::abandoned());
        }
    }
}
