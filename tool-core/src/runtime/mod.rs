mod call;
mod outcome;
mod record;
mod session;
mod turn;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

pub use outcome::CallOutcome;
pub use session::{CallOptions, Continues, Session};

use crate::activity::{ActivityStore, Conversation, InMemoryActivityStore};
use crate::approval::{Approver, DenyAll};
use crate::context::{Host, Services, SessionParts, SessionState};
use crate::events::EventStream;
use crate::policy::CallPolicy;
use crate::registry::Registry;
use crate::selection::SelectedTools;
use crate::spec::{Mode, PermissionSet};
use turn::TurnCache;

/// The default deadline of a call whose tool sets none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The default number of calls running at once in one runtime.
pub const DEFAULT_MAX_CONCURRENT: usize = 64;
/// The most distinct calls remembered per turn for the redundancy check.
pub const MAX_DEDUPE_ENTRIES: usize = 1024;

/// What every session of a runtime shares.
struct Inner {
    registry: Arc<Registry>,
    approver: Arc<dyn Approver>,
    /// The permission rules, consulted before the approval gate.
    policy: Option<Arc<dyn CallPolicy>>,
    /// The services, events and activity store every call's context shares.
    host: Arc<Host>,
    default_timeout: Duration,
    max_timeout: Duration,
    limiter: Arc<Semaphore>,
    dedupe: bool,
    approval_required: Vec<(String, Option<String>)>,
    /// Whether call spans record arguments and results.
    trace_content: bool,
}

/// Runs calls against a registry. Cheap to clone.
///
/// The runtime: a call's whole path, from a provider's tool call to a result message.
///
/// ```text
/// ToolCall -> lookup (aliases; unknown name -> tools of this mode + nearest)
///          -> mode and permission checks (tool and action)
///          -> validation (every problem at once)
///          -> redundancy check (same call twice in one turn)
///          -> permission rules, then the approval gate (while someone decides: activity
///             awaiting_approval + TOOL_CALL_START + AWAITING_APPROVAL, then APPROVED)
///          -> activity in_progress + TOOL_CALL_START
///          -> the tool runs in a concurrency slot, with a deadline (counted from when it
///             starts) and a cancellation token
///          -> activity success/failure + TOOL_CALL_END or ERROR
/// ```
///
/// A call refused on the way (unknown tool, mode, permission, validation, approval, a
/// cancelled session) still gets an activity record, which fails at once, and a
/// `TOOL_CALL_START` + `ERROR` pair: every call's events pair up. A call answered by the
/// redundancy check gets its own record (with `data.duplicate_of`) and pair as well.
///
/// # Approval in the record
///
/// A call allowed by a rule, or by an approver that answers at once (a session's earlier
/// "allow for this session", `--approve`), begins `in_progress` with its record's `allowed`
/// saying how ([`Allowed`](crate::Allowed)). A call whose approver has to wait for someone
/// begins `awaiting_approval` as soon as the question is out, so a page and `toolsmith
/// activity` show it waiting; allowed, it goes on `in_progress` (`APPROVED`, with who allowed
/// it and how long it waited, which its duration includes); denied, it ends `failure`. An
/// approver whose answer comes with a later call ([`ApprovalDecision::Defer`]) leaves the
/// record waiting, and the call that brings the answer ([`CallOptions::continues`]) goes on
/// with it: one record for the whole asking round.
///
/// [`ApprovalDecision::Defer`]: crate::ApprovalDecision::Defer
///
/// # The redundancy check
///
/// A call identical to one made earlier in the same turn (same tool, same arguments) does
/// not run: it is answered with the earlier call's result, once that is there. Reads can be
/// answered that way; a call that changes things makes earlier answers stale, so:
///
/// - A call *writes* unless its tool is `read_only` ([`Annotations`](crate::Annotations)) or,
///   for a polymorphic tool, the chosen action is ([`ActionSpec::read_only`](crate::ActionSpec)).
/// - When a write has run (whatever its result; a call refused before it ran changes
///   nothing), the turn forgets every earlier call but the write itself. A call made after
///   that runs again: `view`, `update`, `view` shows the updated value.
/// - The write's own entry stays until the next write ends, so an identical write later in
///   the turn is still answered from the first, as seed 004 asks.
/// - Calls running at the same time as a write have no order between them; a read that
///   overlaps a write may be answered either way, but never after the write has ended.
///
/// [`Session::clear_current_turn`] forgets the whole turn; [`RuntimeBuilder::dedupe`] turns
/// the check off.
///
/// A call whose future is dropped after its START (a client that went away, an agent loop
/// that gave up) ends `failure` with "the call was abandoned before it finished" and its
/// `ERROR`, and its tool's cancellation token fires: a guard owns every START's END.
///
/// A [`Runtime`] is shared by every conversation; a [`Session`] is one conversation (its
/// mode, its role's permissions, its turn state). `call.rs` holds a call's whole path, top
/// to bottom, as the steps of one struct.
#[derive(Clone)]
pub struct Runtime {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("tools", &self.inner.registry.len())
            .field("default_timeout", &self.inner.default_timeout)
            .finish_non_exhaustive()
    }
}

/// Configures a [`Runtime`].
pub struct RuntimeBuilder {
    registry: Arc<Registry>,
    approver: Arc<dyn Approver>,
    policy: Option<Arc<dyn CallPolicy>>,
    host: Host,
    default_timeout: Duration,
    max_timeout: Duration,
    max_concurrent: usize,
    dedupe: bool,
    approval_required: Vec<(String, Option<String>)>,
    trace_content: bool,
}

impl std::fmt::Debug for RuntimeBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeBuilder").finish_non_exhaustive()
    }
}

impl RuntimeBuilder {
    /// Sets the approver (default: [`DenyAll`]).
    pub fn approver(mut self, a: impl Approver) -> Self {
        self.approver = Arc::new(a);
        self
    }

    /// Sets the permission rules every call is checked against before the approval gate
    /// (default: none, so each tool's declaration decides). See [`Rule`](crate::Rule).
    pub fn policy(mut self, p: Arc<dyn CallPolicy>) -> Self {
        self.policy = Some(p);
        self
    }

    /// Sets the activity store (default: [`InMemoryActivityStore`]).
    pub fn activity_store(mut self, s: Arc<dyn ActivityStore>) -> Self {
        self.host.activities = s;
        self
    }

    /// Uses an existing event stream (to share it with other parts of the host).
    pub fn events(mut self, e: EventStream) -> Self {
        self.host.events = e;
        self
    }

    /// Adds a service every tool can reach through
    /// [`ToolContext::service`](crate::ToolContext::service).
    pub fn service<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.host.services.insert(value);
        self
    }

    /// Sets the deadline of calls whose tool sets none (default 60 s).
    pub fn default_timeout(mut self, d: Duration) -> Self {
        self.default_timeout = d;
        self
    }

    /// Caps every call's deadline, whatever the tool says (default 10 minutes).
    pub fn max_timeout(mut self, d: Duration) -> Self {
        self.max_timeout = d;
        self
    }

    /// Sets how many calls run at once; others wait their turn (default 64, at least 1).
    pub fn max_concurrent(mut self, n: usize) -> Self {
        self.max_concurrent = n.clamp(1, Semaphore::MAX_PERMITS);
        self
    }

    /// Turns the redundancy check on or off (default on).
    pub fn dedupe(mut self, on: bool) -> Self {
        self.dedupe = on;
        self
    }

    /// Requires approval for a tool, or for one action of it, on top of what the tool
    /// declares (e.g. `prompt_manager`'s `update` alone).
    pub fn require_approval(mut self, tool: impl Into<String>, action: Option<&str>) -> Self {
        self.approval_required
            .push((tool.into(), action.map(str::to_owned)));
        self
    }

    /// Whether each call's span records its arguments and result (`gen_ai.tool.call.arguments`
    /// and `gen_ai.tool.call.result`, cut at
    /// [`MAX_TRACED_CONTENT_BYTES`](crate::trace::MAX_TRACED_CONTENT_BYTES)). Off by default:
    /// they may hold secrets. See [`CALL_TARGET`](crate::CALL_TARGET).
    pub fn trace_content(mut self, on: bool) -> Self {
        self.trace_content = on;
        self
    }

    /// Builds the runtime.
    pub fn build(self) -> Runtime {
        Runtime {
            inner: Arc::new(Inner {
                registry: self.registry,
                approver: self.approver,
                policy: self.policy,
                host: Arc::new(self.host),
                default_timeout: self.default_timeout,
                max_timeout: self.max_timeout,
                limiter: Arc::new(Semaphore::new(self.max_concurrent)),
                dedupe: self.dedupe,
                approval_required: self.approval_required,
                trace_content: self.trace_content,
            }),
        }
    }
}

impl Runtime {
    /// A builder over a registry.
    pub fn builder(registry: impl Into<Arc<Registry>>) -> RuntimeBuilder {
        RuntimeBuilder {
            registry: registry.into(),
            approver: Arc::new(DenyAll),
            policy: None,
            host: Host {
                services: Services::new(),
                events: EventStream::new(),
                activities: Arc::new(InMemoryActivityStore::new()),
                deferred: Default::default(),
            },
            default_timeout: DEFAULT_TIMEOUT,
            max_timeout: Duration::from_secs(600),
            max_concurrent: DEFAULT_MAX_CONCURRENT,
            dedupe: true,
            approval_required: Vec::new(),
            trace_content: false,
        }
    }

    /// The registry.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.inner.registry
    }

    /// The event stream.
    pub fn events(&self) -> &EventStream {
        &self.inner.host.events
    }

    /// The activity store.
    pub fn activities(&self) -> &Arc<dyn ActivityStore> {
        &self.inner.host.activities
    }

    /// A new session in mode `agent` with every permission.
    pub fn session(&self) -> Session {
        self.session_with(SessionConfig::default())
    }

    /// A new session. Its calls' records belong to `config.conversation`, or to a
    /// conversation of the session's own (a generated key, the session's agent and principal).
    pub fn session_with(&self, config: SessionConfig) -> Session {
        let conversation = config.conversation.unwrap_or_else(|| {
            let mut c = Conversation::generated();
            if let Some(agent) = &config.agent {
                c = c.agent(&**agent);
            }
            if let Some(principal) = &config.principal {
                c = c.principal(&**principal);
            }
            Arc::new(c)
        });
        Session {
            runtime: self.clone(),
            permissions: config.permissions,
            parts: Arc::new(SessionParts {
                mode: config.mode,
                state: SessionState::default(),
                services: config.services,
                cancel: CancellationToken::new(),
                turns: config.turns,
                who: crate::trace::Who {
                    agent: config.agent,
                    principal: config.principal,
                },
                tools: config.tools,
                conversation,
            }),
            turn: Arc::new(Mutex::new(TurnCache::default())),
        }
    }
}

/// How a session is set up: its mode, its role's permissions, its own services (the current
/// agent, say).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SessionConfig {
    /// The mode (default `agent`).
    pub mode: Mode,
    /// The role's permissions (default: all).
    pub permissions: PermissionSet,
    /// Services for this session only; they shadow the runtime's.
    pub services: Services,
    /// Whether the session's calls come in turns its host marks
    /// ([`Session::clear_current_turn`] at each model response), as an agent loop's do
    /// (default `false`). Only then is a call answered from an identical earlier one of its
    /// turn (its answer says so), and only then do per-turn limits apply. A session never
    /// told of its turns (a library's, an MCP server's, where each request stands alone, a
    /// command line's) runs every call, so a re-read of a changed file reads it again; tools
    /// fall back to limits by time.
    pub turns: bool,
    /// The agent the session's calls are made for (`gen_ai.agent.name` on their spans).
    pub agent: Option<Arc<str>>,
    /// The principal the session serves (`toolsmith.principal` on their spans).
    pub principal: Option<Arc<str>>,
    /// The tools the session is offered and may call (default `None`: every tool of its
    /// mode). A call of any other tool is refused with a `permission_error` that lists the
    /// tools offered; an MCP server lists only these in `tools/list`. See
    /// [`ToolSelection`](crate::ToolSelection).
    pub tools: Option<SelectedTools>,
    /// The conversation the session's calls belong to, as their activity records and events
    /// say (default: one of the session's own, with its agent and principal).
    pub conversation: Option<Arc<Conversation>>,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            mode: Mode::Agent,
            permissions: PermissionSet::all(),
            services: Services::new(),
            turns: false,
            agent: None,
            principal: None,
            tools: None,
            conversation: None,
        }
    }
}

impl SessionConfig {
    /// Sets the mode.
    pub fn mode(mut self, m: Mode) -> Self {
        self.mode = m;
        self
    }
    /// Sets the permissions.
    pub fn permissions(mut self, p: PermissionSet) -> Self {
        self.permissions = p;
        self
    }
    /// Sets whether the session's calls come in turns (see [`turns`](Self::turns)).
    pub fn turns(mut self, on: bool) -> Self {
        self.turns = on;
        self
    }
    /// Adds a session service.
    pub fn service<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.services.insert(value);
        self
    }
    /// Sets the agent the session's calls are made for (see [`agent`](Self::agent)).
    pub fn agent(mut self, name: impl Into<Arc<str>>) -> Self {
        self.agent = Some(name.into());
        self
    }
    /// Sets the principal the session serves (see [`principal`](Self::principal)).
    pub fn principal(mut self, name: impl Into<Arc<str>>) -> Self {
        self.principal = Some(name.into());
        self
    }
    /// Offers the session only these tools, and refuses calls of any other (see
    /// [`tools`](field@Self::tools)). Setting it again replaces the earlier selection;
    /// combine two with [`SelectedTools::intersection`].
    pub fn tools(mut self, selected: SelectedTools) -> Self {
        self.tools = Some(selected);
        self
    }

    /// Sets the conversation the session's calls belong to (see
    /// [`conversation`](Self::conversation)).
    pub fn conversation(mut self, conversation: Conversation) -> Self {
        self.conversation = Some(Arc::new(conversation));
        self
    }
}
