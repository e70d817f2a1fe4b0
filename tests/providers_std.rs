//! Provider formats for every tool linked into the facade (issue 4): tool-std's `web` and
//! `prompt_manager`, and whatever else registers itself through `inventory` here.
//!
//! tool-core's provider tests cannot see tool-std (tool-std depends on tool-core, so a
//! dev-dependency the other way would link two copies of tool-core); this file runs the same
//! checks from the facade, reusing tool-core's fixtures module for the provider rule tables
//! (`fixtures/rules.rs`) and the golden-file helper (`fixtures/snapshot.rs`):
//!
//! - export: every tool in every [`Format`] validates against the JSON Schema 2020-12
//!   meta-schema, satisfies the provider's documented rules, and matches its snapshot under
//!   `tests/snapshots/std_<format>.json` (`std_xml.md`);
//!   `UPDATE_SNAPSHOTS=1 cargo test --test providers_std` rewrites them;
//! - round trips: a valid call of every tool, written in every provider's format, parses back
//!   to the same `ToolCall` and runs to the expected answer;
//! - a property test (10,000 cases; `PROPTEST_CASES` overrides) feeding arbitrary JSON values,
//!   JSON strings and XML into import + validation + dispatch for every tool: no panic, every
//!   answer a structured result or a `type: "error"` JSON.
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

#![cfg(feature = "std")]

#[path = "../tool-core/tests/fixtures/mod.rs"]
mod fixtures;

use fixtures::checks::{self, Input, args, import_in_every_format, one, specs};

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use serde_json::{Value, json};
use toolsmith::provider::{
    self, ExportCache, Exported, Format, Imported, Importer, RepairKind, export_all, xml,
};
use toolsmith::std_tools::prompt::{AgentStore, MemoryAgentStore, PromptContext};
use toolsmith::std_tools::web::{NetworkPolicy, WebConfig, WebError};
use toolsmith::{
    ApprovalDecision, ApprovalRequest, CallOutcome, FnApprover, Registry, Runtime, Session,
    ToolCall,
};

/// The tools this file knows how to run safely; every other tool stops at the gate.
const SANDBOXED: &[&str] = &["web", "prompt_manager"];

/// Every tool linked into the facade.
fn registry() -> Registry {
    let registry = Registry::from_inventory().expect("the linked tools register");
    for name in SANDBOXED {
        assert!(
            registry.get(name).is_some(),
            "tool-std's `{name}` is not registered; is tool-std linked?"
        );
    }
    registry
}

// ---- export ------------------------------------------------------------------------------

/// Exports of a std tool that are expected to fail, as (tool, format). Every other export
/// must succeed: the standard tools speak every provider's format.
const EXPECTED_EXPORT_ERRORS: &[(&str, Format)] = &[];

#[test]
fn every_std_tool_in_every_format_is_valid_and_matches_its_snapshot() {
    let specs = specs(&registry());
    let mut failures: Vec<String> = Vec::new();
    let checked = checks::check_exports(
        "std",
        &specs,
        |tool, format| EXPECTED_EXPORT_ERRORS.contains(&(tool, format)),
        &mut failures,
    );
    assert_eq!(checked, specs.len() * Format::ALL.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_cache_gives_the_same_text_as_an_uncached_export() {
    let specs = specs(&registry());
    let cache = ExportCache::new();
    for &format in Format::ALL {
        let fresh = export_all(&specs, format);
        for _ in 0..2 {
            match (&fresh, cache.export_all(&specs, format)) {
                (Ok(Exported::Json(v)), Ok(text)) => {
                    assert_eq!(serde_json::to_string(v).unwrap(), text, "{format}")
                }
                (Ok(Exported::Text(t)), Ok(text)) => assert_eq!(t, &text, "{format}"),
                (Err(a), Err(b)) => assert_eq!(a, &b, "{format}"),
                (a, b) => panic!("{format}: {a:?} vs {b:?}"),
            }
        }
    }
}

// ---- the sandbox ---------------------------------------------------------------------------

/// What the gate decided, per tool.
#[derive(Debug, Default)]
struct GateLog {
    ran: BTreeMap<String, usize>,
    held: BTreeMap<String, usize>,
}

/// A session over every linked tool that cannot reach the network, with an in-memory agent
/// store holding the current agent.
struct Sandbox {
    session: Session,
    log: Arc<Mutex<GateLog>>,
}

/// Whether any string in `args` (or in JSON text inside one) is a URL `policy` would accept
/// before DNS resolution: http(s) with a host name or a public address.
fn reaches_network(policy: &NetworkPolicy, args: &Value) -> bool {
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
fn gate(policy: &NetworkPolicy, request: &ApprovalRequest) -> Result<(), &'static str> {
    match request.tool.as_str() {
        "prompt_manager" => Ok(()),
        "web" if request.arguments.is_object() && !reaches_network(policy, &request.arguments) => {
            Ok(())
        }
        "web" => Err("this test does not fetch URLs the network policy would let through"),
        _ => Err("this test has no sandbox for this tool"),
    }
}

async fn sandbox(registry: Registry) -> Sandbox {
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

#[test]
fn the_gate_holds_every_url_the_policy_would_let_through() {
    let policy = WebConfig::from_options(None, &[] as &[&str])
        .expect("config")
        .fetcher()
        .policy()
        .clone();
    for (args, runs) in [
        (
            json!({"action": "fetch", "query_or_url": "http://127.0.0.1:9/"}),
            true,
        ),
        (
            json!({"action": "fetch", "query_or_url": "ftp://example.com/"}),
            true,
        ),
        (
            json!({"action": "fetch", "query_or_url": "http://169.254.169.254/"}),
            true,
        ),
        (
            json!({"action": "fetch", "query_or_url": "example.com"}),
            true,
        ),
        (
            json!({"action": "search", "query_or_url": "rust async"}),
            true,
        ),
        (
            json!({"action": "fetch", "query_or_url": "https://example.com/"}),
            false,
        ),
        (
            json!({"action": "fetch", "query_or_url": " http://localhost/ "}),
            false,
        ),
        (
            json!({"action": "fetch", "query_or_url": "http://8.8.8.8/"}),
            false,
        ),
        (
            json!({"action": "search", "query_or_url": "https://example.com/"}),
            false,
        ),
        (json!({"x": ["\"http://example.org\""]}), false),
        (json!({"x": "{\"u\": \"http://example.org\"}"}), false),
    ] {
        assert_eq!(!reaches_network(&policy, &args), runs, "{args}");
    }
}

// ---- round trips ---------------------------------------------------------------------------

/// What a sample call answers when it runs in the sandbox.
#[derive(Debug, Clone, Copy)]
enum Expect {
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
fn samples(registry: &Registry) -> Vec<(ToolCall, Expect)> {
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

fn check_expected(format: Format, call: &ToolCall, expect: Expect, outcome: &CallOutcome) {
    let v = outcome.to_json();
    let what = format!("{format} {}: {v}", call.signature());
    match expect {
        Expect::Success(ty) => {
            assert!(outcome.is_success(), "{what}");
            assert_eq!(v["type"], ty, "{what}");
            if let Some(content) = args(call).get("content") {
                assert_eq!(&v["new_value"], content, "{what}");
            }
        }
        Expect::Error(kind) => {
            assert_eq!(v["type"], "error", "{what}");
            assert_eq!(v["error_type"], kind, "{what}");
        }
        Expect::Held => {
            assert_eq!(v["type"], "error", "{what}");
            assert!(
                v["error_type"] == "approval_denied" || v["error_type"] == "validation_error",
                "{what}"
            );
        }
    }
}

/// Writes every sample call of `make()`'s tools in every provider's format, imports it back,
/// compares, and runs it in a sandbox; answers with what the gate decided.
async fn round_trip(make: fn() -> Registry) -> GateLog {
    let registry = make();
    let importer = Importer::new(&registry);
    let sandbox = sandbox(make()).await;
    let samples = samples(&registry);
    for entry in registry.iter() {
        assert!(
            samples.iter().any(|(c, _)| c.name == entry.name()),
            "no sample call of `{}`",
            entry.name()
        );
    }
    let mut checked = 0;
    for (call, expect) in &samples {
        for (format, imported) in import_in_every_format(&importer, call) {
            // Every format runs: the redundancy check would answer a repeat from the first.
            sandbox.session.clear_current_turn();
            let outcome = provider::dispatch(&sandbox.session, imported).await;
            check_expected(format, call, *expect, &outcome);
            checked += 1;
        }
    }
    assert_eq!(checked, samples.len() * 7);
    std::mem::take(&mut *sandbox.log.lock().unwrap())
}

#[tokio::test]
async fn a_call_of_every_tool_in_every_provider_format_parses_to_the_same_tool_call() {
    let log = round_trip(registry).await;
    assert_eq!(log.ran.get("prompt_manager"), Some(&(6 * 7)), "{log:?}");
    assert_eq!(log.ran.get("web"), Some(&(4 * 7)), "{log:?}");
    assert_eq!(log.held.get("web"), Some(&7), "{log:?}");
}

/// A tool linked in later (tool-std's file, search and shell tools, a host's own) is covered
/// without a change here: its XML example call makes the round trip, and in the sandbox it is
/// validated and dispatched up to the approval gate, which holds it. Shown with tool-core's
/// fixture tools linked next to tool-std's.
#[tokio::test]
async fn a_tool_without_a_sandbox_makes_the_round_trip_and_is_held_at_the_gate() {
    fn with_fixtures() -> Registry {
        Registry::builder()
            .with_inventory()
            .register(fixtures::Grep)
            .register(fixtures::Ping)
            .register(fixtures::CreateUser)
            .build()
            .expect("fixtures and tool-std register together")
    }
    let log = round_trip(with_fixtures).await;
    assert_eq!(log.ran.get("prompt_manager"), Some(&(6 * 7)), "{log:?}");
    assert_eq!(log.ran.get("web"), Some(&(4 * 7)), "{log:?}");
    for held in ["grep", "ping", "create_user"] {
        assert_eq!(log.held.get(held), Some(&7), "{held}: {log:?}");
    }
    assert!(!log.ran.contains_key("grep"));
}

/// A strict-mode model sends every parameter, `null` for the ones it leaves out; Gemini sends
/// every number as a float; XML sends text. Each is repaired, reported, and runs.
#[tokio::test]
async fn provider_shaped_arguments_are_repaired_reported_and_run() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let sandbox = sandbox(self::registry()).await;
    let kinds = |imported: &Imported| -> Vec<(String, RepairKind)> {
        imported
            .repairs
            .iter()
            .map(|r| (r.path.clone(), r.kind))
            .collect()
    };
    let loopback = "http://127.0.0.1:9/";
    /// An imported call, the repairs it must report (path, kind) and its answer.
    type Case = (Imported, Vec<(&'static str, RepairKind)>, Expect);
    let cases: Vec<Case> = vec![
        (
            importer
                .openai_tool_call(&json!({"id": "s1", "type": "function", "function": {
                    "name": "prompt_manager",
                    "arguments": "{\"action\":\"view\",\"prompt_type\":\"name\",\"content\":null}"}}))
                .unwrap(),
            vec![("/content", RepairKind::NullDropped)],
            Expect::Success("view_result"),
        ),
        (
            importer
                .openai_tool_call(&json!({"id": "s2", "type": "function", "function": {
                    "name": "web",
                    "arguments": json!({"action": "fetch", "query_or_url": loopback,
                                        "start_index": null}).to_string()}}))
                .unwrap(),
            vec![("/start_index", RepairKind::NullDropped)],
            Expect::Error("security_error"),
        ),
        (
            importer
                .gemini_function_call(&json!({"functionCall": {"name": "web", "args": {
                    "action": "fetch", "query_or_url": loopback, "start_index": 5.0}}}))
                .unwrap(),
            vec![("/start_index", RepairKind::IntegerFromFloat)],
            Expect::Error("security_error"),
        ),
        (
            one(importer.xml_calls(&format!(
                "Let me look.\n<tool:web>\n<param:action>fetch</param:action>\n\
                 <param:query_or_url>{loopback}</param:query_or_url>\n\
                 <param:start_index>12</param:start_index>\n</tool:web>"
            ))),
            vec![("/start_index", RepairKind::NumberFromString)],
            Expect::Error("security_error"),
        ),
        (
            importer
                .anthropic_tool_use(&json!({"type": "tool_use", "id": "a1",
                    "name": "prompt_manager", "input": "{\"action\": \"view\", \"prompt_type\": \"system\"}"}))
                .unwrap(),
            vec![("", RepairKind::StringifiedJsonParsed)],
            Expect::Success("view_result"),
        ),
    ];
    for (imported, repairs, expect) in cases {
        let call = imported.call.clone();
        let got = kinds(&imported);
        let want: Vec<(String, RepairKind)> = repairs
            .into_iter()
            .map(|(p, k)| (p.to_owned(), k))
            .collect();
        assert_eq!(got, want, "{}", call.signature());
        sandbox.session.clear_current_turn();
        let outcome = provider::dispatch(&sandbox.session, imported).await;
        check_expected(Format::Json, &call, expect, &outcome);
    }
}

/// The old tool names still resolve, for the import's schema lookup and for dispatch.
#[tokio::test]
async fn calls_under_old_names_import_with_the_tools_schema_and_run() {
    let registry = registry();
    let importer = Importer::new(&registry);
    let sandbox = sandbox(self::registry()).await;
    let mut checked = 0;
    for name in SANDBOXED {
        let spec = registry.get(name).unwrap().spec().clone();
        assert!(!spec.aliases.is_empty(), "{name} keeps its old names");
        for alias in &spec.aliases {
            let (input, expect) = match *name {
                "web" => (
                    json!({"action": "fetch", "query_or_url": "http://127.0.0.1:9/", "start_index": "3"}),
                    Expect::Error("security_error"),
                ),
                _ => (
                    json!({"action": "view", "prompt_type": "system"}),
                    Expect::Success("view_result"),
                ),
            };
            let imported = importer
                .anthropic_tool_use(
                    &json!({"type": "tool_use", "id": "x", "name": alias, "input": input}),
                )
                .unwrap();
            if *name == "web" {
                // The string "3" was fitted with the schema of `web`: the alias resolved.
                assert_eq!(imported.repairs.len(), 1, "{alias}");
                assert_eq!(imported.repairs[0].kind, RepairKind::NumberFromString);
            }
            let call = imported.call.clone();
            sandbox.session.clear_current_turn();
            let outcome = provider::dispatch(&sandbox.session, imported).await;
            assert_eq!(outcome.tool, *name, "{alias}");
            check_expected(Format::Anthropic, &call, expect, &outcome);
            checked += 1;
        }
    }
    assert!(checked >= 10);
}

// ---- property: import + validation + dispatch never panic and always answer ---------------

/// The names a model may call (every tool's name and old names), each one's parameters, and
/// valid arguments of its tool (the round trips' samples) to start mutations from.
struct World {
    names: Vec<String>,
    params: Vec<Vec<String>>,
    templates: Vec<Vec<Value>>,
}

fn world(registry: &Registry) -> World {
    let samples = samples(registry);
    let mut w = World {
        names: Vec::new(),
        params: Vec::new(),
        templates: Vec::new(),
    };
    for e in registry.iter() {
        let own: Vec<String> = e
            .spec()
            .parameter_names()
            .into_iter()
            .map(str::to_owned)
            .collect();
        let templates: Vec<Value> = samples
            .iter()
            .filter(|(c, _)| c.name == e.name())
            .map(|(c, _)| args(c))
            .collect();
        for name in std::iter::once(e.name()).chain(e.spec().aliases.iter().map(|a| a.as_ref())) {
            w.names.push(name.to_owned());
            w.params.push(own.clone());
            w.templates.push(templates.clone());
        }
    }
    w
}

/// Values the standard tools branch on: actions, prompt types, URLs of every kind the fetch
/// policy refuses, and a few it would accept (which the gate holds).
const STD_WORDS: &[&str] = &[
    "search",
    "fetch",
    "view",
    "update",
    "crawl",
    "system",
    "conversation_consolidation",
    "memory_management",
    "name",
    "System",
    "http://127.0.0.1:9/",
    " http://[::1]:8080/x ",
    "https://10.0.0.1/a?b=c",
    "http://169.254.169.254/latest/meta-data/",
    "http://0x7f.1/",
    "http://100.64.0.1/",
    "ftp://example.com/",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "example.com/page",
    "http://",
    "https://example.com/",
    "http://localhost:9/",
    "rust async runtime",
];

/// One change to valid arguments.
#[derive(Debug, Clone)]
enum Edit {
    Remove(prop::sample::Index),
    Set(String, Value),
}

/// Arguments shaped like the tool's: valid arguments with up to three edits (so a third of
/// them stay valid and run), or an object whose keys are mostly its parameters, or anything.
fn args_for(w: &World, keys: Vec<String>) -> BoxedStrategy<(usize, Value)> {
    let n = w.names.len();
    let params = w.params.clone();
    let templates = w.templates.clone();
    (0..n).prop_flat_map(move |tool| {
        let mut own = params[tool].clone();
        if own.is_empty() {
            own.push("x".to_owned());
        }
        let entries = checks::object_args(STD_WORDS, own.clone(), keys.clone(), 0..5);
        let edit = prop_oneof![
            1 => any::<prop::sample::Index>().prop_map(Edit::Remove),
            2 => (prop::sample::select(own.clone()), checks::json_value(STD_WORDS, keys.clone()))
                .prop_map(|(k, v)| Edit::Set(k, v)),
            2 => (prop::sample::select(own.clone()), "[\\PC]{0,40}")
                .prop_map(|(k, s)| Edit::Set(k, Value::String(s))),
            2 => (prop::sample::select(own), prop::sample::select(STD_WORDS))
                .prop_map(|(k, s)| Edit::Set(k, Value::String(s.to_owned()))),
        ];
        let edited = (
            prop::sample::select(templates[tool].clone()),
            prop::collection::vec(edit, 0..3),
        )
            .prop_map(|(mut args, edits)| {
                if let Value::Object(map) = &mut args {
                    for e in edits {
                        match e {
                            Edit::Remove(i) if !map.is_empty() => {
                                let k = map.keys().nth(i.index(map.len())).cloned();
                                k.map(|k| map.remove(&k));
                            }
                            Edit::Remove(_) => {}
                            Edit::Set(k, v) => {
                                map.insert(k, v);
                            }
                        }
                    }
                }
                args
            });
        prop_oneof![
            4 => edited,
            3 => entries,
            1 => checks::json_value(STD_WORDS, keys.clone()),
        ]
        .prop_map(move |v| (tool, v))
    })
    .boxed()
}

fn input(w: &World) -> impl Strategy<Value = Input> {
    let mut keys: Vec<String> = w.params.iter().flatten().cloned().collect();
    keys.sort();
    keys.dedup();
    let values = prop_oneof![
        1 => "[a-z0-9 .,:-]{0,10}",
        1 => "[\\PC]{0,8}",
        2 => prop::sample::select(STD_WORDS).prop_map(str::to_owned),
        1 => Just("<![CDATA[</param:x>]]>".to_owned()),
        1 => Just("\n5\n".to_owned()),
        1 => Just("5.0".to_owned()),
        1 => Just("[\"a\", \"b\"]".to_owned()),
    ]
    .boxed();
    checks::input(
        args_for(w, keys),
        checks::xml_message(&w.names, &w.params, values, STD_WORDS, 0..5),
    )
}

#[test]
fn import_validate_dispatch_of_every_std_tool_never_panics_and_always_answers() {
    let registry = registry();
    let w = world(&registry);
    let importer = Importer::new(&registry);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let sandbox = rt.block_on(sandbox(self::registry()));
    let checks::Summary {
        cases,
        elapsed,
        successes: ok,
        errors: err,
        import_errors: import,
    } = checks::run_property(&rt, &w.names, &importer, &sandbox.session, true, input(&w));
    let log = sandbox.log.lock().unwrap();
    eprintln!(
        "{cases} cases over {} tools ({} names) in {:.1?}: {ok} successes, {err} error answers \
         ({import} of them import errors); the gate ran {:?} and held {:?}",
        registry.len(),
        w.names.len(),
        elapsed,
        log.ran,
        log.held,
    );
    // The generators must reach the tools' own code, not only the error paths before it.
    if cases >= 1_000 {
        let floor = usize::try_from(cases / 100).unwrap_or(usize::MAX);
        for name in SANDBOXED {
            let ran = log.ran.get(*name).copied().unwrap_or(0);
            assert!(ran >= floor, "`{name}` ran only {ran} times");
        }
        assert!(
            log.held.contains_key("web"),
            "no call reached the gate's refusal"
        );
        assert!(ok >= floor, "too few successes: {ok} of {}", ok + err);
    }
}
