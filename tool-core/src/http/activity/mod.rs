//! The live activity page: seed 002's tool cells in any browser, as calls happen.
//!
//! A person watching an agent wants to see each tool call as it runs: its name, a spinner and
//! the tool's display message while it works, the output as it streams, then success or
//! failure with the duration, the input and the result or the error. The [`Runtime`] already
//! records all of that (activity records, and `TOOL_CALL_START` / `TOOL_OUTPUT_CHUNK` /
//! `PROGRESS` / `TOOL_CALL_END` / `ERROR` events); this module serves it over HTTP:
//!
//! | route | answers |
//! |---|---|
//! | `GET /activity` | the page: HTML, CSS and a small script, embedded in the binary |
//! | `GET /activity/assets/{app.js,style.css}` | the page's script and style sheet |
//! | `GET /activity/events` | the events as Server-Sent Events, one JSON object each, with ids (and, for calls another replica runs, `ACTIVITY_RECORD` events carrying the record: [`ActivityFeed::push_record`]) |
//! | `GET /activity/records` | the activity records as JSON, newest first, paged |
//!
//! # Design
//!
//! - **Numbered once, read by cursor.** An [`ActivityFeed`] takes the runtime's events from
//!   one [`EventStream`](crate::EventStream) subscription, numbers them and keeps their JSON
//!   in a bounded ring ([`ActivityConfig::buffer_events`], [`ActivityConfig::buffer_bytes`]).
//!   Each SSE client is a cursor into that ring, so ten clients cost the calls what one does.
//! - **Resume, or say what was lost.** Event ids are `<epoch>.<n>`. A reconnecting page sends
//!   `Last-Event-ID` (browsers do it by themselves) and gets every event after it that the
//!   ring still holds. If the ring no longer holds them, or the id is from an earlier run of
//!   the server, the stream opens with an `event: reset` message and the page reloads the
//!   records.
//! - **A slow reader is dropped, never waited for.** A client that falls behind by more than
//!   the ring holds gets `event: dropped` and its stream ends; its browser reconnects and
//!   resumes (with a reset). Emitting an event never waits on a client.
//! - **Everything bounded.** Events over [`ActivityConfig::max_event_bytes`] keep a preview and
//!   say where the whole record is; record pages hold at most [`MAX_RECORDS_LIMIT`] records
//!   and [`MAX_RECORDS_BYTES`] bytes, and say how to get the next page; at most
//!   [`ActivityConfig::max_clients`] event streams are open at once.
//! - **The page trusts no data.** Tool output is untrusted text: the script writes it with
//!   `textContent` only, and the page is served with a Content-Security-Policy that allows
//!   its own script and nothing inline.
//!
//! # Access
//!
//! These routes carry no authentication of their own: merge them into the server's router
//! (the MCP endpoint's, say) and put the [`Guard`](crate::http::Guard) in front of all of
//! them (for an MCP server, `ServeOptions::guard` gives its guard), so the same token rule
//! holds (loopback without a token; otherwise the bearer token, which a browser holds as the
//! `toolsmith_token` cookie). A first visit to `/activity?token=T` sets that cookie
//! (`HttpOnly`, `SameSite=Strict`) and redirects to the clean URL, so the token leaves the
//! address bar and the history. That request has no cookie yet, so the guard would refuse
//! it: [`Activity::with_token_exchange`], applied outside the guard, answers it first (with
//! [`Activity::token`] set, a wrong `?token=` is refused, never stored).
//!
//! # Example
//!
//! The page on a loopback server, behind the token:
//!
//! ```
//! use tool_core::http::Guard;
//! use tool_core::http::activity::Activity;
//! use tool_core::{Registry, Runtime};
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let runtime = Runtime::builder(Registry::builder().build()?).build();
//! let activity = Activity::new(&runtime)?.token("s3cret");
//! let guard = Guard::new(Some("s3cret"), Vec::<String>::new())?;
//!
//! let app = activity.with_token_exchange(guard.layer(activity.router()));
//!
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let addr = listener.local_addr()?;
//! eprintln!("activity page: http://{addr}/activity?token=s3cret");
//! let server = tokio::spawn(async move { axum::serve(listener, app).await });
//! # server.abort();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod feed;
mod page;
mod records;
mod server;
mod sse;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use tokio_util::sync::CancellationToken;

pub use feed::{ActivityFeed, FeedItem, FeedMessage, FeedSubscription};
pub use records::{DEFAULT_RECORDS_LIMIT, MAX_RECORDS_BYTES, MAX_RECORDS_LIMIT};
pub use server::ActivityServer;

use crate::events::SubscribeError;
use crate::runtime::Runtime;

/// The limits of the activity routes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ActivityConfig {
    /// The most events the resume buffer holds (default 4096; 16 to 1,000,000).
    pub buffer_events: usize,
    /// The most bytes of event JSON the resume buffer holds (default 16 MiB; at least
    /// `max_event_bytes`).
    pub buffer_bytes: usize,
    /// The longest one event's JSON may be; longer payloads keep a preview (default 64 KiB;
    /// 4 KiB to 1 MiB).
    pub max_event_bytes: usize,
    /// The most `/activity/events` streams open at once (default 64; 1 to 4096).
    pub max_clients: usize,
    /// The queue between the runtime's event stream and the feed (default 65,536 events);
    /// past it, events are lost and the feed says so with an `EVENTS_LOST` event.
    pub queue: usize,
    /// How often an idle event stream sends a keep-alive comment (default 15 s; at least 1 s).
    pub keep_alive: Duration,
}

impl Default for ActivityConfig {
    fn default() -> Self {
        ActivityConfig {
            buffer_events: 4096,
            buffer_bytes: 16 << 20,
            max_event_bytes: 64 << 10,
            max_clients: 64,
            queue: 65_536,
            keep_alive: Duration::from_secs(15),
        }
    }
}

impl ActivityConfig {
    /// Sets [`buffer_events`](field@Self::buffer_events).
    pub fn buffer_events(mut self, n: usize) -> Self {
        self.buffer_events = n;
        self
    }

    /// Sets [`buffer_bytes`](field@Self::buffer_bytes).
    pub fn buffer_bytes(mut self, n: usize) -> Self {
        self.buffer_bytes = n;
        self
    }

    /// Sets [`max_event_bytes`](field@Self::max_event_bytes).
    pub fn max_event_bytes(mut self, n: usize) -> Self {
        self.max_event_bytes = n;
        self
    }

    /// Sets [`max_clients`](field@Self::max_clients).
    pub fn max_clients(mut self, n: usize) -> Self {
        self.max_clients = n;
        self
    }

    /// Sets [`queue`](field@Self::queue).
    pub fn queue(mut self, n: usize) -> Self {
        self.queue = n;
        self
    }

    /// Sets [`keep_alive`](field@Self::keep_alive).
    pub fn keep_alive(mut self, d: Duration) -> Self {
        self.keep_alive = d;
        self
    }

    /// The configuration with every value brought within its bounds.
    fn normalized(mut self) -> Self {
        self.buffer_events = self.buffer_events.clamp(16, 1_000_000);
        self.max_event_bytes = self.max_event_bytes.clamp(4 << 10, 1 << 20);
        self.buffer_bytes = self.buffer_bytes.max(self.max_event_bytes);
        self.max_clients = self.max_clients.clamp(1, 4096);
        self.queue = self.queue.clamp(16, 1 << 20);
        self.keep_alive = self.keep_alive.max(Duration::from_secs(1));
        self
    }
}

/// Why the activity routes could not be set up.
#[derive(Debug)]
#[non_exhaustive]
pub enum ActivityError {
    /// The runtime's event stream refused another subscriber.
    Subscribe(SubscribeError),
    /// There is no Tokio runtime to run the feed on.
    NoRuntime,
}

impl std::fmt::Display for ActivityError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ActivityError::Subscribe(e) => write!(f, "the activity feed cannot subscribe: {e}"),
            ActivityError::NoRuntime => f.write_str(
                "the activity feed needs a Tokio runtime; call Activity::new from inside one",
            ),
        }
    }
}

impl std::error::Error for ActivityError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ActivityError::Subscribe(e) => Some(e),
            ActivityError::NoRuntime => None,
        }
    }
}

/// The activity routes of one [`Runtime`]. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Activity {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    runtime: Runtime,
    feed: ActivityFeed,
    token: Option<String>,
    /// Cancelled by [`Activity::close_streams`]; the streams open then end.
    closing: Arc<std::sync::Mutex<CancellationToken>>,
}

impl Shared {
    fn closing(&self) -> CancellationToken {
        self.closing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl Activity {
    /// The routes of `runtime`'s activity, with the default limits. Starts the feed's task on
    /// the current Tokio runtime.
    pub fn new(runtime: &Runtime) -> Result<Self, ActivityError> {
        Self::with_config(runtime, ActivityConfig::default())
    }

    /// The routes with limits of your own.
    pub fn with_config(runtime: &Runtime, config: ActivityConfig) -> Result<Self, ActivityError> {
        let feed = ActivityFeed::start(runtime, config)?;
        Ok(Activity {
            shared: Arc::new(Shared {
                runtime: runtime.clone(),
                feed,
                token: None,
                closing: Default::default(),
            }),
        })
    }

    /// The server's token: a first visit's `?token=` must match it (compared in constant
    /// time) to be stored as the cookie. Without it any `?token=` is stored, and the
    /// authentication in front of these routes judges it on the next request.
    pub fn token(self, token: impl Into<String>) -> Self {
        let shared = &self.shared;
        Activity {
            shared: Arc::new(Shared {
                runtime: shared.runtime.clone(),
                feed: shared.feed.clone(),
                token: Some(token.into()),
                closing: shared.closing.clone(),
            }),
        }
    }

    /// The feed the event stream reads.
    pub fn feed(&self) -> &ActivityFeed {
        &self.shared.feed
    }

    /// Ends every `/activity/events` stream open now; streams opened later are not affected.
    /// Call it before a graceful shutdown (an event stream never ends by itself, so the
    /// server would wait for it forever). A browser reconnects and resumes from its last
    /// event, so calling it while the server goes on costs a page nothing.
    pub fn close_streams(&self) {
        let old = std::mem::take(
            &mut *self
                .shared
                .closing
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        );
        old.cancel();
    }

    /// The routes, to merge into a server's router (any state).
    pub fn router<S>(&self) -> Router<S>
    where
        S: Clone + Send + Sync + 'static,
    {
        Router::new()
            .route("/activity", get(page::index))
            .route("/activity/assets/app.js", get(page::script))
            .route("/activity/assets/style.css", get(page::style))
            .route("/activity/events", get(sse::events))
            .route("/activity/records", get(records::records))
            .with_state(self.shared.clone())
    }
}

impl Activity {
    /// Puts the `?token=` first visit in front of `router`: apply it to the server's router
    /// *after* (outside) the authentication layer, which would refuse that request for the
    /// lack of a cookie. Needs [`Activity::token`]: a matching `GET /activity?token=T` is
    /// answered with the cookie and the redirect, a wrong one with `401`; without a token set,
    /// every request goes on unchanged.
    pub fn with_token_exchange<S>(&self, router: Router<S>) -> Router<S>
    where
        S: Clone + Send + Sync + 'static,
    {
        router.layer(axum::middleware::from_fn_with_state(
            self.shared.clone(),
            page::exchange,
        ))
    }
}

/// A JSON error answer: `{"error": message}` with a status.
fn json_error(status: axum::http::StatusCode, message: String) -> axum::response::Response {
    use axum::response::IntoResponse;
    (status, axum::Json(serde_json::json!({ "error": message }))).into_response()
}
