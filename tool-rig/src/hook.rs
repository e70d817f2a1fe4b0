//! [`TurnHook`]: the agent hook that tells a session where rig's model turns begin, and
//! hands each tool call its provider call id.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rig_agent::agent::{
    AgentHook, CompletionCallAction, CompletionCallEvent, DispatchAction, DispatchEvent,
    HookContext,
};
use rig_core::effect::EffectKind;
use serde_json::Value;
use tool_core::Session;

/// The most call ids waiting for their call at once; past it, a call runs under a generated
/// id instead.
pub const MAX_PENDING_CALL_IDS: usize = 1024;

/// Call ids the hook saw dispatched and the tools have not taken yet, by tool name and a hash
/// of the arguments' compact JSON text, and whether a hook has marked a turn. Shared by a
/// [`RigTools`](crate::RigTools), its tools and its hooks.
#[derive(Debug, Default)]
pub(crate) struct CallIds {
    pending: Mutex<Pending>,
    marked: AtomicBool,
}

#[derive(Debug, Default)]
struct Pending {
    ids: HashMap<(String, u64), VecDeque<String>>,
    len: usize,
}

impl CallIds {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Remembers that the call `id` of `tool` with `arguments` is about to run.
    fn push(&self, tool: &str, arguments: &Value, id: String) {
        let mut pending = self.lock();
        if pending.len >= MAX_PENDING_CALL_IDS {
            return;
        }
        pending.len += 1;
        pending
            .ids
            .entry(key(tool, arguments))
            .or_default()
            .push_back(id);
    }

    /// The provider's id of a call of `tool` with `arguments`, if the hook saw it dispatched.
    pub(crate) fn take(&self, tool: &str, arguments: &Value) -> Option<String> {
        let mut pending = self.lock();
        let key = key(tool, arguments);
        let queue = pending.ids.get_mut(&key)?;
        let id = queue.pop_front();
        if queue.is_empty() {
            pending.ids.remove(&key);
        }
        if id.is_some() {
            pending.len = pending.len.saturating_sub(1);
        }
        id
    }

    /// A new model turn: forgets every id (the calls of the last turn have all run) and notes
    /// that a hook marks the turns.
    fn new_turn(&self) {
        self.marked.store(true, Ordering::Relaxed);
        let mut pending = self.lock();
        pending.ids.clear();
        pending.len = 0;
    }

    /// Whether a hook sharing these ids has marked a turn.
    pub(crate) fn marked(&self) -> bool {
        self.marked.load(Ordering::Relaxed)
    }
}

/// What a call is found by: its tool and a hash of its arguments (so that what is kept stays
/// small, whatever the arguments hold).
fn key(tool: &str, arguments: &Value) -> (String, u64) {
    use std::hash::{Hash, Hasher};
    // The process's own hash: what is kept lives as long as the hook.
    let mut hash = std::hash::DefaultHasher::new();
    arguments.to_string().hash(&mut hash);
    (tool.to_owned(), hash.finish())
}

/// The arguments of a dispatched call as a tool receives them: parsed, `null` as `{}` (rig
/// hands a tool `{}` for a `null`). `None` for text that is no JSON (rig refuses the call
/// before the tool runs).
fn arguments_of(text: &str) -> Option<Value> {
    match serde_json::from_str(text).ok()? {
        Value::Null => Some(Value::Object(Default::default())),
        value => Some(value),
    }
}

/// The agent hook of a [`RigTools`](crate::RigTools) ([`RigTools::hook`](crate::RigTools::hook)).
///
/// - **Turns.** Before every completion call of a run (rig's model turns: the first one and
///   each one after the tools answered), it ends the session's current turn
///   ([`Session::clear_current_turn`]). The tool calls of one model response therefore share
///   one turn, and in a session built with
///   [`SessionConfig::turns(true)`](tool_core::SessionConfig::turns) identical calls of that
///   response run once; a call of a later response runs again, so it sees what changed. Per-turn
///   limits (the web tool's searches) count per model response too.
/// - **Call ids.** It notes the provider's id of every tool call rig dispatches, and the tool
///   runs the call under that id: the id the approver is asked about, the call's span and the
///   answer to a duplicate call name the model's own call. A call the hook did not see (a tool
///   run without it, or with arguments a later hook rewrote) runs under a generated id
///   ([`generate_id`](tool_core::provider::generate_id)).
///
/// It never stops, patches or denies anything. One session is one conversation: a hook
/// shared by runs going on at the same time ends their turns for all of them, so identical
/// calls are answered once less often, never more.
#[derive(Clone)]
pub struct TurnHook {
    pub(crate) session: Session,
    pub(crate) ids: Arc<CallIds>,
}

impl std::fmt::Debug for TurnHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnHook")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl AgentHook for TurnHook {
    fn name(&self) -> Option<String> {
        Some("toolsmith.turns".to_owned())
    }

    async fn on_completion_call(
        &self,
        _ctx: &HookContext,
        _event: CompletionCallEvent<'_>,
    ) -> CompletionCallAction {
        self.session.clear_current_turn();
        self.ids.new_turn();
        CompletionCallAction::Continue
    }

    async fn on_dispatch(&self, _ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        if let (EffectKind::ToolCall { name, args }, Some(call_id)) = (event.kind, event.call_id)
            && let Some(arguments) = arguments_of(args)
        {
            self.ids.push(name, &arguments, call_id.wire().into_owned());
        }
        DispatchAction::Proceed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_come_back_in_order_per_call_and_the_ledger_is_bounded() {
        let ids = CallIds::default();
        let args = json!({"paths": ["a.txt"]});
        ids.push("read_file", &args, "c1".into());
        ids.push("read_file", &args, "c2".into());
        ids.push("grep", &args, "c3".into());
        assert_eq!(ids.take("read_file", &args).as_deref(), Some("c1"));
        assert_eq!(ids.take("read_file", &args).as_deref(), Some("c2"));
        assert_eq!(ids.take("read_file", &args), None);
        assert_eq!(ids.take("grep", &json!({})), None);
        assert!(!ids.marked());
        ids.new_turn();
        assert!(ids.marked());
        assert_eq!(ids.take("grep", &args), None);

        for n in 0..MAX_PENDING_CALL_IDS + 10 {
            ids.push("t", &json!({ "n": n }), format!("c{n}"));
        }
        assert_eq!(ids.lock().len, MAX_PENDING_CALL_IDS);
        assert_eq!(ids.take("t", &json!({"n": 0})).as_deref(), Some("c0"));
        assert_eq!(ids.take("t", &json!({ "n": MAX_PENDING_CALL_IDS })), None);
    }

    #[test]
    fn dispatched_arguments_read_as_the_tool_receives_them() {
        assert_eq!(arguments_of("null"), Some(json!({})));
        assert_eq!(arguments_of(r#"{ "a" : 1 }"#), Some(json!({"a": 1})));
        assert_eq!(arguments_of("{not json"), None);
    }
}
