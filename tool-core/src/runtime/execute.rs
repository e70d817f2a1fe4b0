//! The end of a call's path: the approval gate, the run under a deadline, and the activity
//! records and events of every answer, refused or not.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::{Pin, pin};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::CallOptions;
use super::dedupe::DedupeKey;
use super::{ApprovalDecision, ApprovalRequest, Session, SharedResult};
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
    pub(super) async fn refuse(
        &self,
        activity_id: &Arc<str>,
        spec: &ToolSpec,
        args: &Arc<Arguments>,
        err: ToolError,
    ) -> SharedResult {
        let err = with_error_context(err, spec, args);
        self.reject(activity_id, &spec.name, args, spec.user_facing, err)
            .await
    }

    /// Answers a call refused before its tool ran (unknown tool, mode, permission,
    /// validation, approval, a cancelled session). It still gets an activity record, which
    /// fails at once, and a START + ERROR pair, so every call's events pair up.
    pub(super) async fn reject(
        &self,
        activity_id: &Arc<str>,
        name: &str,
        args: &Arc<Arguments>,
        user_facing: bool,
        err: ToolError,
    ) -> SharedResult {
        self.begin(ActivityStart::new(
            activity_id.clone(),
            name,
            args.clone(),
            user_facing,
        ))
        .await;
        let result = Err(err);
        self.finish(activity_id, name, &result).await;
        result
    }

    /// Opens a call's activity record and emits its START.
    pub(super) async fn begin(&self, start: ActivityStart) {
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
        if let Some(start) = inner.activities.begin_now(start) {
            inner.activities.begin(start).await;
        }
        if let Some(event) = event {
            inner.events.emit(event);
        }
    }

    /// Closes a call's activity and emits its END or ERROR.
    pub(super) async fn finish(&self, activity_id: &str, tool: &str, result: &SharedResult) {
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
                let output = ActivityOutput::new(output.clone());
                if let Some(output) = inner.activities.succeed_now(activity_id, output) {
                    inner.activities.succeed(activity_id, output).await;
                }
                if let Some(data) = end {
                    inner
                        .events
                        .emit(Event::new(EventKind::ToolCallEnd, activity_id, tool, data));
                }
            }
            Err(e) => {
                inner
                    .activities
                    .update(
                        activity_id,
                        ActivityUpdate::Finish {
                            status: ActivityStatus::Failure,
                            data: None,
                            error: Some(e.full_message()),
                        },
                    )
                    .await;
                if inner.events.wants(EventKind::Error) {
                    inner.events.emit(Event::new(
                        EventKind::Error,
                        activity_id,
                        tool,
                        EventData::Error { error: e.to_json() },
                    ));
                }
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

    /// The approval gate, then the run: in a concurrency slot, under a deadline, with a
    /// cancellation token, its panic caught.
    pub(super) async fn execute(&self, p: Prepared<'_>, future: ToolFuture<'_>) -> SharedResult {
        let inner = &self.runtime.inner;
        let spec = p.entry.spec();
        let (call, activity_id, arguments) = (p.call, p.activity_id, p.arguments);
        let action = p.action;
        let signature = || signature_of_arguments(&spec.name, arguments);

        // Approval gate.
        let forced = inner.approval_required.iter().any(|(t, a)| {
            t == spec.name.as_ref() && (a.is_none() || a.as_deref() == action.as_deref())
        });
        if spec.needs_approval(action.as_deref()) || forced {
            let request = ApprovalRequest {
                call_id: call.id.clone(),
                tool: spec.name.to_string(),
                action: action.clone(),
                arguments: arguments.to_value().unwrap_or(Value::Null),
                signature: signature(),
            };
            if let ApprovalDecision::Deny { reason } = inner.approver.approve(&request).await {
                let msg = match reason {
                    Some(r) => format!("the call was not approved: {r}"),
                    None => "the call was not approved".to_owned(),
                };
                let err = ToolError::new(ErrorKind::ApprovalDenied, msg)
                    .with_suggestion(
                        "Do not retry the same call; ask the user or take another approach.",
                    )
                    .with_signature(request.signature);
                return self.refuse(activity_id, spec, arguments, err).await;
            }
        }

        // A timer made here first: making one panics when the tokio runtime has no time
        // driver, and that is a host's mistake to report, not a tool's panic. It is the
        // deadline's timer when a slot is free at once; else one is made once the call has
        // its slot.
        let timeout = spec
            .timeout
            .unwrap_or(inner.default_timeout)
            .min(inner.max_timeout);
        let probed = Instant::now();
        let Ok(probe) = std::panic::catch_unwind(|| tokio::time::sleep(timeout)) else {
            let err = ToolError::system(
                "the tokio runtime has no time driver, so the call's deadline cannot be kept; \
                 the host must build its runtime with `enable_all()` (or `enable_time()`)",
            )
            .with_signature(signature());
            return self.refuse(activity_id, spec, arguments, err).await;
        };

        // Activity record and START.
        self.begin(ActivityStart::new(
            activity_id.clone(),
            p.entry.shared_name().clone(),
            arguments.clone(),
            spec.user_facing,
        ))
        .await;

        // Run in a concurrency slot, under a deadline that starts once the slot is got, with
        // a cancellation token the deadline and the session both cancel. The tool's future is
        // polled here, not on a task of its own: a panic in it is caught where it is polled,
        // and if this call is dropped (its caller gave up), the tool is dropped with it.
        let ctx = p.ctx;
        let run = async {
            // The deadline counts from when the call has its slot: the probe's, made a moment
            // ago, when one is free; else a new timer once one is got. A new timer rather
            // than a reset of the probe: a reset registers it with the time driver (a wake-up
            // of the driver), while a timer is registered only when first polled, so a call
            // that is done before the deadline is first polled never touches the driver.
            // The probe is kept only while it is fresh: a store slow to open the record
            // must not shorten the deadline.
            let free = inner.limiter.try_acquire().ok();
            let (_permit, timer, from) = match free {
                Some(permit) if probed.elapsed() < PROBE_REUSE => (Some(permit), probe, probed),
                free => {
                    drop(probe);
                    let permit = match free {
                        Some(permit) => Some(permit),
                        None => inner.limiter.acquire().await.ok(),
                    };
                    (permit, tokio::time::sleep(timeout), Instant::now())
                }
            };
            let mut timer = pin!(timer);
            if let Some(deadline) = from.checked_add(timeout) {
                let _ = ctx.deadline.set(deadline);
            }
            let invoked = CatchUnwind(future);
            tokio::select! {
                // The tool first, as `tokio::time::timeout` polls it: a result that is ready
                // when the deadline passes still counts.
                biased;
                result = invoked => result.unwrap_or_else(|Panicked| Err(panicked_error())),
                () = &mut timer => {
                    ctx.cancel_call();
                    Err(ToolError::new(
                        ErrorKind::Timeout,
                        format!("the call did not finish within {}", human_duration(timeout)),
                    )
                    .with_suggestion(
                        "Try a smaller request, or raise the tool's timeout if it allows one.",
                    ))
                }
            }
        };
        // Until the tool has answered, dropping this call cancels its token, so whatever
        // the tool started on it stops too.
        let guard = CancelOnDrop(Some(ctx));
        // Cancelled: the tool's token fires before its future is dropped, so a guard in the
        // tool sees it.
        let cancelled = async {
            p.scope.cancelled(&self.cancel).await;
            ctx.cancel_call();
        };
        // The tool first: a call done when first polled never waits on a token (which
        // would register with it, and unregister, under its lock).
        let result: SharedResult = tokio::select! {
            biased;
            result = run => {
                guard.disarm();
                result
            }
            () = cancelled => Err(cancelled_error()),
        };
        // The output's JSON, made once: the activity record, the END event, the outcome and
        // a duplicate's answer all read it.
        let result = result.map(keep_tree);
        // A write has run (or began to): what the turn answered before may be stale.
        if let Some(key) = &p.writes {
            self.invalidate_turn(key, &call.id);
        }
        let result = result.map_err(|e| with_error_context(sign(e, signature), spec, arguments));
        self.finish(activity_id, &spec.name, &result).await;
        result
    }
}

/// How long after it was made the probe timer may still stand for a call's deadline.
const PROBE_REUSE: Duration = Duration::from_millis(1);

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
