//! `GET /activity` and its assets, and the `?token=` first visit.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Query, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{Shared, json_error};

const INDEX: &str = include_str!("assets/index.html");
const SCRIPT: &str = include_str!("assets/app.js");
const STYLE: &str = include_str!("assets/style.css");

use crate::http::{TOKEN_COOKIE as COOKIE, tokens_match};

/// The page may load its own script, style and data, and nothing else: no inline script, so
/// text that slipped into the markup could not run.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                   connect-src 'self'; img-src 'self' data:; base-uri 'none'; \
                   form-action 'none'; frame-ancestors 'none'";

pub(super) async fn index(
    State(shared): State<Arc<Shared>>,
    query: Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>,
) -> Response {
    if let Some(token) = query.as_ref().ok().and_then(|Query(q)| q.get("token")) {
        return first_visit(&shared, token);
    }
    asset(INDEX, "text/html; charset=utf-8")
}

/// In front of the server's authentication: answers a `GET …/activity?token=T` itself (the
/// cookie and the redirect when `T` is the server's token, `401` when not), since the request
/// that brings the token cannot carry it in the cookie yet. Everything else goes on.
pub(super) async fn exchange(
    State(shared): State<Arc<Shared>>,
    request: Request,
    next: Next,
) -> Response {
    if shared.token.is_some()
        && request.method() == Method::GET
        && request.uri().path().ends_with("/activity")
        && let Ok(Query(q)) = Query::<HashMap<String, String>>::try_from_uri(request.uri())
        && let Some(token) = q.get("token")
    {
        return first_visit(&shared, token);
    }
    next.run(request).await
}

pub(super) async fn script() -> Response {
    asset(SCRIPT, "text/javascript; charset=utf-8")
}

pub(super) async fn style() -> Response {
    asset(STYLE, "text/css; charset=utf-8")
}

fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// Stores the token as an `HttpOnly`, `SameSite=Strict` cookie and redirects to the page
/// without it, so it leaves the address bar and the history.
fn first_visit(shared: &Shared, token: &str) -> Response {
    if token.is_empty() || token.len() > 512 || !token.bytes().all(is_cookie_octet) {
        return json_error(
            StatusCode::BAD_REQUEST,
            "the token must be 1 to 512 printable ASCII characters without spaces, quotes, \
             commas, semicolons or backslashes; open the address the server printed"
                .into(),
        );
    }
    if let Some(expected) = &shared.token
        && !tokens_match(token.as_bytes(), expected.as_bytes())
    {
        return json_error(
            StatusCode::UNAUTHORIZED,
            "the token is not this server's; open the address the server printed at start".into(),
        );
    }
    let cookie = format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict");
    let mut r = StatusCode::SEE_OTHER.into_response();
    let h = r.headers_mut();
    // A relative reference: right wherever the routes are mounted.
    h.insert(header::LOCATION, HeaderValue::from_static("activity"));
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        h.insert(header::SET_COOKIE, v);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    r
}

/// RFC 6265's cookie-octet: what a cookie value may hold unquoted.
fn is_cookie_octet(b: u8) -> bool {
    matches!(b, 0x21 | 0x23..=0x2B | 0x2D..=0x3A | 0x3C..=0x5B | 0x5D..=0x7E)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookie_octets_refuse_what_would_split_the_header() {
        for bad in [b' ', b';', b',', b'"', b'\\', b'\r', b'\n', 0x7f] {
            assert!(!is_cookie_octet(bad), "{bad}");
        }
        assert!(b"abc-XYZ_0.9~+/=".iter().all(|&b| is_cookie_octet(b)));
    }
}
