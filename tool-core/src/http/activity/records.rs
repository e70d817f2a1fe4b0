//! `GET /activity/records`: the activity records as JSON, newest first, paged.
//!
//! Query: `limit` (default [`DEFAULT_RECORDS_LIMIT`], at most [`MAX_RECORDS_LIMIT`]), then
//! either `offset` or `cursor` (the `next_cursor` of the page before), or `id` for one record.
//! The answer:
//!
//! ```json
//! {"records": [...], "total": 120, "offset": 0, "limit": 50,
//!  "next_cursor": "act_71", "last_event_id": "18f3a.412"}
//! ```
//!
//! `next_cursor` is there while older records remain; a page also stops early at
//! [`MAX_RECORDS_BYTES`] of JSON and says so the same way. Each record carries its tool's
//! `toolsets` and `category` besides seed 002's fields.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::{Shared, json_error};
use crate::activity::ActivityRecord;

/// The records a page holds when `limit` is not given.
pub const DEFAULT_RECORDS_LIMIT: usize = 50;
/// The most records one page holds.
pub const MAX_RECORDS_LIMIT: usize = 500;
/// The most bytes of record JSON one page holds (a record larger alone is still sent whole).
pub const MAX_RECORDS_BYTES: usize = 4 << 20;

pub(super) async fn records(
    State(shared): State<Arc<Shared>>,
    query: Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(q)) = query else {
        return bad("the query string is not valid URL encoding".into());
    };
    if let Some(key) = q
        .keys()
        .find(|k| !matches!(k.as_str(), "limit" | "offset" | "cursor" | "id"))
    {
        return bad(format!(
            "unknown parameter `{key}`; expected limit, offset, cursor or id"
        ));
    }
    let store = shared.runtime.activities();
    if let Some(id) = q.get("id") {
        return match store.get(id).await {
            Some(r) => Json(json!({ "record": enrich(&shared, r) })).into_response(),
            None => json_error(
                StatusCode::NOT_FOUND,
                format!(
                    "no activity record `{id}` is kept (it may never have existed, or the store \
                     has let it go); GET activity/records lists the records kept"
                ),
            ),
        };
    }
    let limit = match number(&q, "limit") {
        Ok(None) => DEFAULT_RECORDS_LIMIT,
        Ok(Some(0)) => return bad("`limit` must be at least 1".into()),
        Ok(Some(n)) => n.min(MAX_RECORDS_LIMIT),
        Err(e) => return bad(e),
    };
    let offset = match number(&q, "offset") {
        Ok(n) => n,
        Err(e) => return bad(e),
    };
    if offset.is_some() && q.contains_key("cursor") {
        return bad("give `offset` or `cursor`, not both".into());
    }
    let Some(found) = store
        .newest(
            q.get("cursor").map(String::as_str),
            offset.unwrap_or(0),
            limit,
        )
        .await
    else {
        let cursor = q.get("cursor").map(String::as_str).unwrap_or_default();
        return json_error(
            StatusCode::GONE,
            format!(
                "the cursor `{cursor}` names no record kept (the store let it go); \
                 start again without a cursor"
            ),
        );
    };
    let (start, total) = (found.offset, found.total);
    let mut page = Vec::new();
    let mut bytes = 0;
    let mut last = None;
    for r in found.records {
        let v = enrich(&shared, r.clone());
        bytes += v.to_string().len();
        if bytes > MAX_RECORDS_BYTES && !page.is_empty() {
            break;
        }
        last = Some(r.id);
        page.push(v);
    }
    let next_cursor = if start + page.len() < total {
        last
    } else {
        None
    };
    Json(json!({
        "records": page,
        "total": total,
        "offset": start,
        "limit": limit,
        "next_cursor": next_cursor,
        "last_event_id": shared.feed.last_event_id(),
    }))
    .into_response()
}

fn bad(message: String) -> Response {
    json_error(StatusCode::BAD_REQUEST, message)
}

fn number(q: &HashMap<String, String>, key: &str) -> Result<Option<usize>, String> {
    q.get(key)
        .map(|v| {
            v.parse::<usize>()
                .map_err(|_| format!("`{key}` must be a whole number, not `{v}`"))
        })
        .transpose()
}

/// A record with its tool's toolsets and category (and whether it runs without animation).
fn enrich(shared: &Shared, record: ActivityRecord) -> Value {
    let meta = shared.feed.tool_meta(&record.name);
    let mut v = serde_json::to_value(record).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.insert("toolsets".into(), meta.toolsets);
        m.insert("category".into(), meta.category);
        if meta.quiet {
            m.insert("suppress_execution_animation".into(), Value::Bool(true));
        }
    }
    v
}
