//! [`Conversation`]: who made a call, so that records and events can be grouped by the
//! conversation they belong to (seed 002's cells, one group per conversation).

use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

/// The longest a conversation's key, session id, client name or version, principal or agent
/// is kept, in bytes; longer values are cut (they come from clients).
pub const MAX_CONVERSATION_FIELD_BYTES: usize = 256;

/// The conversation a call belongs to: what groups its activity record with the calls made
/// alongside it, and who made them.
///
/// A [`Session`](crate::Session) is one conversation: [`Runtime::session_with`](crate::Runtime::session_with)
/// gives each session one (a key of its own, the session's agent and principal) unless its
/// [`SessionConfig::conversation`](crate::SessionConfig::conversation) names one; a call may name
/// its own ([`CallOptions::conversation`](crate::CallOptions::conversation)), as the MCP server
/// does for a 2026-07-28 request that carries a conversation key in `_meta`.
///
/// Every field but the key is optional; the key alone decides the group. All are cut at
/// [`MAX_CONVERSATION_FIELD_BYTES`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Conversation {
    /// What groups the records: equal keys, one group.
    pub key: String,
    /// The MCP session id, where the transport has one (streamable HTTP under 2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The client's name (MCP `clientInfo.name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_name: Option<String>,
    /// The client's version (MCP `clientInfo.version`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_version: Option<String>,
    /// The principal the calls are made for (a token's owner, say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    /// The agent the calls are made for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// How the calls came: `stdio`, `http`, or whatever the host says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
}

/// The next generated key's number, shared by the process.
static NEXT_CONVERSATION: AtomicU64 = AtomicU64::new(1);

impl Conversation {
    /// A conversation grouped by `key` (cut at [`MAX_CONVERSATION_FIELD_BYTES`]).
    pub fn new(key: impl Into<String>) -> Self {
        Conversation {
            key: bounded(key.into()),
            session_id: None,
            client_name: None,
            client_version: None,
            principal: None,
            agent: None,
            transport: None,
        }
    }

    /// A conversation with a key of its own, unique among processes: `conv_<process>_<n>`.
    pub fn generated() -> Self {
        let n = NEXT_CONVERSATION.fetch_add(1, Ordering::Relaxed);
        Conversation::new(format!("conv_{}_{n}", crate::activity::process_tag()))
    }

    /// Sets the MCP session id.
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(bounded(id.into()));
        self
    }

    /// Sets the client's name and version.
    pub fn client(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.client_name = Some(bounded(name.into()));
        self.client_version = Some(bounded(version.into()));
        self
    }

    /// Sets the principal.
    pub fn principal(mut self, principal: impl Into<String>) -> Self {
        self.principal = Some(bounded(principal.into()));
        self
    }

    /// Sets the agent.
    pub fn agent(mut self, agent: impl Into<String>) -> Self {
        self.agent = Some(bounded(agent.into()));
        self
    }

    /// Sets the transport.
    pub fn transport(mut self, transport: impl Into<String>) -> Self {
        self.transport = Some(bounded(transport.into()));
        self
    }

    /// One line naming the conversation for people: the client and its version, the agent
    /// and principal, the session id (its first 8 characters) or else the key.
    pub fn label(&self) -> String {
        let mut parts = Vec::new();
        match (&self.client_name, &self.client_version) {
            (Some(n), Some(v)) => parts.push(format!("{n} {v}")),
            (Some(n), None) => parts.push(n.clone()),
            _ => {}
        }
        if let Some(a) = &self.agent {
            parts.push(format!("agent {a}"));
        }
        if let Some(p) = &self.principal {
            parts.push(format!("principal {p}"));
        }
        match &self.session_id {
            Some(s) => parts.push(format!(
                "session {}",
                crate::activity::bound::text_head(s, 8)
            )),
            None if parts.is_empty() => parts.push(self.key.clone()),
            None => {}
        }
        parts.join(" · ")
    }
}

/// `text` cut at [`MAX_CONVERSATION_FIELD_BYTES`], at a character boundary.
fn bounded(mut text: String) -> String {
    if text.len() > MAX_CONVERSATION_FIELD_BYTES {
        let keep = crate::activity::bound::text_head(&text, MAX_CONVERSATION_FIELD_BYTES).len();
        text.truncate(keep);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_differ_and_fields_are_bounded() {
        let (a, b) = (Conversation::generated(), Conversation::generated());
        assert_ne!(a.key, b.key);
        assert!(a.key.starts_with("conv_"), "{}", a.key);
        let long = Conversation::new("k".repeat(10_000)).client("é".repeat(1000), "1");
        assert!(long.key.len() <= MAX_CONVERSATION_FIELD_BYTES);
        assert!(long.client_name.unwrap().len() <= MAX_CONVERSATION_FIELD_BYTES);
    }

    #[test]
    fn a_label_names_the_client_agent_principal_and_session() {
        let c = Conversation::new("k")
            .client("claude-code", "2.1")
            .agent("helper")
            .principal("ana")
            .session_id("0123456789abcdef");
        assert_eq!(
            c.label(),
            "claude-code 2.1 · agent helper · principal ana · session 01234567"
        );
        assert_eq!(Conversation::new("conv_x_1").label(), "conv_x_1");
    }
}
