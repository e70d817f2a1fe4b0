//! The `web` tool's declaration: old names that resolve to it, its spec metadata, its exact
//! input schema, and its export to every provider format.

use serde_json::json;
use tool_core::{Mode, Permission};
use tool_std::prompt::STANDARD_RENAMES;
use tool_std::web::{Fetcher, NetworkPolicy};

use crate::support::web::*;

// === beyond the seed ===

#[tokio::test]
async fn old_names_resolve_to_web() {
    let server = TestServer::start(|req| {
        if req.target.starts_with("/search") {
            ok("application/json", searxng_body(1))
        } else {
            ok("text/plain", "page")
        }
    })
    .await;
    let session = session_for(&server);
    let page = server.url("/p");
    for (i, name) in ["web_search", "WebSearchTool", "web", "WebTool"]
        .iter()
        .enumerate()
    {
        let q = format!("query {i}");
        let result = call_named(
            &session,
            name,
            json!({"action": "search", "query_or_url": q}),
        )
        .await;
        assert_eq!(result["type"], "search_results", "{name}: {result}");
    }
    for name in ["web_fetch", "WebFetchTool"] {
        let result = call_named(
            &session,
            name,
            json!({"action": "fetch", "query_or_url": page}),
        )
        .await;
        assert_eq!(result["type"], "fetched_page", "{name}: {result}");
        session.clear_current_turn();
    }

    // The aliases are the ones the agent-store migration rewrites.
    let registry = registry();
    let spec = registry.get("web_fetch").expect("alias").spec().clone();
    let (_, renames) = STANDARD_RENAMES
        .iter()
        .find(|(new, _)| *new == "web")
        .expect("web renames");
    assert_eq!(spec.aliases, renames.to_vec());
}

#[test]
fn spec_metadata() {
    let registry = registry();
    let spec = registry.get("web").expect("web").spec().clone();
    assert_eq!(
        spec.description,
        "Search the web or fetch a page. action: search (query) or fetch (URL). Limited to 10 \
         searches per response."
    );
    assert_eq!(spec.category.as_deref(), Some("web"));
    assert!(spec.permissions.contains(Permission::Network));
    assert_eq!(spec.permissions.iter().count(), 1);
    assert!(spec.annotations.read_only && spec.annotations.open_world);
    assert!(!spec.annotations.destructive);
    assert!(!spec.requires_approval);
    for mode in [Mode::Agent, Mode::Mcp, Mode::Cli] {
        assert!(spec.supports_mode(mode), "{mode:?}");
    }
    let _ = Fetcher::new(NetworkPolicy::new()).expect("fetcher");
}

#[test]
fn input_schema_snapshot() {
    let registry = registry();
    let schema = registry
        .get("web")
        .expect("web")
        .spec()
        .input_schema
        .clone();
    let expected = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["search", "fetch"],
                "description": "The action to perform, one of:\n\
                    - `search` (query_or_url): Search the web for `query_or_url`: at most 10 \
                    results.\n\
                    - `fetch` (query_or_url, [start_index]): Fetch the page at the http(s) URL \
                    `query_or_url` as readable text, 40,000 characters at a time; a redirect is \
                    answered as `redirect`."
            },
            "query_or_url": {
                "type": "string",
                "description": "Search query for 'search' action, or URL for 'fetch' action."
            },
            "start_index": {
                "type": "integer",
                "format": "uint",
                "minimum": 0,
                "default": 0,
                "description": "Character offset in the page's text to start at; pass the \
                    previous answer's `next_start_index` (only for the `fetch` action)."
            }
        },
        "required": ["action", "query_or_url"],
        "additionalProperties": false
    });
    assert_eq!(
        *schema,
        expected,
        "{}",
        serde_json::to_string_pretty(&*schema).unwrap_or_default()
    );
}

#[test]
fn exports_to_every_provider_format() {
    use tool_core::provider::{Format, export};
    let registry = registry();
    let spec = registry.get("web").expect("web").spec().clone();
    for format in Format::ALL {
        let exported = export(&spec, *format);
        assert!(exported.is_ok(), "{format:?}: {exported:?}");
    }
    let mcp = export(&spec, Format::Mcp).expect("mcp");
    let mcp = mcp.as_json().expect("json");
    assert_eq!(mcp["annotations"]["readOnlyHint"], true, "{mcp}");
    assert_eq!(mcp["annotations"]["openWorldHint"], true, "{mcp}");
}
