//! HTTP pieces a tool host serves beside (or without) MCP: the [`Guard`] that decides who
//! may reach a router's routes, and the live [`activity`] page (feature `http`).
//!
//! # The guard
//!
//! - Loopback by default: a server of this crate refuses to bind a non-loopback address
//!   unless a token is set.
//! - With a token every request must carry it, as `Authorization: Bearer TOKEN` or as the
//!   cookie `toolsmith_token` (which a browser page on the same server can set); it is
//!   compared in constant time. A missing or wrong token is `401`.
//! - `Origin`, as the MCP specification asks: a request without one (a non-browser client)
//!   passes; a browser request passes when its origin is the server's own (same host and
//!   port as the `Host` header) or allowed by the host; any other is `403`.
//! - `Host`, against DNS rebinding: without a token, every route (`/mcp` and whatever a host
//!   mounted beside it, the activity page included) answers only requests addressed to a
//!   loopback name (`localhost`, `127.0.0.1`, `[::1]`, any port); a page served from a rebound
//!   name that resolves to 127.0.0.1 gets `403` and reads nothing. With a token, the token is
//!   the check (the server may then face other machines under names it cannot know).

mod guard;

pub mod activity;

pub use guard::{Authenticated, BadToken, Guard, TOKEN_COOKIE};
pub(crate) use guard::{sha256, tokens_match};
