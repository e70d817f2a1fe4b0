//! The results the `web` tool answers with, each carrying a `type` the model can branch on:
//! `search_results`, `fetched_page` and `redirect` (seed 000's response schemas). Errors are
//! [`WebError`](super::WebError)s, which the tool wrapper answers as `{"type": "error", ...}`.

use std::time::{SystemTime, UNIX_EPOCH};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One answer of the `web` tool, tagged by `type`.
///
/// ```
/// use tool_std::web::{Redirect, WebResponse};
///
/// let r = WebResponse::Redirect(Redirect {
///     original_url: "http://example.com".into(),
///     redirect_url: "https://example.com/new".into(),
/// });
/// let json = serde_json::to_value(&r)?;
/// assert_eq!(json["type"], "redirect");
/// assert_eq!(json["redirect_url"], "https://example.com/new");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WebResponse {
    /// The results of a search.
    SearchResults(SearchResults),
    /// The text of a fetched page.
    FetchedPage(FetchedPage),
    /// The page redirects elsewhere; fetch `redirect_url` to follow it.
    Redirect(Redirect),
}

impl From<SearchResults> for WebResponse {
    fn from(r: SearchResults) -> Self {
        WebResponse::SearchResults(r)
    }
}

impl From<FetchedPage> for WebResponse {
    fn from(p: FetchedPage) -> Self {
        WebResponse::FetchedPage(p)
    }
}

impl From<Redirect> for WebResponse {
    fn from(r: Redirect) -> Self {
        WebResponse::Redirect(r)
    }
}

/// The results of a search (`type: "search_results"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SearchResults {
    /// The query as given.
    pub query: String,
    /// At most 10 results, best first.
    pub results: Vec<SearchResult>,
    /// How many results the search service reports in total (the number returned when the
    /// service does not say).
    pub total_results: u64,
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SearchResult {
    /// The page's URL.
    pub url: String,
    /// The page's title.
    pub title: String,
    /// A short excerpt of the page.
    pub snippet: String,
}

/// The readable text of a fetched page, or one window of it (`type: "fetched_page"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FetchedPage {
    /// The URL the content came from: the URL as given, or the last hop's URL when redirects
    /// were followed.
    pub url: String,
    /// The page as text: HTML turned into Markdown-like text, other text as sent.
    pub content: String,
    /// When the page was fetched, RFC 3339 in UTC (`2024-12-30T10:00:00Z`).
    pub fetched_at: String,
    /// Whether the text goes on past this window (read on from `next_start_index`) or the body
    /// was cut at the byte cap.
    pub truncated: bool,
    /// The character offset of `content` in the page's text.
    pub start_index: usize,
    /// Where the next window starts, when there is more text; pass it as `start_index`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_start_index: Option<usize>,
    /// The length of the page's whole text in characters.
    pub total_chars: usize,
    /// The media type the server sent (`text/html`), or the one guessed when it sent none.
    pub content_type: String,
    /// Whether the response body was longer than the byte cap and was cut there (text past the
    /// cap cannot be read).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub body_truncated: bool,
}

/// A redirect that was not followed (`type: "redirect"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Redirect {
    /// The URL as given.
    pub original_url: String,
    /// Where the server redirects to, resolved against the URL that answered.
    pub redirect_url: String,
}

/// Format a time as RFC 3339 in UTC with whole seconds (`2024-12-30T10:00:00Z`).
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use tool_std::web::rfc3339_utc;
///
/// let t = UNIX_EPOCH + Duration::from_secs(1_735_552_800);
/// assert_eq!(rfc3339_utc(t), "2024-12-30T10:00:00Z");
/// ```
pub fn rfc3339_utc(time: SystemTime) -> String {
    // Times before 1970 are clamped to the epoch; the web tool only formats "now".
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`, for non-negative day counts).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(secs: u64) -> String {
        rfc3339_utc(UNIX_EPOCH + Duration::from_secs(secs))
    }

    #[test]
    fn formats_rfc3339() {
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_709_251_199), "2024-02-29T23:59:59Z");
        assert_eq!(at(4_102_444_800), "2100-01-01T00:00:00Z");
        assert_eq!(
            rfc3339_utc(UNIX_EPOCH - Duration::from_secs(5)),
            "1970-01-01T00:00:00Z"
        );
    }

    #[test]
    fn every_response_has_a_type() {
        let page = FetchedPage {
            url: "https://example.com".into(),
            content: "Hello".into(),
            fetched_at: at(0),
            truncated: false,
            start_index: 0,
            next_start_index: None,
            total_chars: 5,
            content_type: "text/html".into(),
            body_truncated: false,
        };
        let json = serde_json::to_value(WebResponse::from(page.clone())).unwrap();
        assert_eq!(json["type"], "fetched_page");
        assert!(json.get("next_start_index").is_none());
        assert!(json.get("body_truncated").is_none());
        let back: WebResponse = serde_json::from_value(json).unwrap();
        assert_eq!(back, WebResponse::FetchedPage(page));

        let results = SearchResults {
            query: "q".into(),
            results: vec![SearchResult {
                url: "u".into(),
                title: "t".into(),
                snippet: "s".into(),
            }],
            total_results: 1,
        };
        let json = serde_json::to_value(WebResponse::from(results)).unwrap();
        assert_eq!(json["type"], "search_results");
        assert_eq!(json["results"][0]["snippet"], "s");

        let schema = serde_json::to_value(schemars::schema_for!(WebResponse)).unwrap();
        let text = schema.to_string();
        for tag in ["search_results", "fetched_page", "redirect"] {
            assert!(text.contains(tag), "{tag} missing from {text}");
        }
    }
}
