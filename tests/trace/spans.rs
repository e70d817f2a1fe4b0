//! Call spans as OpenTelemetry sees them, caught by the SDK's in-memory exporter through
//! `tracing-opentelemetry`: the GenAI conventions' name and attributes for a success, a
//! validation error, a timeout and a denied approval, a polymorphic tool's action, arguments
//! and results only when the host opts in, and over MCP the parent of the span is the
//! `traceparent` the client sent in `_meta`.

use std::time::Duration;

use opentelemetry::trace::{SpanId, TraceId, TracerProvider as _};
use opentelemetry::{KeyValue, Value as OtelValue};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolsmith::mcp::ServeOptions;
use toolsmith::{CallOptions, Runtime, ToolCall};
use tracing_subscriber::layer::SubscriberExt;

use crate::support::mcp::{test_runtime, test_tools};

/// Recomputes which call sites are enabled, now that this thread's subscriber exists.
///
/// `tracing` caches that per call site, process-wide. Another test's thread reaching a call
/// site for the first time while this test installs its subscriber can cache "disabled"
/// from the subscribers it saw, so a test that wants every event asks again before it acts.
fn fresh_interest() {
    tracing::callsite::rebuild_interest_cache();
}

/// Runs `f` on a current-thread runtime with spans going to an in-memory exporter; the
/// finished spans.
fn spans_of<F: Future<Output = ()>>(f: impl FnOnce() -> F) -> Vec<SpanData> {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("tests")));
    tracing::subscriber::with_default(subscriber, || {
        fresh_interest();
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(f());
    });
    provider.force_flush().expect("flush");
    exporter.get_finished_spans().expect("spans")
}

fn attr<'a>(span: &'a SpanData, key: &str) -> Option<&'a OtelValue> {
    span.attributes
        .iter()
        .find(|kv: &&KeyValue| kv.key.as_str() == key)
        .map(|kv| &kv.value)
}

fn text(span: &SpanData, key: &str) -> String {
    attr(span, key)
        .unwrap_or_else(|| panic!("{key} on {}: {:?}", span.name, span.attributes))
        .as_str()
        .into_owned()
}

/// The span of call `id`.
fn span<'a>(spans: &'a [SpanData], id: &str) -> &'a SpanData {
    spans
        .iter()
        .find(|s| attr(s, "gen_ai.tool.call.id").is_some_and(|v| v.as_str() == id))
        .unwrap_or_else(|| panic!("a span for call {id}: {spans:#?}"))
}

/// The conventions' attributes every call span has.
fn check_common(span: &SpanData, tool: &str) {
    assert_eq!(span.name, format!("execute_tool {tool}"));
    assert_eq!(span.span_kind, opentelemetry::trace::SpanKind::Internal);
    assert_eq!(text(span, "gen_ai.operation.name"), "execute_tool");
    assert_eq!(text(span, "gen_ai.tool.name"), tool);
    assert_eq!(text(span, "gen_ai.tool.type"), "function");
}

fn error_of(span: &SpanData) -> String {
    assert_eq!(text(span, "toolsmith.outcome"), "failure");
    assert!(
        matches!(span.status, opentelemetry::trace::Status::Error { .. }),
        "{:?}",
        span.status
    );
    text(span, "error.type")
}

fn runtime(content: bool) -> Runtime {
    let registry = test_tools()
        .register(toolsmith::std_tools::prompt::PromptManager)
        .build()
        .expect("registry");
    Runtime::builder(registry)
        .default_timeout(Duration::from_millis(100))
        .trace_content(content)
        .build()
}

#[test]
fn every_outcome_is_a_span_in_the_genai_conventions() {
    let spans = spans_of(|| async {
        let session =
            runtime(false).session_with(toolsmith::SessionConfig::default().agent("Sage"));
        let calls = [
            ("ok", "echo", json!({"n": 1, "colour": "red"})),
            ("bad", "echo", json!({"n": 1, "colour": "purple"})),
            ("slow", "slow", json!({"ticks": 50, "ms": 100})),
            ("denied", "forget", json!({"what": "everything"})),
            (
                "action",
                "prompt_manager",
                json!({"action": "view", "prompt_type": "system"}),
            ),
        ];
        for (id, tool, args) in calls {
            fresh_interest();
            session
                .call(ToolCall::new(id, tool, args.to_string()))
                .await;
        }
    });
    let ok = span(&spans, "ok");
    check_common(ok, "echo");
    assert_eq!(text(ok, "toolsmith.outcome"), "success");
    assert_eq!(text(ok, "toolsmith.mode"), "agent");
    assert_eq!(text(ok, "gen_ai.agent.name"), "Sage");
    assert!(attr(ok, "error.type").is_none());
    assert!(
        attr(ok, "gen_ai.tool.call.arguments").is_none(),
        "not without opting in"
    );
    assert!(
        attr(ok, "gen_ai.tool.call.result").is_none(),
        "not without opting in"
    );

    let bad = span(&spans, "bad");
    check_common(bad, "echo");
    assert_eq!(error_of(bad), "validation_error");
    assert!(
        bad.events.iter().any(|e| e.name == "call refused"),
        "{:?}",
        bad.events
    );

    let slow = span(&spans, "slow");
    check_common(slow, "slow");
    assert_eq!(error_of(slow), "timeout");
    assert!(slow.events.iter().any(|e| e.name == "call timed out"));

    let denied = span(&spans, "denied");
    check_common(denied, "forget");
    assert_eq!(error_of(denied), "approval_denied");
    let names: Vec<&str> = denied.events.iter().map(|e| e.name.as_ref()).collect();
    assert_eq!(
        names,
        ["approval asked", "approval answered", "call refused"]
    );

    let action = span(&spans, "action");
    check_common(action, "prompt_manager");
    assert_eq!(text(action, "toolsmith.action"), "view");
}

#[test]
fn arguments_and_results_are_recorded_only_when_the_host_opts_in() {
    let spans = spans_of(|| async {
        let session = runtime(true).session();
        let args = json!({"n": 7, "colour": "blue"});
        session
            .call(ToolCall::new("in", "echo", args.to_string()))
            .await;
    });
    let s = span(&spans, "in");
    let args: serde_json::Value =
        serde_json::from_str(&text(s, "gen_ai.tool.call.arguments")).expect("JSON");
    assert_eq!(args, json!({"n": 7, "colour": "blue"}));
    let result: serde_json::Value =
        serde_json::from_str(&text(s, "gen_ai.tool.call.result")).expect("JSON");
    assert_eq!(result, json!({"n": 7, "colour": "blue"}));
}

#[test]
fn a_library_caller_gives_the_parent() {
    let spans = spans_of(|| async {
        let session = runtime(false).session();
        let turn = tracing::info_span!("agent_turn");
        let options = CallOptions::new().parent(turn.clone());
        let args = json!({"n": 1, "colour": "red"});
        session
            .call_with(ToolCall::new("child", "echo", args.to_string()), options)
            .await;
        drop(turn);
    });
    let turn = spans
        .iter()
        .find(|s| s.name == "agent_turn")
        .expect("the turn");
    let child = span(&spans, "child");
    assert_eq!(child.parent_span_id, turn.span_context.span_id());
    assert_eq!(child.span_context.trace_id(), turn.span_context.trace_id());
}

#[test]
fn over_mcp_the_parent_is_the_traceparent_the_client_sent() {
    const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
    const PARENT: &str = "00f067aa0ba902b7";
    let spans = spans_of(|| async {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let (server_read, server_write) = tokio::io::split(server);
        let serving = tokio::spawn(toolsmith::mcp::serve_lines(
            test_runtime(),
            ServeOptions::new("traced"),
            server_read,
            server_write,
        ));
        let (client_read, mut client_write) = tokio::io::split(client);
        let mut meta = crate::support::mcp::meta_2026("traced-client");
        meta["traceparent"] = json!(format!("00-{TRACE}-{PARENT}-01"));
        meta["tracestate"] = json!("vendor=1");
        let frame = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "echo", "arguments": {"n": 3, "colour": "green"}, "_meta": meta,
        }});
        client_write
            .write_all(format!("{frame}\n").as_bytes())
            .await
            .expect("write");
        let mut lines = BufReader::new(client_read).lines();
        let answer = lines.next_line().await.expect("read").expect("an answer");
        assert!(answer.contains("\"n\":3"), "{answer}");
        drop(client_write);
        drop(lines);
        let _ = serving.await;
    });
    let s = span(&spans, "1");
    check_common(s, "echo");
    assert_eq!(
        s.span_context.trace_id(),
        TraceId::from_hex(TRACE).expect("hex")
    );
    assert_eq!(s.parent_span_id, SpanId::from_hex(PARENT).expect("hex"));
    assert!(s.parent_span_is_remote);
    assert_eq!(text(s, "toolsmith.mode"), "mcp");
    assert_eq!(
        text(s, "toolsmith.traceparent"),
        format!("00-{TRACE}-{PARENT}-01")
    );
}
