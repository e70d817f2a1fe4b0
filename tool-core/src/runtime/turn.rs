//! The redundancy check's memory of a turn: the calls made so far, so that the same call
//! twice runs once, and the rule that a write makes the turn's earlier answers stale (see
//! the [module docs](super)).

use std::collections::HashMap;

use tokio::sync::watch;

use super::MAX_DEDUPE_ENTRIES;
use crate::error::ToolError;
use crate::output::ToolOutput;

/// A call's result as the redundancy check shares it with identical calls.
pub(super) type CallResult = Result<ToolOutput, ToolError>;

/// What identifies a call for the check: the tool's name and the arguments' JSON text.
pub(super) type DedupeKey = (String, String);

/// Where the first of identical calls publishes its result: `None` while it runs.
pub(super) type ResultSlot = watch::Receiver<Option<CallResult>>;

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
    First(watch::Sender<Option<CallResult>>),
    /// The turn already remembers [`MAX_DEDUPE_ENTRIES`] calls: run, unremembered.
    Untracked,
}

impl TurnCache {
    /// Admits a call: a duplicate of a live entry, or the first of its kind.
    pub(super) fn admit(&mut self, key: DedupeKey, call_id: &str) -> Admission {
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
    pub(super) fn invalidate(&mut self, key: &DedupeKey, call_id: &str) {
        self.calls.retain(|k, (id, _)| k == key && id == call_id);
    }

    /// Forgets every call of the turn.
    pub(super) fn clear(&mut self) {
        self.calls.clear();
    }
}
