//! Asking the client's user before a call runs (MCP elicitation): see the module
//! documentation of [`crate::mcp`], *Asking the user*.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use hmac::{Hmac, KeyInit, Mac};
use rmcp::model::{
    CancelledNotificationParam, ClientCapabilities, ClientResult, ElicitRequest,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, EnumSchema,
    InputRequest, InputRequests, InputRequiredResult, InputResponses, LegacyEnumSchema,
    ProtocolVersion, ServerRequest,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleServer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Sha256;
use tokio_util::sync::CancellationToken;

use crate::approval::{ApprovalDecision, ApprovalRequest, ApprovedBy, Approver};
use crate::http::sha256;
use crate::runtime::Continues;

/// How long the user has to answer an `elicitation/create`.
pub const APPROVAL_TIMEOUT: Duration = Duration::from_secs(600);
/// How long a 2026-07-28 request state may be answered.
pub const APPROVAL_STATE_TTL: Duration = Duration::from_secs(600);
/// The most used approvals remembered in memory (older ones expire first).
pub const MAX_USED_APPROVALS: usize = 100_000;
/// The most "allow for this session" grants one session remembers; past it, calls ask again.
pub const MAX_SESSION_GRANTS: usize = 1_000;
/// The key of the approval question in `inputRequests` and `inputResponses`.
pub const APPROVAL_INPUT: &str = "approval";

/// The user's choices.
const ALLOW_ONCE: &str = "allow_once";
const ALLOW_SESSION: &str = "allow_session";
const DENY: &str = "deny";

/// What the server asks with, shared by its sessions: the key request states are sealed with,
/// and the record of approvals used.
#[derive(Debug)]
pub(crate) struct Asking {
    key: [u8; 32],
    used: UsedApprovals,
}

impl Asking {
    /// `secret` (any length; none: a random key, good for one process only) and where used
    /// approvals are recorded (none: in memory).
    /// A shared `store` takes precedence over `dir`.
    pub(crate) fn new(
        secret: Option<&[u8]>,
        dir: Option<PathBuf>,
        store: Option<Arc<dyn UsedApprovalStore>>,
    ) -> std::io::Result<Asking> {
        let key = match secret {
            Some(s) => sha256(&[b"toolsmith/mcp/approval-state/v1\0".as_slice(), s].concat()),
            None => random_bytes()?,
        };
        let used = match (store, dir) {
            (Some(store), _) => UsedApprovals::Shared(store),
            (None, Some(dir)) => {
                std::fs::create_dir_all(&dir)?;
                UsedApprovals::Dir(dir)
            }
            (None, None) => UsedApprovals::Memory(Mutex::default()),
        };
        Ok(Asking { key, used })
    }
}

fn random_bytes() -> std::io::Result<[u8; 32]> {
    let mut key = [0u8; 32];
    getrandom::fill(&mut key).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(key)
}

/// Whether the client can show a form to its user.
pub(crate) fn can_ask(capabilities: Option<&ClientCapabilities>) -> bool {
    capabilities
        .and_then(|c| c.elicitation.as_ref())
        .is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// The form: one required choice; `session` is the title of "allow for this session", which
/// names what it allows (none: no such choice).
fn form(version: &ProtocolVersion, session: Option<String>) -> ElicitationSchema {
    let mut values = vec![ALLOW_ONCE.to_owned()];
    let mut titles = vec!["Allow once".to_owned()];
    if let Some(title) = session {
        values.push(ALLOW_SESSION.to_owned());
        titles.push(title);
    }
    values.push(DENY.to_owned());
    titles.push("Deny".to_owned());
    let choice = if *version >= ProtocolVersion::V_2025_11_25 {
        match EnumSchema::builder(values.clone()).enum_titles(titles.clone()) {
            Ok(b) => b.title("Run this call?").build(),
            Err(_) => EnumSchema::builder(values.clone()).build(),
        }
    } else {
        // 2025-06-18 clients know titles as `enumNames`.
        let mut legacy = LegacyEnumSchema::new(values);
        legacy.enum_names = Some(titles);
        EnumSchema::Legacy(legacy)
    };
    ElicitationSchema::builder()
        .required_enum_schema("decision", choice)
        .build()
        .unwrap_or_else(|_| ElicitationSchema::builder().build_unchecked())
}

/// The form's message: the call, what asks, and what it would change.
fn message(request: &ApprovalRequest, session: Option<&str>) -> String {
    let mut text = format!(
        "Allow `{}` to run?\n\n{}\n\nAsked by {}.",
        request.tool,
        cut(&request.signature, 1000),
        request.asked_by()
    );
    if let Some(preview) = &request.preview {
        text.push_str("\n\nWhat it would change:\n");
        text.push_str(preview);
    }
    if let Some(title) = session {
        text.push_str("\n\nThe choice \u{201c}");
        text.push_str(title);
        text.push_str("\u{201d} lets such calls run unasked until the session ends.");
    }
    text
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// What the user's answer decides.
fn decision_of(answer: &ElicitResult) -> (ApprovalDecision, bool) {
    let deny = |reason: &str| ApprovalDecision::Deny {
        reason: Some(reason.to_owned()),
    };
    match answer.action {
        ElicitationAction::Accept => {
            let choice = answer
                .content
                .as_ref()
                .and_then(|c| c.get("decision"))
                .and_then(Value::as_str);
            match choice {
                Some(ALLOW_ONCE) => (ApprovalDecision::ApproveAs(ApprovedBy::UserOnce), false),
                Some(ALLOW_SESSION) => (ApprovalDecision::ApproveAs(ApprovedBy::UserSession), true),
                _ => (deny("the user denied the call"), false),
            }
        }
        ElicitationAction::Decline => (deny("the user declined the call"), false),
        _ => (
            deny("the user dismissed the question without answering"),
            false,
        ),
    }
}

/// What "allow for this session" allows, as its choice is titled: the call's scope
/// (`bash(git status *)`), or every call of the tool (and action) when it has none.
fn session_title(request: &ApprovalRequest) -> String {
    if request.scope.is_empty() {
        return match &request.action {
            Some(action) => format!(
                "Allow every `{}` call with action `{action}` for this session",
                request.tool
            ),
            None => format!("Allow every `{}` call for this session", request.tool),
        };
    }
    let rules: Vec<String> = request.scope.iter().map(|r| format!("`{r}`")).collect();
    format!("Allow {} for this session", rules.join(" and "))
}

/// What "allow for this session" remembers, and what a later call must find remembered to
/// run unasked: each rule of its scope, or its tool (and action) when it has none.
fn grant_keys(request: &ApprovalRequest) -> Vec<String> {
    if request.scope.is_empty() {
        return vec![format!(
            "tool\0{}\0{}",
            request.tool,
            request.action.as_deref().unwrap_or("")
        )];
    }
    request
        .scope
        .iter()
        .map(|rule| format!("scope\0{rule}"))
        .collect()
}

/// Asks through `elicitation/create` while the call waits (protocols with sessions).
pub(crate) struct PeerApprover {
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) version: ProtocolVersion,
    pub(crate) cancel: CancellationToken,
    /// The session's "allow for this session" grants.
    pub(crate) granted: Arc<Mutex<HashSet<String>>>,
}

#[async_trait]
impl Approver for PeerApprover {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        let keys = grant_keys(request);
        let granted = {
            let granted = self.granted.lock().unwrap_or_else(|e| e.into_inner());
            keys.iter().all(|k| granted.contains(k))
        };
        if granted {
            return ApprovalDecision::ApproveAs(ApprovedBy::UserSession);
        }
        let title = session_title(request);
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message(request, Some(&title)),
            requested_schema: form(&self.version, Some(title)),
        };
        let ask = ServerRequest::ElicitRequest(ElicitRequest::new(params));
        let options = PeerRequestOptions::with_timeout(APPROVAL_TIMEOUT);
        let handle = match self.peer.send_request_with_option(ask, options).await {
            Ok(h) => h,
            Err(e) => return unreachable_user(&e.to_string()),
        };
        let id = handle.id.clone();
        let answer = tokio::select! {
            answer = handle.await_response() => answer,
            () = self.cancel.cancelled() => {
                // The call is over: the question is withdrawn from the user's screen.
                let note = CancelledNotificationParam::new(Some(id), Some("the call was cancelled".to_owned()));
                // Bounded: a session that is closing may no longer send anything.
                let _ = tokio::time::timeout(
                    std::time::Duration::from_millis(500),
                    self.peer.notify_cancelled(note),
                )
                .await;
                return ApprovalDecision::Deny { reason: Some("the call was cancelled while the user was asked".to_owned()) };
            }
        };
        match answer {
            Ok(ClientResult::ElicitResult(answer)) => {
                let (decision, for_session) = decision_of(&answer);
                if for_session {
                    let mut granted = self.granted.lock().unwrap_or_else(|e| e.into_inner());
                    if granted.len() + keys.len() <= MAX_SESSION_GRANTS {
                        granted.extend(keys);
                    }
                }
                decision
            }
            Ok(_) => unreachable_user("the client answered the question with something else"),
            Err(e) => unreachable_user(&e.to_string()),
        }
    }
}

fn unreachable_user(why: &str) -> ApprovalDecision {
    ApprovalDecision::Deny {
        reason: Some(format!(
            "the user could not be asked through the client: {why}"
        )),
    }
}

/// What a sealed request state holds.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct State {
    /// Once only: recorded when used.
    nonce: String,
    /// Seconds since the epoch after which it is refused.
    expires: u64,
    /// The principal it was made for ("" for none).
    principal: String,
    /// The tool and the SHA-256 of its canonical arguments, as the client called it.
    tool: String,
    arguments: String,
    /// The activity record of the call that asked, `awaiting_approval` until the retry
    /// continues it (none in a state made before records were continued).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    activity: String,
    /// When it asked, in milliseconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "is_zero")]
    asked_at_ms: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The one answer to a state that does not hold, whatever is wrong with it.
const BAD_STATE: &str = "the approval's request state is not valid (altered, forged, expired, \
                         already used, or made for another call); nothing was run. Call again \
                         to be asked anew";

/// Asks through an `input_required` answer and the client's retry (2026-07-28).
///
/// The call that asks ends with the question, its record left `awaiting_approval`
/// ([`ApprovalDecision::Defer`]); the retry carrying the sealed state and the user's answer
/// continues that record ([`continues`](Self::continues)), so the round is one record that
/// ends as the user decided.
pub(crate) struct RoundTripApprover {
    asking: Arc<Asking>,
    principal: String,
    /// The call as the client made it: the tool's name and the SHA-256 of its canonical
    /// arguments, which a state is made for and checked against.
    tool: String,
    arguments: String,
    /// What the client's retry brought.
    retry: Retry,
    /// The question to answer the call with, when the user has not answered yet.
    pending: Mutex<Option<InputRequiredResult>>,
}

/// What a call brought back of an earlier question.
enum Retry {
    /// Nothing: a first call.
    None,
    /// A state that does not hold (altered, forged, expired, used, another principal's).
    Bad,
    /// A state that holds, without the user's answer: asked again.
    Unanswered(State),
    /// A state that holds, used now (once only), and the user's answer.
    Answered(State, Value),
}

impl RoundTripApprover {
    /// The approver of the call of `tool` with `arguments` (as the client sent them) that
    /// brought `state` and `responses` (none on a first call). A state that holds for this
    /// call and comes with an answer is used here, before the call runs, so that the call
    /// can go on with the record of the one that asked.
    pub(crate) async fn new(
        asking: Arc<Asking>,
        principal: Option<&str>,
        (tool, arguments): (&str, &Value),
        state: Option<String>,
        responses: Option<InputResponses>,
    ) -> RoundTripApprover {
        let principal = principal.unwrap_or_default().to_owned();
        let arguments = arguments_hash(arguments);
        let retry = match state {
            None => Retry::None,
            Some(sealed) => match open(&asking.key, &sealed) {
                Some(state)
                    if state.expires >= now_secs()
                        && state.principal == principal
                        && state.tool == tool
                        && state.arguments == arguments =>
                {
                    match responses.and_then(|mut r| r.remove(APPROVAL_INPUT)) {
                        // Used once, whatever the user chose: a denial cannot be retried into
                        // an approval.
                        Some(answer) => {
                            if asking.used.consume(&state.nonce, state.expires).await {
                                Retry::Answered(state, answer)
                            } else {
                                Retry::Bad
                            }
                        }
                        // The client called again without the answer: asked again.
                        None => Retry::Unanswered(state),
                    }
                }
                _ => Retry::Bad,
            },
        };
        RoundTripApprover {
            asking,
            principal,
            tool: tool.to_owned(),
            arguments,
            retry,
            pending: Mutex::default(),
        }
    }

    /// The earlier call whose record this one goes on with: the one that asked the question
    /// this call brings back.
    pub(crate) fn continues(&self) -> Option<Continues> {
        let state = match &self.retry {
            Retry::Unanswered(state) | Retry::Answered(state, _) => state,
            Retry::None | Retry::Bad => return None,
        };
        (!state.activity.is_empty())
            .then(|| Continues::new(state.activity.as_str(), state.asked_at_ms))
    }

    /// The `input_required` answer, if the call asked and the user has not answered.
    pub(crate) fn take_pending(&self) -> Option<InputRequiredResult> {
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// Asks the question: the call ends with it, its record waiting for the retry.
    fn ask(&self, request: &ApprovalRequest, asked_at_ms: u64) -> ApprovalDecision {
        let nonce = random_bytes().unwrap_or_else(|_| sha256(request.call_id.as_bytes()));
        let expires = now_secs().saturating_add(APPROVAL_STATE_TTL.as_secs());
        let state = State {
            nonce: hex::encode(nonce),
            expires,
            principal: self.principal.clone(),
            tool: self.tool.clone(),
            arguments: self.arguments.clone(),
            activity: request.activity_id.clone(),
            asked_at_ms,
        };
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message(request, None),
            requested_schema: form(&ProtocolVersion::V_2026_07_28, None),
        };
        let mut questions = InputRequests::new();
        questions.insert(
            APPROVAL_INPUT.to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(params)),
        );
        let sealed = seal(&self.asking.key, &state);
        *self.pending.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(InputRequiredResult::new(Some(questions), Some(sealed)));
        ApprovalDecision::Defer {
            reason: "waiting for the user's answer, asked through the client".to_owned(),
            expires_at_ms: expires.saturating_mul(1000),
        }
    }
}

#[async_trait]
impl Approver for RoundTripApprover {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        let bad = || ApprovalDecision::Deny {
            reason: Some(BAD_STATE.to_owned()),
        };
        match &self.retry {
            Retry::None => self.ask(request, crate::events::now_ms()),
            Retry::Bad => bad(),
            Retry::Unanswered(state) => {
                // The question goes on from when it was first asked.
                let asked = match state.asked_at_ms {
                    0 => crate::events::now_ms(),
                    at => at,
                };
                self.ask(request, asked)
            }
            Retry::Answered(_, answer) => {
                match serde_json::from_value::<ElicitResult>(answer.clone()) {
                    Ok(answer) => decision_of(&answer).0,
                    Err(_) => ApprovalDecision::Deny {
                        reason: Some(
                            "the client's answer to the approval question does not read as one"
                                .to_owned(),
                        ),
                    },
                }
            }
        }
    }
}

/// Where a server records the approval states it has used (2026-07-28's round trips), so that
/// no state approves twice: with several replicas, a store they all reach
/// ([`ServeOptions::used_approval_store`](super::ServeOptions::used_approval_store)). The
/// Postgres store (`postgres::PostgresStore`, feature `postgres`) is one.
#[async_trait::async_trait]
pub trait UsedApprovalStore: Send + Sync + std::fmt::Debug + 'static {
    /// Records `nonce` as used until `expires` (seconds since the epoch): `Ok(true)` the first
    /// time, `Ok(false)` when it was used before. `Err` says why the store could not be
    /// reached; the approval is then refused (and asked again), never let through.
    async fn consume(&self, nonce: &str, expires: u64) -> Result<bool, String>;
}

/// Where used approvals are recorded.
#[derive(Debug)]
enum UsedApprovals {
    /// In this process: nonce and when it expires.
    Memory(Mutex<HashMap<String, u64>>),
    /// A directory replicas share: a file per nonce, made with `O_EXCL`.
    Dir(PathBuf),
    /// A store replicas share.
    Shared(Arc<dyn UsedApprovalStore>),
}

/// How many expired entries one use may sweep from the directory.
const MAX_SWEEP: usize = 256;

impl UsedApprovals {
    /// Records `nonce` as used; `false` when it was already.
    async fn consume(&self, nonce: &str, expires: u64) -> bool {
        if nonce.is_empty() || !nonce.bytes().all(|b| b.is_ascii_hexdigit()) {
            return false;
        }
        match self {
            UsedApprovals::Memory(used) => {
                let mut used = used.lock().unwrap_or_else(|e| e.into_inner());
                if used.len() >= MAX_USED_APPROVALS {
                    let now = now_secs();
                    used.retain(|_, e| *e >= now);
                }
                if used.len() >= MAX_USED_APPROVALS {
                    // Full of live approvals: refuse rather than forget one.
                    return false;
                }
                used.insert(nonce.to_owned(), expires).is_none()
            }
            UsedApprovals::Dir(dir) => {
                sweep(dir);
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(dir.join(nonce))
                    .is_ok()
            }
            UsedApprovals::Shared(store) => match store.consume(nonce, expires).await {
                Ok(fresh) => fresh,
                Err(e) => {
                    tracing::warn!(
                        target: "toolsmith::mcp",
                        "an approval was refused: the record of used approvals cannot be \
                         reached ({e})"
                    );
                    false
                }
            },
        }
    }
}

/// Removes a bounded number of used-approval files older than the state's lifetime.
fn sweep(dir: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let old = SystemTime::now()
        .checked_sub(APPROVAL_STATE_TTL + Duration::from_secs(60))
        .unwrap_or(UNIX_EPOCH);
    for entry in entries.flatten().take(MAX_SWEEP) {
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t < old);
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The SHA-256 of the arguments with every object's keys sorted, in hex.
fn arguments_hash(arguments: &Value) -> String {
    fn canonical(v: &Value, out: &mut String) {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String((*k).clone()).to_string());
                    out.push(':');
                    canonical(&map[*k], out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    canonical(item, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut text = String::new();
    canonical(arguments, &mut text);
    hex::encode(sha256(text.as_bytes()))
}

/// HMAC-SHA256 (RFC 2104) of `message` under `key`, to finish into a tag or to check one with.
fn hmac(key: &[u8], message: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(message);
    mac
}

/// `ta1.<hex payload>.<hex tag>`.
fn seal(key: &[u8; 32], state: &State) -> String {
    let payload = serde_json::to_vec(state).unwrap_or_default();
    let body = hex::encode(payload);
    let tag = hmac(key, body.as_bytes()).finalize().into_bytes();
    format!("ta1.{body}.{}", hex::encode(tag))
}

/// The state, if `sealed` is one this key made.
fn open(key: &[u8; 32], sealed: &str) -> Option<State> {
    let rest = sealed.strip_prefix("ta1.")?;
    let (body, tag) = rest.split_once('.')?;
    if body.len() > 16 * 1024 {
        return None;
    }
    let mut given = [0u8; 32];
    hex::decode_to_slice(tag, &mut given).ok()?;
    // `verify_slice` compares the tags in constant time.
    hmac(key, body.as_bytes()).verify_slice(&given).ok()?;
    serde_json::from_slice(&hex::decode(body).ok()?).ok()
}

#[cfg(test)]
#[path = "ask_tests.rs"]
mod tests;
