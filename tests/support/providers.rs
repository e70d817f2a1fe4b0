//! What the provider tests share: the registry of every tool linked into the facade, the
//! sandbox every call is dispatched through, and valid sample calls of every tool.
//!
//! Nothing here touches the network. Every call is dispatched through a [`Sandbox`] session:
//! the `web` tool gets a [`WebConfig`] whose search backend is unavailable and whose fetch
//! policy allows nothing local, and every tool is put behind the runtime's approval gate,
//! whose approver (see [`gate`]) sees the validated arguments just before the tool would run.
//! The fetch policy has no "refuse every host" setting (a public host name is resolved and
//! connected to), so the gate lets a `web` call run only when no string in its arguments is a
//! URL the policy would accept before DNS; such calls (refused schemes, loopback, private and
//! metadata addresses, plain text) fail inside the tool before anything is sent. Calls that
//! would fetch a public URL are imported and validated but stopped at the gate, answered with
//! `approval_denied`. A tool this file has no sandbox for (any tool other than `web` and
//! `prompt_manager`) is likewise imported, validated and dispatched up to the gate, never run.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolsmith::provider::{Importer, xml};
use toolsmith::std_tools::prompt::{AgentStore, MemoryAgentStore, PromptContext};
use toolsmith::std_tools::web::{NetworkPolicy, WebConfig, WebError};
use toolsmith::{
    ApprovalDecision, ApprovalRequest, FnApprover, Registry, Runtime, Session, ToolCall,
};

use crate::support::fixtures::checks::args;
use crate::support::linked_tools;

/// The tools this file knows how to run safely; every other tool stops at the gate.
pub const SANDBOXED: &[&str] = &["web", "prompt_manager"];

/// Every tool linked into the facade.
pub fn registry() -> Registry {
    let registry = linked_tools().build().expect("the linked tools register");
    for name in SANDBOXED {
        assert!(
            registry.get(name).is_some(),
            "tool-std's `{name}` is not registered; is tool-std linked?"
        );
    }
    registry
}

// ---- the sandbox ---------------------------------------------------------------------------

/// What the gate decided, per tool.
#[derive(Debug, Default)]
pub struct GateLog {
    pub ran: BTreeMap<String, usize>,
    pub held: BTreeMap<String, usize>,
}

/// A session over every linked tool that cannot reach the network, with an in-memory agent
/// store holding the current agent.
pub struct Sandbox {
    pub session: Session,
    pub log: Arc<Mutex<GateLog>>,
}

/// Whether any string in `args` (or in JSON text inside one) is a URL `policy` would accept
/// before DNS resolution: http(s) with a host name or a public address.
pub fn reaches_network(policy: &NetworkPolicy, args: &Value) -> bool {
    match args {
        Value::String(s) => {
            policy.check_url(s).is_ok()
                || serde_json::from_str::<Value>(s)
                    .is_ok_and(|inner| reaches_network(policy, &inner))
        }
        Value::Array(items) => items.iter().any(|v| reaches_network(policy, v)),
        Value::Object(map) => map.values().any(|v| reaches_network(policy, v)),
        _ => false,
    }
}

/// The approver of the sandbox: it sees every call after validation, just before its tool
/// would run. `prompt_manager` runs (its store is in memory); `web` runs only when it cannot
/// reach the network (no acceptable URL anywhere in its arguments, and the search backend is
/// unavailable); any other tool is held.
pub fn gate(policy: &NetworkPolicy, request: &ApprovalRequest) -> Result<(), &'static str> {
    match request.tool.as_str() {
        "prompt_manager" => Ok(()),
        "web" if request.arguments.is_object() && !reaches_network(policy, &request.arguments) => {
            Ok(())
        }
        "web" => Err("this test does not fetch URLs the network policy would let through"),
        _ => Err("this test has no sandbox for this tool"),
    }
}

pub async fn sandbox(registry: Registry) -> Sandbox {
    let store = Arc::new(MemoryAgentStore::new());
    let agent = store
        .get_or_create("default", "Sage")
        .await
        .expect("an agent");
    let web = WebConfig::from_options(None, &[] as &[&str])
        .expect("a web configuration")
        .with_search_unavailable(WebError::SearchNotConfigured);
    let policy = web.fetcher().policy().clone();
    assert!(
        policy.allowed_hosts().is_empty(),
        "nothing local is allowed"
    );
    let log = Arc::new(Mutex::new(GateLog::default()));
    let names: Vec<String> = registry.iter().map(|e| e.name().to_owned()).collect();
    let gate_log = log.clone();
    let mut builder = Runtime::builder(registry)
        .service(Arc::new(web))
        .service(Arc::new(PromptContext::new(store).with_agent(&agent)))
        .approver(FnApprover(move |request: &ApprovalRequest| {
            let decision = gate(&policy, request);
            let mut log = gate_log.lock().unwrap_or_else(|e| e.into_inner());
            let count = if decision.is_ok() {
                &mut log.ran
            } else {
                &mut log.held
            };
            *count.entry(request.tool.clone()).or_default() += 1;
            match decision {
                Ok(()) => ApprovalDecision::Approve,
                Err(reason) => ApprovalDecision::Deny {
                    reason: Some(reason.to_owned()),
                },
            }
        }));
    for name in names {
        builder = builder.require_approval(name, None);
    }
    Sandbox {
        session: builder.build().session(),
        log,
    }
}

// ---- round trips ---------------------------------------------------------------------------

/// What a sample call answers when it runs in the sandbox.
#[derive(Debug, Clone, Copy)]
pub enum Expect {
    /// A success of this `type`; an update's `new_value` echoes the `content` sent.
    Success(&'static str),
    /// An error of this `error_type`: the web tool's own refusals, before anything is sent.
    Error(&'static str),
    /// A tool without a sandbox: refused by validation or held at the gate, never run.
    Held,
}

/// Valid calls of every linked tool, with values that stress each format: line breaks,
/// unicode, markup and XML tags inside values, strings that read as numbers. A tool this file
/// does not know gets the example call its XML description shows.
pub fn samples(registry: &Registry) -> Vec<(ToolCall, Expect)> {
    use Expect::{Error, Success};
    let known = [
        (
            "prompt_manager",
            json!({"action": "view", "prompt_type": "system"}),
            Success("view_result"),
        ),
        (
            "prompt_manager",
            json!({"action": "update", "prompt_type": "system",
                   "content": "You are Sage.\n\n- use <tool:web> & \"quotes\" ]]>\n  indented 日本🦀\n"}),
            Success("update_result"),
        ),
        (
            "prompt_manager",
            json!({"action": "update", "prompt_type": "conversation_consolidation",
                   "content": "</param:content><param:prompt_type>name</param:prompt_type>"}),
            Success("update_result"),
        ),
        (
            "prompt_manager",
            json!({"action": "update", "prompt_type": "memory_management", "content": "42"}),
            Success("update_result"),
        ),
        (
            "prompt_manager",
            json!({"action": "update", "prompt_type": "name", "content": "Oracle"}),
            Success("update_result"),
        ),
        (
            "prompt_manager",
            json!({"action": "view", "prompt_type": "name"}),
            Success("view_result"),
        ),
        (
            "web",
            json!({"action": "search", "query_or_url": "rust <xml> & \"quotes\" ]]> 日本"}),
            Error("system_error"),
        ),
        (
            "web",
            json!({"action": "fetch", "query_or_url": "http://127.0.0.1:9/", "start_index": 40000}),
            Error("security_error"),
        ),
        (
            "web",
            json!({"action": "fetch", "query_or_url": "http://[::ffff:10.0.0.1]/a?b=c&d=<e>#f"}),
            Error("security_error"),
        ),
        (
            "web",
            json!({"action": "fetch", "query_or_url": "file:///etc/passwd"}),
            Error("user_error"),
        ),
        // A fetch the policy would let through: imported and validated, held at the gate.
        (
            "web",
            json!({"action": "fetch", "query_or_url": "https://example.com/a?q=1&r=<2>", "start_index": 0}),
            Error("approval_denied"),
        ),
    ];
    let mut out: Vec<(ToolCall, Expect)> = known
        .into_iter()
        .enumerate()
        .map(|(i, (name, args, expect))| (ToolCall::new(format!("call_{i}"), name, args), expect))
        .collect();
    let importer = Importer::new(registry);
    for entry in registry.iter() {
        if SANDBOXED.contains(&entry.name()) {
            continue;
        }
        let example = xml::example_call(entry.spec());
        let imported = importer
            .xml_calls(&example)
            .into_iter()
            .next()
            .expect("an example call")
            .expect("the example call imports");
        let id = format!("call_{}", out.len());
        let call = ToolCall::new(id, entry.name(), args(&imported.call));
        out.push((call, Expect::Held));
    }
    out
}
