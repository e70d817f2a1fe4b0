//! Asking the user through rmcp's client, and the 2026-07-28 round trip across replicas: the
//! question comes from replica A, the answer goes to replica B (both sealed with the key of
//! `toolsmith.toml`), and the command runs once. A forged, altered or replayed request state,
//! or one made for another call, is refused with nothing run.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, Implementation, InputResponses, ProtocolVersion,
};
use rmcp::service::{RequestContext, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData, ServiceExt};
use serde_json::json;

use crate::support::mcp::{ServeProcess, args, init_tls};

/// A client whose user answers every question with `decision`, counting the questions.
#[derive(Clone)]
pub(crate) struct User {
    info: ClientConfig,
    decision: &'static str,
    asked: Arc<AtomicUsize>,
}

impl ClientHandler for User {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        Ok(ElicitResult::new(ElicitationAction::Accept)
            .with_content(json!({"decision": self.decision})))
    }
}

pub(crate) async fn connect(
    url: &str,
    version: ProtocolVersion,
    user: User,
) -> RunningService<RoleClient, User> {
    let transport = StreamableHttpClientTransport::from_uri(url);
    let mut user = user;
    user.info = ClientConfig::new(
        ClientCapabilities::builder().enable_elicitation().build(),
        Implementation::new("toolsmith-tests", "1"),
    )
    .with_protocol_version(version.clone());
    if version >= ProtocolVersion::V_2026_07_28 {
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![version],
        };
        user.serve_with_lifecycle(transport, lifecycle).await
    } else {
        user.serve(transport).await
    }
    .expect("connect")
}

pub(crate) fn user(decision: &'static str) -> User {
    User {
        info: ClientConfig::default(),
        decision,
        asked: Arc::default(),
    }
}

pub(crate) fn runs(dir: &Path, file: &str) -> usize {
    std::fs::read_to_string(dir.join(file)).map_or(0, |t| t.lines().count())
}

pub(crate) fn bash(command: &str) -> CallToolRequestParams {
    CallToolRequestParams::new("bash").with_arguments(args(json!({"command": command})))
}

pub(crate) fn accepted() -> InputResponses {
    let mut r = InputResponses::new();
    r.insert(
        "approval".to_owned(),
        json!({"action": "accept", "content": {"decision": "allow_once"}}),
    );
    r
}

/// The text of a completed call, and whether it is an error.
pub(crate) fn completed(response: CallToolResponse) -> (bool, String) {
    match response {
        CallToolResponse::Complete(r) => {
            let text = r
                .content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                .collect::<String>();
            (r.is_error == Some(true), text)
        }
        other => panic!("not a completed call: {other:?}"),
    }
}

/// Two replicas of one workspace sharing the approval key.
fn replicas(dir: &Path) -> (ServeProcess, ServeProcess) {
    std::fs::write(
        dir.join("toolsmith.toml"),
        "[serve]\napproval_key = \"replicas-share-this-key-0123456789abcdef\"\n",
    )
    .expect("config");
    (ServeProcess::http(dir, &[]), ServeProcess::http(dir, &[]))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_lands_on_another_replica_and_states_are_not_reusable() {
    init_tls();
    let dir = tempfile::tempdir().expect("dir");
    let (a, b) = replicas(dir.path());
    let v = ProtocolVersion::V_2026_07_28;
    let on_a = connect(&a.url, v.clone(), user("allow_once")).await;
    let on_b = connect(&b.url, v.clone(), user("allow_once")).await;

    // Replica A asks.
    let first = on_a
        .call_tool_once(bash("echo x >> ran"))
        .await
        .expect("call");
    let CallToolResponse::InputRequired(question) = first else {
        panic!("not asked: {first:?}");
    };
    let state = question.request_state.clone().expect("a request state");
    let asked = question.input_requests.as_ref().expect("input requests");
    assert!(asked.contains_key("approval"), "{question:?}");
    assert_eq!(runs(dir.path(), "ran"), 0);

    // A forged state, and the real one altered: refused, nothing runs.
    let forged = format!("ta1.{}.{}", "7b7d", "00".repeat(32));
    let mut altered = state.clone().into_bytes();
    let at = altered.len() / 2;
    altered[at] = if altered[at] == b'a' { b'b' } else { b'a' };
    let altered = String::from_utf8(altered).expect("utf-8");
    for bad in [forged, altered] {
        let retry = bash("echo x >> ran")
            .with_request_state(bad)
            .with_input_responses(accepted());
        let (is_error, text) = completed(on_b.call_tool_once(retry).await.expect("call"));
        assert!(
            is_error && text.contains("request state is not valid"),
            "{text}"
        );
    }
    // The state, for another call: refused.
    let other = bash("echo y >> other")
        .with_request_state(state.clone())
        .with_input_responses(accepted());
    let (is_error, text) = completed(on_b.call_tool_once(other).await.expect("call"));
    assert!(
        is_error && text.contains("request state is not valid"),
        "{text}"
    );
    assert_eq!(runs(dir.path(), "ran") + runs(dir.path(), "other"), 0);

    // The answer, sent to replica B: the command runs once.
    let retry = bash("echo x >> ran")
        .with_request_state(state.clone())
        .with_input_responses(accepted());
    let (is_error, text) = completed(on_b.call_tool_once(retry.clone()).await.expect("call"));
    assert!(!is_error, "{text}");
    assert_eq!(runs(dir.path(), "ran"), 1);

    // Replayed, on either replica: refused.
    for client in [&on_a, &on_b] {
        let (is_error, text) = completed(client.call_tool_once(retry.clone()).await.expect("call"));
        assert!(
            is_error && text.contains("request state is not valid"),
            "{text}"
        );
    }
    assert_eq!(runs(dir.path(), "ran"), 1);

    // rmcp's own round-trip driver, against one replica: asked once, run once more.
    let driver = user("allow_once");
    let asked = driver.asked.clone();
    let client = connect(&a.url, v, driver).await;
    let result = client.call_tool(bash("echo x >> ran")).await.expect("call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert_eq!(runs(dir.path(), "ran"), 2);
    for c in [on_a, on_b, client] {
        let _ = c.cancel().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_clients_are_asked_under_2025_11_25() {
    init_tls();
    let dir = tempfile::tempdir().expect("dir");
    let server = ServeProcess::http(dir.path(), &[]);
    for (decision, expected_runs) in [("allow_once", 1), ("deny", 1)] {
        let u = user(decision);
        let asked = u.asked.clone();
        let client = connect(&server.url, ProtocolVersion::V_2025_11_25, u).await;
        let result = client.call_tool(bash("echo x >> ran")).await.expect("call");
        assert_eq!(asked.load(Ordering::SeqCst), 1, "{decision}");
        assert_eq!(
            result.is_error == Some(true),
            decision == "deny",
            "{decision}: {result:?}"
        );
        assert_eq!(runs(dir.path(), "ran"), expected_runs, "{decision}");
        let _ = client.cancel().await;
    }
}
