//! [`ActivityGuard`]: a call's open activity record, closed on every exit.

use std::sync::Arc;

use serde_json::Value;

use super::{ActivityStart, ActivityStatus, ActivityStore, ActivityUpdate, Conversation};
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
    /// Records `start` as `in_progress` and emits its START.
    pub(crate) fn open(
        store: &'a dyn ActivityStore,
        events: &'a EventStream,
        start: ActivityStart,
    ) -> Self {
        let (id, tool) = (start.id.clone(), start.name.clone());
        let conversation = start.conversation.clone();
        let event = events.wants(EventKind::ToolCallStart).then(|| {
            let arguments = start.input();
            Event::new(
                EventKind::ToolCallStart,
                &*id,
                &*tool,
                EventData::Start { arguments },
            )
            .with_conversation(conversation.clone())
        });
        store.begin(start);
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
