//! Provider round trips for every tool linked into the facade: a valid call of every tool,
//! written in every provider's format, parses back to the same `ToolCall` and runs to the
//! expected answer in the sandbox; provider-shaped arguments are repaired and reported, calls
//! under old names import with the tool's schema, and the sandbox's gate holds every URL the
//! network policy would let through.

use serde_json::json;
use toolsmith::provider::{self, Format, Imported, Importer, RepairKind};
use toolsmith::std_tools::web::WebConfig;
use toolsmith::{CallOutcome, Registry, ToolCall};

use crate::support::fixtures;
use crate::support::fixtures::checks::{args, import_in_every_format, one};
use crate::support::linked_tools;
use crate::support::providers::*;

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
        linked_tools()
            .register(fixtures::Ping)
            .register(fixtures::CreateUser)
            .build()
            .expect("fixtures and tool-std register together")
    }
    let log = round_trip(with_fixtures).await;
    assert_eq!(log.ran.get("prompt_manager"), Some(&(6 * 7)), "{log:?}");
    assert_eq!(log.ran.get("web"), Some(&(4 * 7)), "{log:?}");
    // tool-std's own search, file and shell tools, and tool-core's fixtures (whose `grep`
    // would clash with tool-std's by name, so it stays out).
    for held in ["grep", "glob", "bash", "read_file", "ping", "create_user"] {
        assert_eq!(log.held.get(held), Some(&7), "{held}: {log:?}");
    }
    assert!(!log.ran.contains_key("grep") && !log.ran.contains_key("bash"));
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
