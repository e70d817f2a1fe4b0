//! The end of a call's path: the approval gate, the run under a deadline, and the activity
//! records and events of every answer, refused or not.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::CallOptions;
use super::dedupe::DedupeKey;
use super::{ApprovalDecision, ApprovalRequest, BoxFuture, Session, SharedResult};
use crate::activity::{ActivityOutput, ActivityStart, ActivityStatus, ActivityUpdate};
use crate::call::{Arguments, ToolCall, signature_of_arguments};
use crate::context::ToolContext;
use crate::error::{ErrorKind, ToolError};
use crate::events::{Event, EventData, EventKind};
use crate::output::keep_tree;
use crate::registry::ToolEntry;
use crate::spec::ToolSpec;
use crate::tool::ToolFuture;
use crate::validate::MAX_ARGUMENTS_BYTES;

/// A validated call that passed the redundancy check, ready for the approval gate.
pub(super) struct Prepared<'a> {
    pub(super) call: &'a ToolCall,
    pub(super) activity_id: &'a Arc<str>,
    pub(super) entry: &'a Arc<ToolEntry>,
    /// The chosen action of a polymorphic tool.
    pub(super) action: Option<String>,
    pub(super) arguments: &'a Arc<Arguments>,
    /// For a call that writes (not read-only) while the redundancy check is on, its key:
    /// once it has run, the turn forgets every other call.
    pub(super) writes: Option<DedupeKey>,
    /// The context the call's future borrows.
    pub(super) ctx: &'a ToolContext,
    /// The call's own token and observer.
    pub(super) scope: &'a CallOptions,
}

impl Session {
    /// Answers a call of a known tool refused before it ran: [`Session::reject`] with the
    /// tool's [`error_context`](field@ToolSpec::error_context) added.
    ///
    /// Boxed, as every refusal is: the call's future stays small for the calls that run
    /// (a future is copied whole each time it is moved, and the server spawns it).
    pub(super) fn refuse<'a>(
        &'a self,
        activity_id: &'a Arc<str>,
        spec: &'a ToolSpec,
        args: &'a Arc<Arguments>,
        err: ToolError,
    ) -> BoxFuture<'a, SharedResult> {
        let err = with_error_context(err, spec, args);
        self.reject(activity_id, &spec.name, args, spec.user_facing, err)
    }

    /// Answers a call refused before its tool ran (unknown tool, mode, permission,
    /// validation, approval, a cancelled session). It still gets an activity record, which
    /// fails at once, and a START + ERROR pair, so every call's events pair up.
    pub(super) fn reject<'a>(
        &'a self,
        activity_id: &'a Arc<str>,
        name: &'a str,
        args: &'a Arc<Arguments>,
        user_facing: bool,
        err: ToolError,
    ) -> BoxFuture<'a, SharedResult> {
        Box::pin(async move {
            let start = ActivityStart::new(activity_id.clone(), name, args.clone(), user_facing);
            if let Some(pending) = self.begin(start) {
                pending.await;
            }
            let result = Err(err);
            if let Some(pending) = self.finish(activity_id, name, &result) {
                pending.await;
            }
            result
        })
    }

    /// Opens a call's activity record and emits its START. A store that records without
    /// waiting ([`ActivityStore::begin_now`](crate::ActivityStore::begin_now)) is done on
    /// return; for any other the returned future stores the record, then emits.
    pub(super) fn begin(&self, start: ActivityStart) -> Option<BoxFuture<'_, ()>> {
        let inner = &self.runtime.inner;
        let event = inner.events.wants(EventKind::ToolCallStart).then(|| {
            Event::new(
                EventKind::ToolCallStart,
                String::from(&*start.id),
                &*start.name,
                EventData::Start {
                    arguments: start.input(),
                },
            )
        });
        let emit = move || {
            if let Some(event) = event {
                inner.events.emit(event);
            }
        };
        match inner.activities.begin_now(start) {
            None => {
                emit();
                None
            }
            Some(start) => Some(Box::pin(async move {
                inner.activities.begin(start).await;
                emit();
            })),
        }
    }

    /// Closes a call's activity and emits its END or ERROR: at once for a success kept by a
    /// store that records without waiting; else through the returned future.
    pub(super) fn finish<'a>(
        &'a self,
        activity_id: &'a str,
        tool: &'a str,
        result: &SharedResult,
    ) -> Option<BoxFuture<'a, ()>> {
        let inner = &self.runtime.inner;
        match result {
            Ok(output) => {
                let end = inner
                    .events
                    .wants(EventKind::ToolCallEnd)
                    .then(|| EventData::End {
                        success: output.is_success(),
                        result: output.to_value().unwrap_or(Value::Null),
                    });
                let emit = move || {
                    if let Some(data) = end {
                        inner.events.emit(Event::new(
                            EventKind::ToolCallEnd,
                            activity_id,
                            tool,
                            data,
                        ));
                    }
                };
                let output = ActivityOutput::new(output.clone());
                match inner.activities.succeed_now(activity_id, output) {
                    None => {
                        emit();
                        None
                    }
                    Some(output) => Some(Box::pin(async move {
                        inner.activities.succeed(activity_id, output).await;
                        emit();
                    })),
                }
            }
            Err(e) => {
                let update = ActivityUpdate::Finish {
                    status: ActivityStatus::Failure,
                    data: None,
                    error: Some(e.full_message()),
                };
                let error = inner
                    .events
                    .wants(EventKind::Error)
                    .then(|| EventData::Error { error: e.to_json() });
                Some(Box::pin(async move {
                    inner.activities.update(activity_id, update).await;
                    if let Some(data) = error {
                        inner
                            .events
                            .emit(Event::new(EventKind::Error, activity_id, tool, data));
                    }
                }))
            }
        }
    }

    /// The context a call of `entry` runs with; its cancellation token is a child of the
    /// session's.
    pub(super) fn context(
        &self,
        activity_id: &Arc<str>,
        entry: &ToolEntry,
        scope: &CallOptions,
    ) -> ToolContext {
        let inner = &self.runtime.inner;
        ToolContext {
            call_id: activity_id.clone(),
            tool: entry.shared_name().clone(),
            mode: self.mode,
            session: self.state.clone(),
            services: inner.services.clone(),
            session_services: self.services.clone(),
            parent: self.cancel.clone(),
            cancel: OnceLock::new(),
            deadline: OnceLock::new(),
            events: inner.events.clone(),
            activities: inner.activities.clone(),
            observer: scope.observer_or(&self.observer),
        }
    }

    /// Asks the approver about a call that needs approval: `None` when approved, else the
    /// refusal. Boxed: most calls need none, and their futures stay small.
    fn approve<'a>(&'a self, p: &'a Prepared<'_>) -> BoxFuture<'a, Option<SharedResult>> {
        Box::pin(async move {
            let spec = p.entry.spec();
            let request = ApprovalRequest {
                call_id: p.call.id.clone(),
                tool: spec.name.to_string(),
                action: p.action.clone(),
                arguments: p.arguments.to_value().unwrap_or(Value::Null),
                signature: signature_of_arguments(&spec.name, p.arguments),
            };
            let ApprovalDecision::Deny { reason } =
                self.runtime.inner.approver.approve(&request).await
            else {
                return None;
            };
            let msg = match reason {
                Some(r) => format!("the call was not approved: {r}"),
                None => "the call was not approved".to_owned(),
            };
            let err = ToolError::new(ErrorKind::ApprovalDenied, msg)
                .with_suggestion(
                    "Do not retry the same call; ask the user or take another approach.",
                )
                .with_signature(request.signature);
            Some(self.refuse(p.activity_id, spec, p.arguments, err).await)
        })
    }

    /// The approval gate, then the run: in a concurrency slot, under a deadline, with a
    /// cancellation token, its panic caught.
    pub(super) async fn execute(&self, p: &Prepared<'_>, future: ToolFuture<'_>) -> SharedResult {
        let inner = &self.runtime.inner;
        let spec = p.entry.spec();
        let (activity_id, arguments) = (p.activity_id, p.arguments);
        let signature = || signature_of_arguments(&spec.name, arguments);

        // Approval gate.
        let action = p.action.as_deref();
        let forced = inner
            .approval_required
            .iter()
            .any(|(t, a)| t == spec.name.as_ref() && (a.is_none() || a.as_deref() == action));
        if (spec.needs_approval(action) || forced)
            && let Some(refused) = self.approve(p).await
        {
            return refused;
        }

        // Whether the tokio runtime has a time driver: making a timer without one panics,
        // and that is a host's mistake to report, not a tool's panic.
        let timeout = spec
            .timeout
            .unwrap_or(inner.default_timeout)
            .min(inner.max_timeout);
        if std::panic::catch_unwind(|| drop(tokio::time::sleep(timeout))).is_err() {
            let err = ToolError::system(
                "the tokio runtime has no time driver, so the call's deadline cannot be kept; \
                 the host must build its runtime with `enable_all()` (or `enable_time()`)",
            )
            .with_signature(signature());
            return self.refuse(activity_id, spec, arguments, err).await;
        }

        // Activity record and START.
        let start = ActivityStart::new(
            activity_id.clone(),
            p.entry.shared_name().clone(),
            arguments.clone(),
            spec.user_facing,
        );
        if let Some(pending) = self.begin(start) {
            pending.await;
        }

        // Until the tool has answered, dropping this call cancels its token, so whatever
        // the tool started on it stops too.
        let guard = CancelOnDrop(Some(p.ctx));
        let result = match inner.limiter.try_acquire() {
            Ok(permit) => Ok(Some(permit)),
            // No free slot: wait for one (boxed: most calls find one free), unless the call
            // is cancelled first.
            Err(_) => self.wait_for_slot(p.scope).await,
        };
        let result: SharedResult = match result {
            Ok(_permit) => {
                // The deadline counts from when the call has its slot.
                let deadline = Instant::now().checked_add(timeout);
                if let Some(deadline) = deadline {
                    let _ = p.ctx.deadline.set(deadline);
                }
                // Answered (on the deadline or a cancellation the token has fired already).
                let result = self.run_tool(p, future, deadline, timeout).await;
                guard.disarm();
                result
            }
            Err(()) => Err(cancelled_error()),
        };
        // The output's JSON, made once: the activity record, the END event, the outcome and
        // a duplicate's answer all read it.
        let result = result.map(keep_tree);
        // A write has run (or began to): what the turn answered before may be stale.
        if let Some(key) = &p.writes {
            self.invalidate_turn(key, &p.call.id);
        }
        let result = result.map_err(|e| with_error_context(sign(e, signature), spec, arguments));
        if let Some(pending) = self.finish(activity_id, &spec.name, &result) {
            pending.await;
        }
        result
    }
}

impl Session {
    /// Waits for a concurrency slot: `Err` when the call (or the session) is cancelled
    /// first, `Ok(None)` when the limiter was closed.
    fn wait_for_slot<'a>(
        &'a self,
        scope: &'a CallOptions,
    ) -> BoxFuture<'a, Result<Option<tokio::sync::SemaphorePermit<'a>>, ()>> {
        Box::pin(async move {
            tokio::select! {
                biased;
                permit = self.runtime.inner.limiter.acquire() => Ok(permit.ok()),
                () = scope.cancelled(&self.cancel) => Err(()),
            }
        })
    }

    /// Polls the tool's future to its answer, its panic caught: the tool first, then (once
    /// it has waited) its deadline and the call's cancellation, in that order, so a result
    /// ready when the deadline passes still counts. A tool that answers when first polled
    /// never makes a timer nor waits on a token; one that waits gets both, boxed. On the
    /// deadline or a cancellation the tool's token fires before its future is dropped, so a
    /// guard in the tool sees it.
    async fn run_tool(
        &self,
        p: &Prepared<'_>,
        future: ToolFuture<'_>,
        deadline: Option<Instant>,
        timeout: Duration,
    ) -> SharedResult {
        let mut tool = CatchUnwind(future);
        let mut timer: Option<Pin<Box<tokio::time::Sleep>>> = None;
        let mut cancelled: Option<BoxFuture<'_, ()>> = None;
        std::future::poll_fn(|cx| {
            if let Poll::Ready(result) = Pin::new(&mut tool).poll(cx) {
                return Poll::Ready(result.unwrap_or_else(|Panicked| Err(panicked_error())));
            }
            if let Some(deadline) = deadline {
                let timer = timer.get_or_insert_with(|| {
                    Box::pin(tokio::time::sleep_until(tokio::time::Instant::from_std(
                        deadline,
                    )))
                });
                if timer.as_mut().poll(cx).is_ready() {
                    p.ctx.cancel_call();
                    return Poll::Ready(Err(timeout_error(timeout)));
                }
            }
            let cancelled =
                cancelled.get_or_insert_with(|| Box::pin(p.scope.cancelled(&self.cancel)));
            if cancelled.as_mut().poll(cx).is_ready() {
                p.ctx.cancel_call();
                return Poll::Ready(Err(cancelled_error()));
            }
            Poll::Pending
        })
        .await
    }
}

fn timeout_error(timeout: Duration) -> ToolError {
    ToolError::new(
        ErrorKind::Timeout,
        format!("the call did not finish within {}", human_duration(timeout)),
    )
    .with_suggestion("Try a smaller request, or raise the tool's timeout if it allows one.")
}

/// Cancels a call's token when dropped, unless disarmed: when the call is answered before
/// its tool (the session was cancelled) or abandoned by its caller.
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

fn panicked_error() -> ToolError {
    ToolError::system("the tool panicked; this is a bug in the tool, not in the call")
}

pub(super) fn cancelled_error() -> ToolError {
    ToolError::new(ErrorKind::Cancelled, "the call was cancelled")
}

/// Prefixes an error with the call's signature unless it already has one.
pub(super) fn sign(err: ToolError, signature: impl FnOnce() -> String) -> ToolError {
    if err.signature().is_some() {
        err
    } else {
        err.with_signature(signature())
    }
}

/// Echoes the given values of the tool's [`error_context`](field@ToolSpec::error_context)
/// parameters into an error, each unless the error already has that field (a tool's own
/// value wins) or the call did not give it.
pub(super) fn with_error_context(err: ToolError, spec: &ToolSpec, args: &Arguments) -> ToolError {
    if spec.error_context.is_empty() {
        return err;
    }
    let parsed;
    let value = match args {
        Arguments::Value(v) => v,
        Arguments::Text(t) if t.len() <= MAX_ARGUMENTS_BYTES => {
            match serde_json::from_str::<Value>(t) {
                Ok(v) => {
                    parsed = v;
                    &parsed
                }
                Err(_) => return err,
            }
        }
        Arguments::Text(_) => return err,
    };
    let mut err = err;
    for name in &spec.error_context {
        if err.fields().contains_key(name.as_ref()) {
            continue;
        }
        if let Some(given) = value.get(name.as_ref()).filter(|v| !v.is_null()) {
            err = err.with_field(name.as_ref(), given.clone());
        }
    }
    err
}

fn human_duration(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{} ms", d.as_millis())
    } else if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}
