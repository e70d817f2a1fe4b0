//! Serving tools over HTTP: the live activity page.
//!
//! Everything here is behind the `mcp` feature. [`activity`] holds the routes of the live
//! activity page (`/activity`, its Server-Sent Events and its records), an axum
//! [`Router`](axum::Router) to merge into the server that also answers `/mcp`.

pub mod activity;
