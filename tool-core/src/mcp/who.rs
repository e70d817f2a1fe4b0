//! Who made an MCP call: the [`Conversation`] its activity record and events carry.
//!
//! | the request | its conversation's key |
//! |---|---|
//! | `_meta` carries [`CONVERSATION_META_KEY`] (a 2026-07-28 client naming its conversation) | that key |
//! | streamable HTTP with an `Mcp-Session-Id` (2025-11-25) | `mcp-session:<id>` |
//! | stdio | one key per connection (one client instance) |
//! | streamable HTTP without a session (2026-07-28) | `client:<name>/<version>`, with the principal: one group per client |
//!
//! Each carries the client's name and version (from the request's `_meta` under 2026-07-28,
//! else from `initialize`), the MCP session id where there is one, the transport, and the
//! principal and agent of the server's [`SessionConfig`](crate::SessionConfig).

use std::sync::{Arc, OnceLock};

use rmcp::RoleServer;
use rmcp::service::RequestContext;

use crate::activity::Conversation;

/// The `_meta` key a client may send with each request to name the conversation it belongs
/// to (a string of at most 256 bytes): its calls are grouped by it, whatever the transport.
pub const CONVERSATION_META_KEY: &str = "io.toolsmith/conversation";

/// What every call of one MCP connection (or one request, under 2026-07-28 HTTP) shares to
/// name its conversation.
pub(crate) struct Who {
    /// The session's own conversation (its generated key, principal and agent).
    base: Arc<Conversation>,
    /// The connection's conversation, made on its first call (when the client is known).
    connection: OnceLock<Arc<Conversation>>,
}

impl Who {
    pub(crate) fn new(base: Arc<Conversation>) -> Who {
        Who {
            base,
            connection: OnceLock::new(),
        }
    }

    /// The conversation of a call made with `context`.
    pub(crate) fn of(&self, context: &RequestContext<RoleServer>) -> Arc<Conversation> {
        let named = context
            .meta
            .0
            .get(CONVERSATION_META_KEY)
            .and_then(serde_json::Value::as_str)
            .filter(|k| !k.is_empty());
        let parts = context.extensions.get::<axum::http::request::Parts>();
        let session_id = parts
            .and_then(|p| p.headers.get("mcp-session-id"))
            .and_then(|v| v.to_str().ok());
        if named.is_none()
            && (parts.is_none() || session_id.is_some())
            && let Some(c) = self.connection.get()
        {
            return c.clone();
        }
        let client = context.client_info();
        let key = match (named, session_id, parts) {
            (Some(key), _, _) => key.to_owned(),
            (None, Some(id), _) => format!("mcp-session:{id}"),
            (None, None, None) => self.base.key.clone(),
            (None, None, Some(_)) => {
                let mut key = match &client {
                    Some(c) => format!("client:{}/{}", c.name, c.version),
                    None => "client:unknown".to_owned(),
                };
                if let Some(p) = &self.base.principal {
                    key.push('@');
                    key.push_str(p);
                }
                key
            }
        };
        let mut c =
            Conversation::new(key).transport(if parts.is_some() { "http" } else { "stdio" });
        c.principal.clone_from(&self.base.principal);
        c.agent.clone_from(&self.base.agent);
        if let Some(id) = session_id {
            c = c.session_id(id);
        }
        if let Some(info) = client {
            c = c.client(info.name, info.version);
        }
        let c = Arc::new(c);
        if named.is_none() && (parts.is_none() || session_id.is_some()) {
            return self.connection.get_or_init(|| c).clone();
        }
        c
    }
}
