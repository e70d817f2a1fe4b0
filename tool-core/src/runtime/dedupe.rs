//! The redundancy check: the calls of the current turn, so that the same call twice runs
//! once, and the rule that a write makes the turn's earlier answers stale (see the
//! [module docs](super)).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::watch;

use super::CallOptions;
use super::execute::cancelled_error;
use super::{MAX_DEDUPE_ENTRIES, Session, SharedResult};
use crate::activity::ActivityStart;
use crate::call::{Arguments, signature_of_arguments};
use crate::error::ToolError;
use crate::spec::ToolSpec;

/// What identifies a call for the check: the tool's name and the arguments' JSON text.
pub(super) type DedupeKey = (String, String);

/// Where the first of identical calls publishes its result: `None` while it runs.
pub(super) type ResultSlot = watch::Receiver<Option<SharedResult>>;

/// The calls of the current turn: key to the first call's id and a receiver of its result.
#[derive(Default)]
pub(super) struct TurnCache {
    calls: HashMap<DedupeKey, (String, ResultSlot)>,
}

/// What the check decided for a call.
pub(super) enum Admission {
    /// An identical call came first: wait for its result instead of running.
    Duplicate {
        /// The first call's id.
        first_id: String,
        /// Where its result appears.
        slot: ResultSlot,
    },
    /// This call is the first: it runs and publishes its result here.
    First(watch::Sender<Option<SharedResult>>),
    /// The turn already remembers [`MAX_DEDUPE_ENTRIES`] calls: run, unremembered.
    Untracked,
}

impl TurnCache {
    /// Admits a call: a duplicate of a live entry, or the first of its kind.
    fn admit(&mut self, key: DedupeKey, call_id: &str) -> Admission {
        // A first call that was dropped before it finished leaves a closed, empty channel:
        // forget it and run again.
        let live = self
            .calls
            .get(&key)
            .filter(|(_, rx)| rx.borrow().is_some() || rx.has_changed().is_ok())
            .cloned();
        match live {
            Some((first_id, slot)) => Admission::Duplicate { first_id, slot },
            None if self.calls.len() < MAX_DEDUPE_ENTRIES || self.calls.contains_key(&key) => {
                let (tx, rx) = watch::channel(None);
                self.calls.insert(key, (call_id.to_owned(), rx));
                Admission::First(tx)
            }
            None => Admission::Untracked,
        }
    }

    /// Forgets every call of the turn but the write `(key, call_id)` itself.
    fn invalidate(&mut self, key: &DedupeKey, call_id: &str) {
        self.calls.retain(|k, (id, _)| k == key && id == call_id);
    }

    /// Forgets every call of the turn.
    pub(super) fn clear(&mut self) {
        self.calls.clear();
    }
}

impl Session {
    fn turn(&self) -> std::sync::MutexGuard<'_, TurnCache> {
        self.turn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Admits a call to the turn (see [`Admission`]). The first call holds the sender of a
    /// watch channel and publishes its result; an identical call waits on a receiver and
    /// never runs the tool, however the two are scheduled.
    pub(super) fn admit(&self, key: DedupeKey, call_id: &str) -> Admission {
        self.turn().admit(key, call_id)
    }

    /// A write `(key, call_id)` has run: the turn's other answers may be stale.
    pub(super) fn invalidate_turn(&self, key: &DedupeKey, call_id: &str) {
        self.turn().invalidate(key, call_id);
    }

    /// Forgets the whole turn.
    pub(super) fn clear_turn(&self) {
        self.turn().clear();
    }

    /// Answers a call identical to one made earlier in the turn with that call's result,
    /// once it is there. The duplicate gets its own activity (with `data.duplicate_of`) and
    /// its own START and END/ERROR pair; the tool does not run.
    pub(super) async fn answer_duplicate(
        &self,
        activity_id: &Arc<str>,
        first_id: String,
        spec: &ToolSpec,
        arguments: &Arc<Arguments>,
        rx: &mut ResultSlot,
        scope: &CallOptions,
    ) -> SharedResult {
        let mut start = ActivityStart::new(
            activity_id.clone(),
            spec.name.as_ref(),
            arguments.clone(),
            spec.user_facing,
        );
        start
            .data
            .insert("duplicate_of".into(), Value::String(first_id.clone()));
        if let Some(pending) = self.begin(start) {
            pending.await;
        }
        let result = tokio::select! {
            waited = rx.wait_for(Option::is_some) => match waited {
                // `wait_for` returns once the value is `Some`.
                Ok(r) => r.clone().unwrap_or_else(|| Err(cancelled_error())),
                Err(_) => Err(ToolError::system(format!(
                    "the identical call `{first_id}` was abandoned before it finished; call again"
                ))
                .with_signature(signature_of_arguments(&spec.name, arguments))),
            },
            () = scope.cancelled(&self.cancel) => {
                Err(cancelled_error().with_signature(signature_of_arguments(&spec.name, arguments)))
            }
        };
        if let Some(pending) = self.finish(activity_id, &spec.name, &result) {
            pending.await;
        }
        result
    }
}
