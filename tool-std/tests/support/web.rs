//! What the web tests share: a loopback HTTP/1.1 server (it listens on 127.0.0.1 only, answers
//! each connection with one hand-written response chosen by a handler, and counts what it
//! did), the network policies with short limits, and a SearXNG answer; and for the `web` tool,
//! a registry with it, sessions whose runtime injects a [`WebConfig`] pointing at the loopback
//! server, the calls a model makes, and the checks of an error.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tool_core::{Registry, Runtime, Session, ToolCall};
use tool_std::web::{NetworkPolicy, Timeouts, WebConfig, WebTool};

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    /// `GET`.
    pub(crate) method: String,
    /// Path and query (`/search?q=x&format=json`).
    pub(crate) target: String,
    /// Header names (lower-case) and values.
    pub(crate) headers: Vec<(String, String)>,
}

impl Request {
    /// A header's value.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What to answer.
pub(crate) enum Reply {
    /// These exact bytes (a whole response).
    Raw(Vec<u8>),
    /// A head, then `total` bytes of `fill` in chunks until done or the client goes away.
    Stream { head: Vec<u8>, total: u64, fill: u8 },
    /// Wait, then answer.
    Delayed(Duration, Box<Reply>),
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// A running test server.
#[derive(Debug)]
pub(crate) struct TestServer {
    /// Where it listens (127.0.0.1, a free port).
    pub(crate) addr: SocketAddr,
    /// Connections accepted.
    pub(crate) connections: Arc<AtomicUsize>,
    /// Body bytes of `Reply::Stream` written successfully.
    pub(crate) streamed: Arc<AtomicU64>,
    /// `Reply::Stream`s that have ended (finished or cut off by the client).
    pub(crate) streams_done: Arc<AtomicUsize>,
    /// Requests received, in order.
    pub(crate) requests: Arc<std::sync::Mutex<Vec<Request>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl TestServer {
    /// Start a server on 127.0.0.1:0 answering with `handler`.
    pub(crate) async fn start(
        handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
    ) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let handler: Arc<Handler> = Arc::new(handler);
        let connections = Arc::new(AtomicUsize::new(0));
        let streamed = Arc::new(AtomicU64::new(0));
        let streams_done = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (c, s, d, r) = (
            Arc::clone(&connections),
            Arc::clone(&streamed),
            Arc::clone(&streams_done),
            Arc::clone(&requests),
        );
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                c.fetch_add(1, Ordering::SeqCst);
                let (handler, s, d, r) = (
                    Arc::clone(&handler),
                    Arc::clone(&s),
                    Arc::clone(&d),
                    Arc::clone(&r),
                );
                tokio::spawn(async move {
                    let _ = serve(stream, handler, s, d, r).await;
                });
            }
        });
        TestServer {
            addr,
            connections,
            streamed,
            streams_done,
            requests,
            task,
        }
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// How many connections were accepted.
    pub(crate) fn connection_count(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// Wait until `n` streams have ended (at most 10 s).
    pub(crate) async fn wait_streams_done(&self, n: usize) {
        for _ in 0..1000 {
            if self.streams_done.load(Ordering::SeqCst) >= n {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the stream did not end");
    }
}

async fn serve(
    mut stream: TcpStream,
    handler: Arc<Handler>,
    streamed: Arc<AtomicU64>,
    streams_done: Arc<AtomicUsize>,
    requests: Arc<std::sync::Mutex<Vec<Request>>>,
) -> std::io::Result<()> {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).await?;
        if n == 0 || head.len() > 64 * 1024 {
            return Ok(());
        }
        head.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let mut lines = text.split("\r\n");
    let mut first = lines.next().unwrap_or("").split(' ');
    let request = Request {
        method: first.next().unwrap_or("").to_owned(),
        target: first.next().unwrap_or("").to_owned(),
        headers: lines
            .take_while(|l| !l.is_empty())
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect(),
    };
    requests.lock().expect("lock").push(request.clone());
    let mut reply = handler(&request);
    while let Reply::Delayed(wait, inner) = reply {
        tokio::time::sleep(wait).await;
        reply = *inner;
    }
    match reply {
        Reply::Raw(bytes) => stream.write_all(&bytes).await?,
        Reply::Stream { head, total, fill } => {
            let chunk = vec![fill; 64 * 1024];
            let result = async {
                stream.write_all(&head).await?;
                let mut sent = 0u64;
                while sent < total {
                    let n = chunk
                        .len()
                        .min(usize::try_from(total - sent).unwrap_or(usize::MAX));
                    stream.write_all(&chunk[..n]).await?;
                    sent += n as u64;
                    streamed.fetch_add(n as u64, Ordering::SeqCst);
                }
                Ok::<(), std::io::Error>(())
            }
            .await;
            streams_done.fetch_add(1, Ordering::SeqCst);
            result?;
        }
        Reply::Delayed(..) => unreachable!("unwrapped above"),
    }
    stream.shutdown().await
}

/// A whole HTTP/1.1 response with `Content-Length` and `Connection: close`.
pub(crate) fn response(status: &str, headers: &[(&str, &str)], body: impl AsRef<[u8]>) -> Reply {
    let body = body.as_ref();
    let mut out = format!(
        "HTTP/1.1 {status}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    Reply::Raw(bytes)
}

/// `200 OK` with a content type.
pub(crate) fn ok(content_type: &str, body: impl AsRef<[u8]>) -> Reply {
    response("200 OK", &[("Content-Type", content_type)], body)
}

/// A redirect to `location`.
pub(crate) fn redirect(status: &str, location: &str) -> Reply {
    response(status, &[("Location", location)], "")
}

/// Short limits, so a timeout test takes a second: 2 s to connect, 1 s between reads, and
/// `total` for the whole exchange.
fn short_timeouts(total: Duration) -> Timeouts {
    Timeouts {
        connect: Duration::from_secs(2),
        read: Duration::from_secs(1),
        total,
    }
}

/// The fetch policy with the test server's address allow-listed and short limits.
pub(crate) fn fetch_policy() -> NetworkPolicy {
    NetworkPolicy::new()
        .allow_host("127.0.0.1")
        .with_timeouts(short_timeouts(Duration::from_secs(10)))
}

/// The search policy with the test server's address allow-listed and short limits.
pub(crate) fn search_policy() -> NetworkPolicy {
    NetworkPolicy::for_search()
        .allow_host("127.0.0.1")
        .with_timeouts(short_timeouts(Duration::from_secs(5)))
}

/// SearXNG's JSON answer with `count` results.
pub(crate) fn searxng_body(count: usize) -> String {
    json!({
        "query": "ruby on rails",
        "number_of_results": count * 100,
        "results": (0..count).map(|i| json!({
            "url": format!("https://example{i}.com"),
            "title": format!("Result {i}"),
            "content": format!("Content {i}"),
            "engine": "duckduckgo",
        })).collect::<Vec<_>>(),
    })
    .to_string()
}

// The `web` tool.

/// A registry with the web tool only.
pub(crate) fn registry() -> Registry {
    super::registry_of(WebTool)
}

/// A session whose runtime injects `config`.
pub(crate) fn session_with(config: WebConfig) -> Session {
    // An agent loop's session, whose host marks each model response as a turn: the search
    // limit counts per response.
    Runtime::builder(registry())
        .service(Arc::new(config))
        .build()
        .session_with(tool_core::SessionConfig::default().turns(true))
}

/// The configuration a command line builds with `--searxng-url` at the server and
/// `--allow-host 127.0.0.1`.
pub(crate) fn config_for(server: &TestServer) -> WebConfig {
    WebConfig::from_options(Some(&server.url("/")), &["127.0.0.1"]).expect("config")
}

pub(crate) fn session_for(server: &TestServer) -> Session {
    session_with(config_for(server))
}

/// Calls the tool (by `name`) and answers with the JSON the model reads.
pub(crate) async fn call_named(session: &Session, name: &str, args: Value) -> Value {
    let out = session
        .call(ToolCall::new("call", name, args.to_string()))
        .await;
    assert_eq!(out.tool, "web", "{name} resolves to web");
    out.to_json()
}

pub(crate) async fn call(session: &Session, args: Value) -> Value {
    call_named(session, "web", args).await
}

pub(crate) async fn search(session: &Session, query: &str) -> Value {
    call(session, json!({"action": "search", "query_or_url": query})).await
}

pub(crate) async fn fetch(session: &Session, url: &str) -> Value {
    call(session, json!({"action": "fetch", "query_or_url": url})).await
}

/// A SearXNG stand-in answering every request with `count` results.
pub(crate) async fn searxng(count: usize) -> TestServer {
    TestServer::start(move |_| ok("application/json", searxng_body(count))).await
}

/// Asserts `result` is an error of `error_type` whose message contains `needle`.
#[track_caller]
pub(crate) fn assert_error(result: &Value, error_type: &str, needle: &str) {
    assert_eq!(result["type"], "error", "{result}");
    assert_eq!(result["error_type"], error_type, "{result}");
    assert!(
        super::error_message(result).contains(needle),
        "{needle:?} not in {result}"
    );
}
