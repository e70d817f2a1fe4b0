//! A call's activity record on its way: opened when the call begins (or awaits approval),
//! told how the call was allowed, and finished in the one place every call ends,
//! [`Record::finish`].

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::watch;

use super::call::Target;
use super::turn::CallResult;
use crate::activity::{ActivityGuard, ActivityStart, Allowed, Deferrals};
use crate::approval::{ApprovalRequest, ApprovedBy};
use crate::call::{Arguments, signature_of_arguments};
use crate::context::Host;
use crate::registry::ToolEntry;

/// What a call has learned on its way (its tool, its arguments as the tool reads them, the
/// call that answers it) and its activity record once opened: what the one `finish` needs.
pub(super) struct Record<'a> {
    pub(super) host: &'a Arc<Host>,
    pub(super) id: &'a Arc<str>,
    /// The name as called, until the tool is resolved.
    pub(super) called: &'a str,
    pub(super) entry: Option<Arc<ToolEntry>>,
    pub(super) arguments: Arc<Arguments>,
    /// The earlier identical call that answers this one.
    pub(super) duplicate_of: Option<String>,
    /// Where identical calls of the turn wait for this one's result.
    pub(super) publish: Option<watch::Sender<Option<CallResult>>>,
    /// The open record: dropped unfinished (the call abandoned), it ends `failure`.
    pub(super) activity: Option<ActivityGuard<'a>>,
    /// The conversation the call belongs to.
    pub(super) conversation: Option<Arc<crate::activity::Conversation>>,
    /// How the call was allowed, when a rule or someone had to.
    pub(super) allowed: Option<Allowed>,
    /// When the call's question was asked (by this call, or by the earlier one it
    /// continues).
    pub(super) asked_at_ms: Option<u64>,
    /// The call goes on with an earlier call's record, awaiting approval
    /// ([`CallOptions::continues`]).
    pub(super) continues: bool,
    /// The record is open and `awaiting_approval`.
    pub(super) awaiting: bool,
    /// The record was left waiting for a later call ([`ApprovalDecision::Defer`]).
    pub(super) deferred: bool,
}

impl<'a> Record<'a> {
    pub(super) fn new(
        host: &'a Arc<Host>,
        id: &'a Arc<str>,
        called: &'a str,
        args: &Arc<Arguments>,
    ) -> Self {
        Record {
            host,
            id,
            called,
            entry: None,
            arguments: args.clone(),
            duplicate_of: None,
            publish: None,
            activity: None,
            conversation: None,
            allowed: None,
            asked_at_ms: None,
            continues: false,
            awaiting: false,
            deferred: false,
        }
    }

    /// The call resolved to `t`: the record names its tool and keeps its arguments.
    pub(super) fn resolved(&mut self, t: &Target) {
        self.entry = Some(t.entry.clone());
        self.arguments = t.arguments.clone();
    }

    /// The tool's name, else the name as called.
    pub(super) fn tool(&self) -> &str {
        self.entry.as_ref().map_or(self.called, |e| e.name())
    }

    /// The record's start.
    fn start(&self) -> ActivityStart {
        let (name, user_facing) = match &self.entry {
            Some(e) => (e.shared_name().clone(), e.spec().user_facing),
            None => (Arc::from(self.called), false),
        };
        let mut start =
            ActivityStart::new(self.id.clone(), name, self.arguments.clone(), user_facing);
        start.conversation = self.conversation.clone();
        if let Some(first) = &self.duplicate_of {
            let first = Value::String(first.clone());
            start.data.insert("duplicate_of".into(), first);
        }
        start
    }

    /// Opens the activity record: `in_progress` (saying how the call was allowed), and
    /// START; or, for a call continuing an earlier one's question, goes on with that record,
    /// `awaiting_approval` until [`run`](Self::run).
    pub(super) fn open(&mut self) {
        let mut start = self.start();
        let host = self.host;
        if self.continues {
            self.continues = false;
            start.started_at_ms = self.asked_at_ms.unwrap_or(start.started_at_ms);
            // START again only when the question was asked in another process.
            let announce = !host.deferred.take(self.id);
            self.awaiting = true;
            let guard = ActivityGuard::resume(&*host.activities, &host.events, start, announce);
            self.activity = Some(guard);
            return;
        }
        start.allowed = self.allowed.clone();
        self.activity = Some(ActivityGuard::open(&*host.activities, &host.events, start));
    }

    /// Opens the record `awaiting_approval` while `asked_by` waits for an answer.
    pub(super) fn open_awaiting(&mut self, asked_by: String, scope: Vec<String>) {
        if self.activity.is_some() {
            return;
        }
        if self.continues {
            return self.open();
        }
        let host = self.host;
        let start = self.start();
        self.asked_at_ms = Some(start.started_at_ms);
        self.awaiting = true;
        self.activity = Some(ActivityGuard::open_awaiting(
            &*host.activities,
            &host.events,
            start,
            asked_by,
            scope,
        ));
    }

    /// How long the call has waited for its answer, in milliseconds.
    pub(super) fn waited_ms(&self) -> u64 {
        self.asked_at_ms
            .map_or(0, |at| crate::events::now_ms().saturating_sub(at))
    }

    /// The call is allowed and about to run: its record opens `in_progress`, or the one
    /// awaiting approval goes on, saying how it was allowed (a call continuing an earlier
    /// question that no longer needs asking was allowed by the rules as they are now).
    pub(super) fn run(&mut self) {
        if self.activity.is_none() {
            self.open();
        }
        if !std::mem::take(&mut self.awaiting) {
            return;
        }
        let waited_ms = self.waited_ms();
        let mut allowed = self
            .allowed
            .take()
            .unwrap_or_else(|| Allowed::new(ApprovedBy::Rule, 0));
        allowed.waited_ms = waited_ms;
        if let Some(activity) = &self.activity {
            activity.approved(allowed);
        }
    }

    /// The call ends, its question to be answered by a later call: its record stays
    /// `awaiting_approval` until then, or until `expires_at_ms`.
    pub(super) fn defer(&mut self, request: &ApprovalRequest, expires_at_ms: u64) {
        self.open_awaiting(request.asked_by(), request.scope.clone());
        if let Some(activity) = self.activity.take() {
            activity.defer();
            self.deferred = true;
            Deferrals::wait(
                self.host,
                self.id.clone(),
                Arc::from(self.tool()),
                self.conversation.clone(),
                expires_at_ms,
            );
        }
    }

    /// Finishes the call: its error signed with the call's signature and the tool's error
    /// context; its record closed (opened first for a call refused before it began, so that
    /// every call's events pair up); identical calls handed the result. Returns the result,
    /// the tool's name when it was called by an alias, and the call that answered this one.
    pub(super) fn finish(
        mut self,
        result: CallResult,
    ) -> (CallResult, Option<String>, Option<String>) {
        let result = result.map_err(|e| {
            let e = match e.signature() {
                Some(_) => e,
                None => e.with_signature(signature_of_arguments(self.tool(), &self.arguments)),
            };
            match &self.entry {
                Some(entry) => entry.spec().with_error_context(e, &self.arguments),
                None => e,
            }
        });
        if self.activity.is_none() && !self.deferred {
            self.open();
        }
        if let Some(activity) = self.activity.take() {
            match &result {
                Ok(output) => activity.succeed(output),
                Err(e) => activity.fail(e),
            }
        }
        if let Some(publish) = self.publish.take() {
            publish.send_replace(Some(result.clone()));
        }
        let renamed = (self.entry.as_ref())
            .filter(|e| e.name() != self.called)
            .map(|e| e.name().to_owned());
        (result, renamed, self.duplicate_of)
    }
}
