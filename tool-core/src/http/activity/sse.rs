//! `GET /activity/events`: the feed as Server-Sent Events.
//!
//! Every message is one line of JSON. Events carry `id: <epoch>.<n>`; the stream opens with an
//! `event: hello` (the feed's epoch, the newest id and the limits, and `retry: 1000` so a
//! browser reconnects within a second), may follow with `event: reset` when the resume point
//! was lost, and ends with `event: dropped` when the client fell behind the buffer.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use super::feed::FeedMessage;
use super::{Shared, json_error};

/// The query of `/activity/events`.
#[derive(Debug, Deserialize)]
pub(super) struct EventsQuery {
    /// Where to resume, for clients that cannot set the `Last-Event-ID` header.
    last_event_id: Option<String>,
}

pub(super) async fn events(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    query: Result<Query<EventsQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let query_id = query.ok().and_then(|Query(q)| q.last_event_id);
    let last_id = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or(query_id);
    let feed = &shared.feed;
    let Some(slot) = feed.acquire_client() else {
        return json_error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "{} activity event streams are open, the most this server allows; close a \
                 page that watches it and try again",
                feed.config().max_clients
            ),
        );
    };
    let hello = format!(
        "event: hello\nretry: 1000\ndata: {}\n\n",
        json!({
            "epoch": feed.epoch(),
            "last_event_id": feed.last_event_id(),
            "buffer_events": feed.config().buffer_events,
        })
    );
    let keep_alive = feed.config().keep_alive;
    let sub = feed.subscribe(last_id.as_deref());
    // Each body chunk carries every message ready when it is made (up to BATCH): a client
    // that keeps up gets one write per event, one that lags a write per batch, which keeps
    // the cost of many watchers low while the calls run.
    let rest = futures_util::stream::unfold((sub, slot), move |(mut sub, slot)| async move {
        let first = match tokio::time::timeout(keep_alive, sub.next()).await {
            Err(_) => return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), (sub, slot))),
            Ok(None) => return None,
            Ok(Some(m)) => m,
        };
        let mut text = String::new();
        let mut last = write_message(&mut text, first);
        let mut n = 1;
        while !last && n < BATCH {
            match sub.try_next() {
                Some(m) => last = write_message(&mut text, m),
                None => break,
            }
            n += 1;
        }
        Some((Ok::<_, Infallible>(Bytes::from(text)), (sub, slot)))
    });
    let stream = futures_util::StreamExt::take_until(
        futures_util::StreamExt::chain(
            futures_util::stream::once(async move { Ok::<_, Infallible>(Bytes::from(hello)) }),
            rest,
        ),
        shared.closing().cancelled_owned(),
    );
    let mut response = Body::from_stream(stream).into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // Tells a buffering reverse proxy to pass each message on at once.
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// How many messages one body chunk carries at most.
const BATCH: usize = 256;

/// Appends one message in the SSE format; whether it is the stream's last. The JSON is one
/// line (serde_json escapes newlines in strings), so each message is one `data:` line.
fn write_message(out: &mut String, message: FeedMessage) -> bool {
    use std::fmt::Write as _;
    match message {
        FeedMessage::Event(item) => {
            let _ = write!(out, "id: {}\ndata: {}\n\n", item.id, item.json);
            false
        }
        FeedMessage::Reset { reason } => {
            let _ = write!(
                out,
                "event: reset\ndata: {}\n\n",
                json!({ "reason": reason })
            );
            false
        }
        FeedMessage::Dropped {
            missed,
            last_event_id,
        } => {
            let data = json!({
                "missed": missed,
                "last_event_id": last_event_id,
                "reason": format!(
                    "this stream fell {missed} events behind the buffer and was closed; \
                     reconnect with Last-Event-ID to read on (the page does it by itself)"
                ),
            });
            let _ = write!(out, "event: dropped\ndata: {data}\n\n");
            true
        }
    }
}
