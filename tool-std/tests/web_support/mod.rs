//! A loopback HTTP/1.1 server for the web tests: it listens on 127.0.0.1 only, answers each
//! connection with one hand-written response chosen by a handler, and counts what it did.

#![allow(dead_code, unreachable_pub)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`.
    pub method: String,
    /// Path and query (`/search?q=x&format=json`).
    pub target: String,
    /// Header names (lower-case) and values.
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What to answer.
pub enum Reply {
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
pub struct TestServer {
    /// Where it listens (127.0.0.1, a free port).
    pub addr: SocketAddr,
    /// Connections accepted.
    pub connections: Arc<AtomicUsize>,
    /// Body bytes of `Reply::Stream` written successfully.
    pub streamed: Arc<AtomicU64>,
    /// `Reply::Stream`s that have ended (finished or cut off by the client).
    pub streams_done: Arc<AtomicUsize>,
    /// Requests received, in order.
    pub requests: Arc<std::sync::Mutex<Vec<Request>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl TestServer {
    /// Start a server on 127.0.0.1:0 answering with `handler`.
    pub async fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> TestServer {
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
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// How many connections were accepted.
    pub fn connection_count(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// Wait until `n` streams have ended (at most 10 s).
    pub async fn wait_streams_done(&self, n: usize) {
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
pub fn response(status: &str, headers: &[(&str, &str)], body: impl AsRef<[u8]>) -> Reply {
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
pub fn ok(content_type: &str, body: impl AsRef<[u8]>) -> Reply {
    response("200 OK", &[("Content-Type", content_type)], body)
}

/// A redirect to `location`.
pub fn redirect(status: &str, location: &str) -> Reply {
    response(status, &[("Location", location)], "")
}
