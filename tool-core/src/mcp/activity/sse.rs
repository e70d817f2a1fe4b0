//! `GET /activity/events`: the feed as Server-Sent Events.
//!
//! Every message is one line of JSON. Events carry `id: <epoch>.<n>`; the stream opens with an
//! `event: hello` (the feed's epoch, the newest id and the limits, and `retry: 1000` so a
//! browser reconnects within a second), may follow with `event: reset` when the resume point
//! was lost, and ends with `event: dropped` when the client fell behind the buffer.

use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
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
    let hello = SseEvent::default()
        .event("hello")
        .retry(std::time::Duration::from_secs(1))
        .data(
            json!({
                "epoch": feed.epoch(),
                "last_event_id": feed.last_event_id(),
                "buffer_events": feed.config().buffer_events,
            })
            .to_string(),
        );
    let sub = feed.subscribe(last_id.as_deref());
    let rest = futures_util::stream::unfold((sub, slot), |(mut sub, slot)| async move {
        let message = sub.next().await?;
        Some((Ok::<_, Infallible>(to_sse(message)), (sub, slot)))
    });
    let stream = futures_util::StreamExt::take_until(
        futures_util::StreamExt::chain(
            futures_util::stream::once(async move { Ok::<_, Infallible>(hello) }),
            rest,
        ),
        shared.closing().cancelled_owned(),
    );
    let mut response = Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(feed.config().keep_alive))
        .into_response();
    let h = response.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // Tells a buffering reverse proxy to pass each message on at once.
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

fn to_sse(message: FeedMessage) -> SseEvent {
    match message {
        FeedMessage::Event(item) => SseEvent::default().id(&item.id).data(&item.json),
        FeedMessage::Reset { reason } => SseEvent::default()
            .event("reset")
            .data(json!({ "reason": reason }).to_string()),
        FeedMessage::Dropped {
            missed,
            last_event_id,
        } => SseEvent::default().event("dropped").data(
            json!({
                "missed": missed,
                "last_event_id": last_event_id,
                "reason": format!(
                    "this stream fell {missed} events behind the buffer and was closed; \
                     reconnect with Last-Event-ID to read on (the page does it by itself)"
                ),
            })
            .to_string(),
        ),
        // FeedMessage is non_exhaustive for users of the crate, not here.
    }
}
