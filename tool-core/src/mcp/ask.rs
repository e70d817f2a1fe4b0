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

use crate::approval::{ApprovalDecision, ApprovalRequest, Approver};
use crate::http::sha256;

/// How long the user has to answer an `elicitation/create`.
pub const APPROVAL_TIMEOUT: Duration = Duration::from_secs(600);
/// How long a 2026-07-28 request state may be answered.
pub const APPROVAL_STATE_TTL: Duration = Duration::from_secs(600);
/// The most used approvals remembered in memory (older ones expire first).
pub const MAX_USED_APPROVALS: usize = 100_000;
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
    pub(crate) fn new(secret: Option<&[u8]>, used: Option<PathBuf>) -> std::io::Result<Asking> {
        let key = match secret {
            Some(s) => sha256(&[b"toolsmith/mcp/approval-state/v1\0".as_slice(), s].concat()),
            None => random_bytes()?,
        };
        let used = match used {
            Some(dir) => {
                std::fs::create_dir_all(&dir)?;
                UsedApprovals::Dir(dir)
            }
            None => UsedApprovals::Memory(Mutex::default()),
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

/// The form: one required choice.
fn form(version: &ProtocolVersion, with_session: bool) -> ElicitationSchema {
    let mut values = vec![ALLOW_ONCE.to_owned()];
    let mut titles = vec!["Allow once".to_owned()];
    if with_session {
        values.push(ALLOW_SESSION.to_owned());
        titles.push("Allow for this session".to_owned());
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
fn message(request: &ApprovalRequest) -> String {
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
                Some(ALLOW_ONCE) => (ApprovalDecision::Approve, false),
                Some(ALLOW_SESSION) => (ApprovalDecision::Approve, true),
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

/// What "allow for this session" remembers: the rule that asked, or the tool (and action).
fn grant_key(request: &ApprovalRequest) -> String {
    match &request.rule {
        Some(rule) => format!("rule\0{rule}"),
        None => format!(
            "tool\0{}\0{}",
            request.tool,
            request.action.as_deref().unwrap_or("")
        ),
    }
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
        let key = grant_key(request);
        if self
            .granted
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&key)
        {
            return ApprovalDecision::Approve;
        }
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message(request),
            requested_schema: form(&self.version, true),
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
                    self.granted
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(key);
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
    /// The tool and the SHA-256 of its canonical arguments.
    tool: String,
    arguments: String,
}

/// The one answer to a state that does not hold, whatever is wrong with it.
const BAD_STATE: &str = "the approval's request state is not valid (altered, forged, expired, \
                         already used, or made for another call); nothing was run. Call again \
                         to be asked anew";

/// Asks through an `input_required` answer and the client's retry (2026-07-28).
pub(crate) struct RoundTripApprover {
    asking: Arc<Asking>,
    principal: String,
    /// The client's retry: the state it sends back and the user's answers.
    retry: Option<(String, InputResponses)>,
    /// The question to answer the call with, when the user has not answered yet.
    pending: Mutex<Option<InputRequiredResult>>,
}

impl RoundTripApprover {
    pub(crate) fn new(
        asking: Arc<Asking>,
        principal: Option<&str>,
        state: Option<String>,
        responses: Option<InputResponses>,
    ) -> RoundTripApprover {
        RoundTripApprover {
            asking,
            principal: principal.unwrap_or_default().to_owned(),
            retry: state.map(|s| (s, responses.unwrap_or_default())),
            pending: Mutex::default(),
        }
    }

    /// The `input_required` answer, if the call asked and the user has not answered.
    pub(crate) fn take_pending(&self) -> Option<InputRequiredResult> {
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    fn ask(&self, request: &ApprovalRequest) -> ApprovalDecision {
        let nonce = random_bytes().unwrap_or_else(|_| sha256(request.call_id.as_bytes()));
        let state = State {
            nonce: hex::encode(nonce),
            expires: now_secs().saturating_add(APPROVAL_STATE_TTL.as_secs()),
            principal: self.principal.clone(),
            tool: request.tool.clone(),
            arguments: arguments_hash(&request.arguments),
        };
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message(request),
            requested_schema: form(&ProtocolVersion::V_2026_07_28, false),
        };
        let mut questions = InputRequests::new();
        questions.insert(
            APPROVAL_INPUT.to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(params)),
        );
        let sealed = seal(&self.asking.key, &state);
        *self.pending.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(InputRequiredResult::new(Some(questions), Some(sealed)));
        ApprovalDecision::Deny {
            reason: Some("waiting for the user's answer, asked through the client".to_owned()),
        }
    }
}

#[async_trait]
impl Approver for RoundTripApprover {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        let Some((sealed, responses)) = &self.retry else {
            return self.ask(request);
        };
        let bad = || ApprovalDecision::Deny {
            reason: Some(BAD_STATE.to_owned()),
        };
        let Some(state) = open(&self.asking.key, sealed) else {
            return bad();
        };
        let holds = state.expires >= now_secs()
            && state.principal == self.principal
            && state.tool == request.tool
            && state.arguments == arguments_hash(&request.arguments);
        if !holds {
            return bad();
        }
        let Some(answer) = responses.get(APPROVAL_INPUT) else {
            // The client called again without the answer: ask again.
            return self.ask(request);
        };
        let Ok(answer) = serde_json::from_value::<ElicitResult>(answer.clone()) else {
            return ApprovalDecision::Deny {
                reason: Some(
                    "the client's answer to the approval question does not read as one".to_owned(),
                ),
            };
        };
        // Used once, whatever the user chose: a denial cannot be retried into an approval.
        if !self.asking.used.consume(&state.nonce, state.expires) {
            return bad();
        }
        decision_of(&answer).0
    }
}

/// Where used approvals are recorded.
#[derive(Debug)]
enum UsedApprovals {
    /// In this process: nonce and when it expires.
    Memory(Mutex<HashMap<String, u64>>),
    /// A directory replicas share: a file per nonce, made with `O_EXCL`.
    Dir(PathBuf),
}

/// How many expired entries one use may sweep from the directory.
const MAX_SWEEP: usize = 256;

impl UsedApprovals {
    /// Records `nonce` as used; `false` when it was already.
    fn consume(&self, nonce: &str, expires: u64) -> bool {
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
mod tests {
    use super::*;

    fn state() -> State {
        State {
            nonce: "ab12".into(),
            expires: now_secs() + 60,
            principal: "alice".into(),
            tool: "bash".into(),
            arguments: arguments_hash(&serde_json::json!({"command": "ls"})),
        }
    }

    /// RFC 4231, section 4: the HMAC-SHA-256 of test cases 1 to 7 (key, data, tag).
    fn rfc_4231_cases() -> Vec<(Vec<u8>, Vec<u8>, &'static str)> {
        vec![
            (
                vec![0x0b; 20],
                b"Hi There".to_vec(),
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            ),
            (
                b"Jefe".to_vec(),
                b"what do ya want for nothing?".to_vec(),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            (
                vec![0xaa; 20],
                vec![0xdd; 50],
                "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
            ),
            (
                (0x01..=0x19).collect(),
                vec![0xcd; 50],
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
            ),
            // Truncated to 128 bits.
            (
                vec![0x0c; 20],
                b"Test With Truncation".to_vec(),
                "a3b6167473100ee06e0c796c2955552b",
            ),
            (
                vec![0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
            (
                vec![0xaa; 131],
                b"This is a test using a larger than block-size key and a larger than block-size \
                  data. The key needs to be hashed before being used by the HMAC algorithm."
                    .to_vec(),
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
            ),
        ]
    }

    #[test]
    fn hmac_matches_rfc_4231_test_cases() {
        let cases = rfc_4231_cases();
        assert_eq!(cases.len(), 7);
        for (i, (key, data, expected)) in cases.iter().enumerate() {
            let case = i + 1;
            let expected = hex::decode(expected).unwrap();
            let tag = hmac(key, data).finalize().into_bytes();
            assert_eq!(tag[..expected.len()], expected[..], "test case {case}");
            if expected.len() == tag.len() {
                assert!(hmac(key, data).verify_slice(&expected).is_ok(), "{case}");
            } else {
                // Case 5: its first 128 bits, which are not a whole tag.
                assert_eq!((case, expected.len()), (5, 16));
                assert!(hmac(key, data).verify_slice(&expected).is_err());
                assert!(hmac(key, data).verify_truncated_left(&expected).is_ok());
            }
        }
    }

    #[test]
    fn hmac_tags_are_checked_whole() {
        let (key, data, expected) = &rfc_4231_cases()[1];
        let tag = hex::decode(expected).unwrap();
        assert!(hmac(key, data).verify_slice(&tag).is_ok());
        // Another message, another key, one bit of the tag changed, the tag cut short.
        let message = b"what do ya want for nothing!";
        assert!(hmac(key, message).verify_slice(&tag).is_err());
        assert!(hmac(b"Jeff", data).verify_slice(&tag).is_err());
        let mut flipped = tag.clone();
        flipped[31] ^= 1;
        assert!(hmac(key, data).verify_slice(&flipped).is_err());
        assert!(hmac(key, data).verify_slice(&tag[..31]).is_err());
        assert!(hmac(key, data).verify_slice(&[]).is_err());
    }

    #[test]
    fn states_open_only_as_sealed_with_the_same_key() {
        let key = [7u8; 32];
        let sealed = seal(&key, &state());
        assert_eq!(open(&key, &sealed), Some(state()));
        assert_eq!(open(&[8u8; 32], &sealed), None);
        // One character of the body or the tag changed.
        for at in [5, sealed.len() - 3] {
            let mut altered = sealed.clone().into_bytes();
            altered[at] = if altered[at] == b'0' { b'1' } else { b'0' };
            assert_eq!(
                open(&key, &String::from_utf8(altered).unwrap()),
                None,
                "{at}"
            );
        }
        for junk in ["", "ta1.", "ta1.zz.zz", "rs1.a.b", "ta1.00"] {
            assert_eq!(open(&key, junk), None, "{junk}");
        }
    }

    /// A sealed state's body and tag.
    fn parts(sealed: &str) -> (&str, &str) {
        let rest = sealed.strip_prefix("ta1.").expect("ta1.");
        rest.split_once('.').expect("body.tag")
    }

    #[test]
    fn sealed_states_are_lowercase_hex_and_tagged_over_the_body() {
        let key = [7u8; 32];
        let sealed = seal(&key, &state());
        let (body, tag) = parts(&sealed);
        let lower_hex = |s: &str| s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        assert!(lower_hex(body) && lower_hex(tag), "{sealed}");
        let payload = serde_json::to_vec(&state()).unwrap();
        assert_eq!(hex::decode(body).unwrap(), payload);
        let expected = hmac(&key, body.as_bytes()).finalize().into_bytes();
        assert_eq!(tag, hex::encode(expected));
    }

    #[test]
    fn sealed_states_keep_their_layout() {
        // `ta1.`, the state's JSON in hex, `.`, the HMAC-SHA256 of that hex under the key.
        let fixed = State {
            expires: 4_102_444_800,
            ..state()
        };
        let sealed = concat!(
            "ta1.",
            "7b226e6f6e6365223a2261623132222c2265787069726573223a343130323434343830302c22",
            "7072696e636970616c223a22616c696365222c22746f6f6c223a2262617368222c2261726775",
            "6d656e7473223a2234636632393631316136363933343836326632396163666363383137653330",
            "623930356331616237336435653635383331343133656236623435346434396462227d",
            ".15fb052e8df8464825682706ce9539dc322d9d290b47fa9dbd174c8fd78a418b",
        );
        assert_eq!(seal(&[7u8; 32], &fixed), sealed);
        assert_eq!(open(&[7u8; 32], sealed), Some(fixed));
    }

    #[test]
    fn a_tampered_state_is_refused() {
        let key = [7u8; 32];
        let sealed = seal(&key, &state());
        let (body, tag) = parts(&sealed);
        // Every hex digit of the body and of the tag, changed in turn.
        for at in 4..sealed.len() {
            if sealed.as_bytes()[at] == b'.' {
                continue;
            }
            let mut altered = sealed.clone().into_bytes();
            altered[at] = if altered[at] == b'f' { b'e' } else { b'f' };
            let altered = String::from_utf8(altered).unwrap();
            assert_eq!(open(&key, &altered), None, "{altered}");
        }
        // Another state (another principal) under the original tag.
        let forged = State {
            principal: "mallory".into(),
            ..state()
        };
        let forged_body = hex::encode(serde_json::to_vec(&forged).unwrap());
        assert_eq!(open(&key, &format!("ta1.{forged_body}.{tag}")), None);
        // The tag cut short, lengthened, or missing; the body cut short.
        for altered in [
            format!("ta1.{body}.{}", &tag[..32]),
            format!("ta1.{body}.{}", &tag[..tag.len() - 2]),
            format!("ta1.{body}.{tag}00"),
            format!("ta1.{body}."),
            format!("ta1.{body}"),
            format!("ta1.{}.{tag}", &body[..body.len() - 2]),
            format!("ta1.{body}.+{}", &tag[1..]),
        ] {
            assert_eq!(open(&key, &altered), None, "{altered}");
        }
        // Untouched, it still opens.
        assert_eq!(open(&key, &sealed), Some(state()));
    }

    #[test]
    fn argument_hashes_ignore_key_order_only() {
        let a = arguments_hash(&serde_json::json!({"a": 1, "b": [1, {"y": 2, "x": 1}]}));
        let b = arguments_hash(&serde_json::json!({"b": [1, {"x": 1, "y": 2}], "a": 1}));
        let c = arguments_hash(&serde_json::json!({"b": [{"x": 1, "y": 2}, 1], "a": 1}));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn a_nonce_is_used_once_in_memory_and_in_a_directory() {
        let dir = std::env::temp_dir().join(format!("toolsmith-used-{}", std::process::id()));
        for used in [
            UsedApprovals::Memory(Mutex::default()),
            UsedApprovals::Dir({
                std::fs::create_dir_all(&dir).unwrap();
                dir.clone()
            }),
        ] {
            assert!(used.consume("abcd", now_secs() + 60));
            assert!(!used.consume("abcd", now_secs() + 60));
            assert!(used.consume("abce", now_secs() + 60));
            assert!(!used.consume("../etc", now_secs() + 60));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
