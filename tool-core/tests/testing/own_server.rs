//! `mcp::McpTools` in an rmcp `ServerHandler` of the author's own: the handler lists its own
//! tool beside the toolsmith tools and hands their calls over, and what `serve` gives holds
//! under 2025-11-25 and 2026-07-28: validation errors, structured results, approval through
//! the client's user, progress, the activity record grouped by client, and the calls of a
//! connection cancelled when it ends.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;
use tool_core::mcp::{McpTools, McpToolsSession, ServeOptions};
use tool_core::testing::{Elicit, McpClient, McpVersion};
use tool_core::{ActivityStatus, Runtime};

use crate::support::*;

/// An author's server: one tool of its own (`ping`), the rest toolsmith's.
struct Own {
    toolsmith: McpToolsSession,
}

fn ping() -> Tool {
    let schema = json!({"type": "object", "properties": {}});
    let schema = Arc::new(schema.as_object().cloned().unwrap_or_default());
    Tool::new("ping", "Answer pong.", schema)
}

impl ServerHandler for Own {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = vec![ping()];
        tools.extend(self.toolsmith.tools(&context));
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.toolsmith.owns(&request.name) {
            return self.toolsmith.call_tool(request, context).await;
        }
        match &*request.name {
            "ping" => Ok(CallToolResult::success(vec![ContentBlock::text("pong")]).into()),
            other => Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        }
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        (name == "ping")
            .then(ping)
            .or_else(|| self.toolsmith.get_tool(name))
    }
}

const VERSIONS: [McpVersion; 2] = [McpVersion::V2025_11_25, McpVersion::V2026_07_28];

#[tokio::test]
async fn an_own_handler_serves_its_tool_beside_toolsmiths_with_what_serve_gives() {
    for version in VERSIONS {
        let risky = Risky::default();
        let waiter = Waiter::default();
        let runtime = Runtime::builder(registry(|b| {
            b.register(Add)
                .register(risky.clone())
                .register(waiter.clone())
        }))
        .build();
        let tools = McpTools::new(runtime.clone(), ServeOptions::new("own")).unwrap();
        assert!(tools.tools().iter().any(|t| t.name == "add"));
        let mut client = McpClient::builder()
            .version(version)
            .client_name("own-client")
            .elicit([Elicit::allow_once(), Elicit::deny()])
            .start_with(Own {
                toolsmith: tools.session(),
            })
            .await;

        let listed = client.list_tools().await;
        let names: Vec<&str> = listed.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, ["ping", "add", "risky", "waiter"], "{version:?}");
        let add = listed.iter().find(|t| t["name"] == "add").unwrap();
        assert_eq!(add["outputSchema"]["type"], "object", "{add}");
        assert_eq!(add["annotations"]["readOnlyHint"], false, "{add}");

        let pong = client.call("ping", json!({})).await;
        assert_eq!(pong.text, "pong", "{version:?}: {pong:?}");
        let sum = client.call("add", json!({"a": 2, "b": 3})).await;
        assert_eq!(
            sum.structured,
            Some(json!({"sum": 5})),
            "{version:?}: {sum:?}"
        );
        let bad = client.call("add", json!({"a": "two", "b": 3})).await;
        assert!(
            bad.is_error && bad.text.contains("validation_error") && bad.text.contains("example"),
            "{version:?}: {bad:?}"
        );

        // Approval through the client's user, in the version's own form.
        let allowed = client.call("risky", json!({"key": "a"})).await;
        assert!(!allowed.is_error, "{version:?}: {allowed:?}");
        assert_eq!(allowed.asked.len(), 1, "{version:?}: {allowed:?}");
        let denied = client.call("risky", json!({"key": "b"})).await;
        assert!(
            denied.is_error && denied.text.contains("the user denied the call"),
            "{version:?}: {denied:?}"
        );
        let runs = risky.inner.runs.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(runs, 1, "{version:?}");

        // Progress notifications while the tool waits.
        let release = {
            let w = waiter.clone();
            tokio::spawn(async move {
                w.started.notified().await;
                w.release.notify_one();
            })
        };
        let waited = client.call("waiter", json!({})).await;
        release.await.unwrap();
        assert_eq!(
            waited.structured,
            Some(json!({"released": true})),
            "{version:?}"
        );
        assert!(
            client
                .progress()
                .iter()
                .any(|p| p.contains("Waiting for release")),
            "{version:?}: {:?}",
            client.progress()
        );
        client.close().await;

        // The record: each toolsmith call, grouped by the client that made it; `ping` is
        // the handler's own and not toolsmith's to record.
        let records = runtime.activities().list().await;
        let tools_run: Vec<&str> = records.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(records.len(), 5, "{version:?}: {tools_run:?}");
        assert!(!tools_run.contains(&"ping"), "{tools_run:?}");
        for r in &records {
            let conversation = r.conversation.as_ref().expect("conversation");
            assert_eq!(
                conversation.client_name.as_deref(),
                Some("own-client"),
                "{version:?}: {conversation:?}"
            );
        }
        let denied_record = records
            .iter()
            .find(|r| r.name == "risky" && r.status == ActivityStatus::Failure)
            .expect("the denied call's record");
        assert!(denied_record.allowed.is_none(), "{denied_record:?}");
    }
}

#[tokio::test]
async fn a_connection_that_ends_cancels_what_it_runs() {
    let waiter = Waiter::default();
    let runtime = Runtime::builder(registry(|b| b.register(waiter.clone()))).build();
    let tools = McpTools::new(runtime.clone(), ServeOptions::new("own")).unwrap();
    let session = tools.session();
    let tool_session = session.session().clone();
    let call = {
        let s = tool_session.clone();
        tokio::spawn(async move { s.call(tool_core::ToolCall::new("w1", "waiter", "{}")).await })
    };
    waiter.started.notified().await;
    // The connection ends: its handler, and this session with it, is dropped.
    drop(session);
    let outcome = call.await.unwrap();
    let err = outcome.result.expect_err("cancelled");
    assert_eq!(err.kind(), tool_core::ErrorKind::Cancelled, "{err:?}");
    let record = runtime
        .activities()
        .get(&outcome.activity_id)
        .await
        .unwrap();
    assert_eq!(record.status, ActivityStatus::Failure);
}
