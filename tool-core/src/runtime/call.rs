//! One call's whole path, top to bottom.
//!
//! [`Call`] holds what a call came with; its steps (resolve, authorize, decode, admit,
//! approve, acquire, execute) each return `Result<_, ToolError>`, so that a refusal is an
//! `Err` flowing to the one place that finishes the call, [`Record::finish`] (`record.rs`).
//! The call's activity record is an `ActivityGuard`, which pairs its START with its END or
//! ERROR on every exit, an abandoned call's included.

use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::SemaphorePermit;
use tracing::Instrument;

use super::record::Record;
use super::turn::{Admission, CallResult, DedupeKey, ResultSlot};
use super::{CallOptions, CallOutcome, Session};
use crate::activity::Allowed;
use crate::approval::{ApprovalDecision, ApprovalRequest, refused_by_rule};
use crate::call::{Arguments, ToolCall, signature_of_arguments};
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::policy::{PolicyCall, PolicyDecision};
use crate::registry::ToolEntry;
use crate::tool::ToolFuture;
use crate::trace::{CALL_TARGET, CallSpan};

/// One call on its way through a session.
pub(super) struct Call<'s> {
    session: &'s Session,
    id: String,
    name: String,
    activity_id: Arc<str>,
    /// As the call gave them, shared from here on (the activity record keeps them), not
    /// copied.
    arguments: Arc<Arguments>,
    options: CallOptions,
    started: Instant,
}

/// The tool a call resolved to: its entry, the arguments as the tool reads them (a
/// polymorphic tool's parsed once) and the chosen action.
pub(super) struct Target {
    pub(super) entry: Arc<ToolEntry>,
    pub(super) arguments: Arc<Arguments>,
    pub(super) action: Option<String>,
}

impl<'s> Call<'s> {
    /// A call of `session`. Made before the call's future, so that what it holds is moved
    /// into the future once.
    pub(super) fn new(session: &'s Session, mut call: ToolCall, options: CallOptions) -> Self {
        let arguments = std::mem::replace(&mut call.arguments, Arguments::Text(String::new()));
        Call {
            session,
            id: call.id,
            name: call.name,
            // Unique in the process, not only in this runtime: runtimes may share a store. A
            // call answering an earlier call's question goes on under its id.
            activity_id: match &options.continues {
                Some(c) => c.activity_id.clone(),
                None => crate::activity::next_activity_id(),
            },
            arguments: Arc::new(arguments),
            options,
            started: Instant::now(),
        }
    }

    /// Runs the call in its span: its steps, then the one place that finishes it.
    pub(super) async fn run(self) -> CallOutcome {
        let inner = &self.session.runtime.inner;
        let span = CallSpan::new(
            &self.name,
            &self.id,
            self.session.parts.mode,
            &self.session.parts.who,
            self.options.parent.as_ref(),
            self.options.trace_context.as_ref(),
            inner.trace_content,
        );
        let mut record = Record::new(&inner.host, &self.activity_id, &self.name, &self.arguments);
        record.conversation = Some(self.conversation().clone());
        if let Some(c) = &self.options.continues {
            record.asked_at_ms = Some(c.asked_at_ms);
            record.continues = true;
        }
        let steps = self.steps(&mut record, &span);
        // The steps run in the span, so that what a tool logs is the call's; a span no
        // subscriber wants costs nothing, not even entering it on every poll.
        let result = if span.span().is_disabled() {
            steps.await
        } else {
            steps.instrument(span.span().clone()).await
        };
        let ran = record.activity.is_some();
        let text_output = record.entry.as_ref().is_some_and(|e| e.spec().text_output);
        let (result, tool, duplicate_of) = record.finish(result);
        span.finish(&result, ran);
        CallOutcome {
            call_id: self.id,
            activity_id: self.activity_id,
            tool: tool.unwrap_or(self.name),
            result,
            duplicate_of,
            elapsed: self.started.elapsed(),
            text_output,
        }
    }

    /// The steps in order; the first refusal ends them.
    async fn steps(&self, record: &mut Record<'_>, span: &CallSpan) -> CallResult {
        let target = self.resolve()?;
        record.resolved(&target);
        span.resolved(target.entry.name(), target.action.as_deref(), || {
            target.arguments.to_json_text()
        });
        self.authorize(&target)?;
        let ctx = self.context(&target.entry);
        let future = self.decode(&target, &ctx)?;
        let writes = match self.admit(&target) {
            (Admission::Duplicate { first_id, slot }, _) => {
                // Boxed: only duplicates take this path.
                return Box::pin(self.answer_duplicate(record, first_id, slot)).await;
            }
            (Admission::First(publish), writes) => {
                record.publish = Some(publish);
                writes
            }
            (Admission::Untracked, writes) => writes,
        };
        self.approve(&target, &ctx, span.span(), record).await?;
        let timeout = self.timeout(&target.entry);
        record.run();
        let _permit = self.acquire().await?;
        let result = self.execute(future, &ctx, timeout).await;
        // A write has run (or began to): what the turn answered before may be stale.
        if let Some(key) = writes {
            self.session.turn().invalidate(&key, &self.id);
        }
        result
    }

    /// The conversation the call belongs to: its own, else its session's.
    fn conversation(&self) -> &Arc<crate::activity::Conversation> {
        self.options
            .conversation
            .as_ref()
            .unwrap_or(&self.session.parts.conversation)
    }

    /// Whether the session or the call was cancelled.
    fn is_cancelled(&self) -> bool {
        let call = self.options.cancel.as_ref();
        self.session.parts.cancel.is_cancelled() || call.is_some_and(|t| t.is_cancelled())
    }

    /// Completes once the session or the call is cancelled.
    async fn cancelled(&self) {
        let session = &self.session.parts.cancel;
        match &self.options.cancel {
            None => session.cancelled().await,
            Some(call) => tokio::select! {
                () = session.cancelled() => {}
                () = call.cancelled() => {}
            },
        }
    }

    /// The tool called, by name or alias, among those the session is offered (its mode's,
    /// and its selection's when it has one), and the action chosen, which decides
    /// permissions and approval.
    fn resolve(&self) -> Result<Target, ToolError> {
        let registry = &self.session.runtime.inner.registry;
        let mode = self.session.parts.mode;
        let selection = self.session.parts.tools.as_ref();
        let Some(entry) = registry.get(&self.name).filter(|e| {
            e.spec().supports_mode(mode) && selection.is_none_or(|s| s.matches(e.spec()))
        }) else {
            return Err(registry.unknown_tool(&self.name, mode, selection, &self.arguments));
        };
        let (arguments, action) = entry.spec().action_of(&self.arguments)?;
        Ok(Target {
            entry: entry.clone(),
            arguments,
            action,
        })
    }

    /// A cancelled session (or call) runs nothing more; the role must hold the tool's
    /// permissions and the chosen action's.
    fn authorize(&self, t: &Target) -> Result<(), ToolError> {
        if self.is_cancelled() {
            return Err(ToolError::cancelled());
        }
        let (spec, permissions) = (t.entry.spec(), self.session.permissions);
        let missing = permissions.missing(&spec.required_permissions(t.action.as_deref()));
        if missing.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = missing.iter().map(|p| p.as_str()).collect();
        let whose = match &t.action {
            Some(a) if permissions.contains_all(&spec.permissions) => format!("action `{a}`"),
            _ => "this tool".to_owned(),
        };
        Err(ToolError::permission(format!(
            "this session's role lacks the permission(s) {} that {whose} needs",
            names.join(", "),
        ))
        .with_field("missing_permissions", names))
    }

    /// The context the tool runs with; its cancellation token is a child of the session's.
    fn context(&self, entry: &ToolEntry) -> ToolContext {
        ToolContext::new(
            self.activity_id.clone(),
            entry.shared_name().clone(),
            &self.session.runtime.inner.host,
            &self.session.parts,
            self.options.observer.clone(),
            self.conversation().clone(),
        )
    }

    /// Validation: every problem of the arguments at once, or the typed input moved into
    /// the call's future, polled once the call has passed the gates below.
    fn decode<'a>(&self, t: &'a Target, ctx: &'a ToolContext) -> Result<ToolFuture<'a>, ToolError> {
        t.entry.tool().start(ctx, &t.arguments, t.entry.schema())
    }

    /// The redundancy check (see the [module docs](super)): whether an identical call came
    /// first in this turn, and for a call that writes, its key.
    fn admit(&self, t: &Target) -> (Admission, Option<DedupeKey>) {
        // A call bringing the answer to an earlier call's question is that call going on,
        // not a repeat of it.
        if !self.session.runtime.inner.dedupe || !self.session.parts.turns {
            return (Admission::Untracked, None);
        }
        let spec = t.entry.spec();
        let key = (spec.name.to_string(), t.arguments.to_json_text());
        let writes = (!spec.is_read_only(t.action.as_deref())).then(|| key.clone());
        if self.options.continues.is_some() {
            return (Admission::Untracked, writes);
        }
        let admission = self.session.turn().admit(key, &self.id);
        (admission, writes)
    }

    /// Answers a call identical to one made earlier in the turn with that call's result,
    /// once it is there. The duplicate has its own record (with `data.duplicate_of`) and
    /// events; the tool does not run.
    async fn answer_duplicate(
        &self,
        record: &mut Record<'_>,
        first_id: String,
        mut slot: ResultSlot,
    ) -> CallResult {
        record.duplicate_of = Some(first_id);
        record.open();
        tokio::select! {
            // `wait_for` returns once the value is `Some`.
            waited = slot.wait_for(Option::is_some) => match waited {
                Ok(r) => r.clone().unwrap_or_else(|| Err(ToolError::cancelled())),
                Err(_) => Err(ToolError::system(format!(
                    "the identical call `{}` was abandoned before it finished; call again",
                    record.duplicate_of.as_deref().unwrap_or_default()
                ))),
            },
            () = self.cancelled() => Err(ToolError::cancelled()),
        }
    }

    /// The permission rules, then the approval gate: a rule may refuse the call, let it run
    /// without asking, or ask; without a matching rule, a tool or action that needs approval
    /// (declared, or required by the runtime's builder) asks. A denial is the model's
    /// `approval_denied`. The record learns how the call was allowed; it begins
    /// `awaiting_approval` when the approver has to wait for someone (see the [module
    /// docs](super), *Approval in the record*).
    async fn approve(
        &self,
        t: &Target,
        ctx: &ToolContext,
        span: &tracing::Span,
        record: &mut Record<'_>,
    ) -> Result<(), ToolError> {
        let inner = &self.session.runtime.inner;
        let (spec, action) = (t.entry.spec(), t.action.as_deref());
        let forced = inner
            .approval_required
            .iter()
            .any(|(tool, a)| tool == spec.name.as_ref() && (a.is_none() || a.as_deref() == action));
        let needs_approval = spec.needs_approval(action) || forced;
        let arguments = inner
            .policy
            .as_ref()
            .map(|_| t.arguments.to_value().unwrap_or(Value::Null));
        let policy_call = arguments.as_ref().map(|arguments| PolicyCall {
            tool: &spec.name,
            action,
            arguments,
            needs_approval,
            notes: Some(ctx.notes()),
        });
        let decision = match (&inner.policy, &policy_call) {
            (Some(policy), Some(call)) => policy.decide(call),
            _ => PolicyDecision::Declared,
        };
        let rule = match decision {
            PolicyDecision::Allow { rule } => {
                record.allowed = rule.map(Allowed::by_rule);
                return Ok(());
            }
            PolicyDecision::Deny {
                rule,
                reason,
                suggestion,
            } => {
                tracing::info!(target: CALL_TARGET, parent: span, rule, "refused by a rule");
                return Err(refused_by_rule(&rule, &reason, suggestion));
            }
            PolicyDecision::Refuse(error) => return Err(error),
            PolicyDecision::Ask { rule } => rule,
            PolicyDecision::Declared if needs_approval => None,
            PolicyDecision::Declared => return Ok(()),
        };
        let seen = arguments.as_ref();
        // Boxed: most calls need none, and their futures stay small.
        Box::pin(async move {
            let (preview, scope) = match (&inner.policy, &policy_call) {
                (Some(policy), Some(call)) => (policy.preview(call), policy.scope(call)),
                _ => (None, Vec::new()),
            };
            let request = ApprovalRequest {
                call_id: self.id.clone(),
                tool: spec.name.to_string(),
                action: t.action.clone(),
                // The value the policy saw, when there is one: read once.
                arguments: match seen {
                    Some(value) => value.clone(),
                    None => t.arguments.to_value().unwrap_or(Value::Null),
                },
                signature: signature_of_arguments(&spec.name, &t.arguments),
                rule,
                preview,
                scope,
                activity_id: self.activity_id.to_string(),
            };
            tracing::info!(target: CALL_TARGET, parent: span, "approval asked");
            let approver = self.options.approver.as_ref().unwrap_or(&inner.approver);
            if self.is_cancelled() {
                return Err(ToolError::cancelled());
            }
            let mut asking = approver.approve(&request);
            // An approver that answers at once (a rule of its own, an earlier "allow for this
            // session") leaves no wait in the record; one that waits for someone makes the
            // record `awaiting_approval` while it does.
            let first = std::future::poll_fn(|cx| Poll::Ready(asking.as_mut().poll(cx))).await;
            let decision = match first {
                Poll::Ready(decision) => decision,
                Poll::Pending => {
                    record.open_awaiting(request.asked_by(), request.scope.clone());
                    // A call cancelled while someone is asked (its client left, the server
                    // stops) waits no longer for the answer.
                    tokio::select! {
                        decision = asking => decision,
                        () = self.cancelled() => return Err(ToolError::cancelled()),
                    }
                }
            };
            if let ApprovalDecision::Defer { expires_at_ms, .. } = &decision {
                tracing::info!(target: CALL_TARGET, parent: span, "approval deferred");
                record.defer(&request, *expires_at_ms);
                return decision.into_result().map(|_| ());
            }
            let answer = decision.into_result();
            let approved = answer.is_ok();
            tracing::info!(target: CALL_TARGET, parent: span, approved, "approval answered");
            let by = answer?;
            record.allowed = Some(Allowed::new(by, record.waited_ms()));
            Ok(())
        })
        .await
    }

    /// How long the tool may run: its own timeout, else the runtime's default, capped by
    /// the runtime's maximum.
    fn timeout(&self, entry: &ToolEntry) -> Duration {
        let inner = &self.session.runtime.inner;
        (entry.spec().timeout)
            .unwrap_or(inner.default_timeout)
            .min(inner.max_timeout)
    }

    /// A concurrency slot: at once when one is free, else the wait (boxed: most calls find
    /// one free), unless the call is cancelled first. `None` when the limiter was closed.
    async fn acquire(&self) -> Result<Option<SemaphorePermit<'s>>, ToolError> {
        let limiter = &self.session.runtime.inner.limiter;
        if let Ok(permit) = limiter.try_acquire() {
            return Ok(Some(permit));
        }
        Box::pin(async {
            tokio::select! {
                biased;
                permit = limiter.acquire() => Ok(permit.ok()),
                () = self.cancelled() => Err(ToolError::cancelled()),
            }
        })
        .await
    }

    /// Runs the tool to its answer under a deadline counted from now (the call has its
    /// slot), raced with the call's cancellation, its panic caught. A result ready when the
    /// deadline passes still counts. When the deadline, a cancellation or the caller ends
    /// the call first, the tool's token fires before its future is dropped, so a guard in
    /// the tool sees it.
    async fn execute(
        &self,
        future: ToolFuture<'_>,
        ctx: &ToolContext,
        timeout: Duration,
    ) -> CallResult {
        let mut tool = CatchUnwind(future);
        // Declared after the tool's future, so dropped before it.
        let cancel_on_drop = CancelOnDrop(Some(ctx));
        let mut answered = false;
        let cancelled = self.cancelled();
        let raced = async {
            tokio::select! {
                biased;
                result = &mut tool => {
                    answered = true;
                    result.unwrap_or_else(|Panicked| Err(ToolError::panicked()))
                }
                () = cancelled => Err(ToolError::cancelled()),
            }
        };
        let result = match Instant::now().checked_add(timeout) {
            // tokio's `timeout_at` polls its timer even when the tool has used up the task's
            // cooperative budget, so a tool that is always ready cannot starve its deadline.
            Some(deadline) => {
                ctx.set_deadline(deadline);
                // Making the timer panics on a tokio runtime without the time driver: the
                // host's mistake to report, not a tool's panic.
                let timer = || tokio::time::timeout_at(deadline.into(), raced);
                match std::panic::catch_unwind(AssertUnwindSafe(timer)) {
                    Ok(timed) => timed
                        .await
                        .unwrap_or_else(|_| Err(ToolError::timed_out(timeout))),
                    Err(_) => Err(ToolError::system(
                        "the tokio runtime has no time driver, so the call's deadline cannot be \
                         kept; the host must build its runtime with `enable_all()` (or \
                         `enable_time()`)",
                    )),
                }
            }
            None => raced.await,
        };
        if answered {
            cancel_on_drop.disarm();
        }
        result
    }
}

/// Cancels a call's token when dropped, unless disarmed: when the call is answered before
/// its tool (a deadline, a cancellation) or abandoned by its caller.
struct CancelOnDrop<'a>(Option<&'a ToolContext>);

impl CancelOnDrop<'_> {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(ctx) = self.0.take() {
            ctx.cancel_call();
        }
    }
}

/// A tool's future whose panic is caught: polled inside `catch_unwind`, a panic ends it
/// with [`Panicked`] (and it is not polled again).
struct CatchUnwind<F>(F);

/// The tool panicked.
struct Panicked;

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, Panicked>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        match std::panic::catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(Err(Panicked)),
        }
    }
}
