//! MCP's stdio transport as toolsmith serves it: newline-delimited JSON-RPC, each frame parsed
//! once, straight into rmcp's message type, every frame answered exactly once, and the
//! requests in flight held to a budget of bytes.
//!
//! rmcp's own line transport (`AsyncRwTransport`) drops what it cannot parse or answers it without its `id`; this one hands such a frame to
//! [`super::frames`] for its answer. The frames rmcp reads are never parsed twice: the checks
//! run only on what rmcp's parse refused, and an answer's id is read off the message rmcp
//! sends, not scanned out of its text.
//!
//! # Reading
//!
//! [`Transport::receive`] is polled inside rmcp's `select!` and may be dropped at any await,
//! so everything it has read lives in the transport, not in the future: a partial line, a
//! request waiting for room, an answer of its own not yet written. Nothing read is lost when
//! a receive is dropped, and the next one resumes.
//!
//! While a request waits for room in the budget ([`InFlight`]), the frames that need none still
//! reach rmcp: responses to the server's own requests (the user's answer to an approval
//! question, which the calls holding the room may be waiting for) and cancellations. A second
//! request read meanwhile waits its turn, and nothing more is read until the first is let in.
//!
//! # Writing
//!
//! Each message is serialized before its send begins and written whole, under one lock, so
//! lines never interleave. The transport's own answers are written by a task each (at most
//! [`MAX_UNSENT_ANSWERS`] at once; past that, reading waits), since a receive may be dropped
//! while it writes.

use std::io;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, JsonRpcMessage, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, Semaphore};

use super::frames::{self, MAX_FRAME_BYTES};
use super::inflight::InFlight;

/// The most answers of the transport's own (to frames rmcp's types refuse) being written at
/// once; past that, no frame is read until one is out, so a client that sends garbage and
/// never reads cannot grow the server's memory.
const MAX_UNSENT_ANSWERS: usize = 64;

/// The UTF-8 byte order mark: RFC 8259 lets a reader ignore one before a frame.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// A line buffer keeps at most this much room between lines (a long line's is given back).
const KEPT_LINE_CAPACITY: usize = 64 * 1024;

/// The server's side of an MCP stdio session over `R` (what the client sends) and `W` (where
/// the server's messages go).
pub(crate) struct LineTransport<R, W> {
    lines: Lines<R>,
    write: Arc<Mutex<Option<W>>>,
    inflight: Arc<InFlight>,
    /// A request read and not yet let in: it waits for room.
    waiting: Option<Waiting>,
    /// A second request read while the first waited.
    behind: Option<Waiting>,
    /// An answer of the transport's own, waiting for a writer.
    unsent: Option<Vec<u8>>,
    writers: Arc<Semaphore>,
    /// The input has ended: no more frames.
    ended: bool,
}

struct Waiting {
    id: RequestId,
    len: usize,
    message: ClientJsonRpcMessage,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport reading `input` and writing `output`, serving at most `inflight`'s budget of
    /// requests at once.
    pub(crate) fn new(input: R, output: W, inflight: Arc<InFlight>) -> Self {
        LineTransport {
            lines: Lines {
                read: BufReader::new(input),
                line: Vec::new(),
                skipping: false,
            },
            write: Arc::new(Mutex::new(Some(output))),
            inflight,
            waiting: None,
            behind: None,
            unsent: None,
            writers: Arc::new(Semaphore::new(MAX_UNSENT_ANSWERS)),
            ended: false,
        }
    }

    /// Hands an answer of the transport's own to a writer task, once there is room for one.
    async fn send_unsent(&mut self) {
        if self.unsent.is_none() {
            return;
        }
        // The semaphore is never closed; a dropped wait leaves the answer in `unsent`.
        let Ok(permit) = self.writers.clone().acquire_owned().await else {
            return;
        };
        let Some(line) = self.unsent.take() else {
            return;
        };
        let write = self.write.clone();
        tokio::spawn(async move {
            let _permit = permit;
            // A failed write means the client has gone; the session ends on its own.
            let _ = write_line(&write, &line).await;
        });
    }

    /// What a frame read does: the message to hand rmcp now, if any.
    fn take(&mut self, read: Read) -> Option<ClientJsonRpcMessage> {
        match read {
            Read::End => {
                self.ended = true;
                None
            }
            Read::Answer(answer) => {
                self.unsent = Some(answer);
                None
            }
            Read::Message(JsonRpcMessage::Request(request), len) => {
                let id = request.id.clone();
                let message = JsonRpcMessage::Request(request);
                if self.waiting.is_none() && self.inflight.try_admit(&id, len) {
                    return Some(message);
                }
                let waiting = Waiting { id, len, message };
                if self.waiting.is_none() {
                    self.waiting = Some(waiting);
                } else {
                    self.behind = Some(waiting);
                }
                None
            }
            Read::Message(message, _) => {
                // MCP sends no answer to a cancelled request: its room is free now.
                if let JsonRpcMessage::Notification(n) = &message
                    && let ClientNotification::CancelledNotification(c) = &n.notification
                    && let Some(id) = &c.params.request_id
                {
                    self.inflight.answered(id);
                }
                Some(message)
            }
        }
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let answers = match &item {
            JsonRpcMessage::Response(r) => Some(r.id.clone()),
            JsonRpcMessage::Error(e) => e.id.clone(),
            _ => None,
        };
        let line = serde_json::to_vec(&item)
            .map(|mut line| {
                line.push(b'\n');
                line
            })
            .map_err(io::Error::from);
        let (write, inflight) = (self.write.clone(), self.inflight.clone());
        async move {
            let written = write_line(&write, &line?).await;
            // Answered (or the client has gone): the request's room is free either way.
            if let Some(id) = answers {
                inflight.answered(&id);
            }
            written
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            self.send_unsent().await;
            if let Some(waiting) = &self.waiting {
                let (id, len) = (waiting.id.clone(), waiting.len);
                let inflight = self.inflight.clone();
                let can_read = self.behind.is_none() && !self.ended;
                tokio::select! {
                    biased;
                    () = inflight.admit(&id, len) => {
                        let admitted = self.waiting.take().map(|w| w.message);
                        self.waiting = self.behind.take();
                        return admitted;
                    }
                    read = self.lines.next(), if can_read => {
                        if let Some(message) = self.take(read) {
                            return Some(message);
                        }
                    }
                }
                continue;
            }
            if self.ended {
                return None;
            }
            let read = self.lines.next().await;
            if let Some(message) = self.take(read) {
                return Some(message);
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        let output = self.write.lock().await.take();
        if let Some(mut output) = output {
            output.shutdown().await?;
        }
        Ok(())
    }
}

/// Writes `line` (which ends with its newline) whole, in one write where the output takes it,
/// and flushes: on stdout each write is a trip to a blocking thread.
async fn write_line<W: AsyncWrite + Unpin>(
    write: &Mutex<Option<W>>,
    line: &[u8],
) -> io::Result<()> {
    let mut output = write.lock().await;
    let Some(output) = output.as_mut() else {
        return Err(io::Error::new(
            io::ErrorKind::NotConnected,
            "the MCP session has closed",
        ));
    };
    output.write_all(line).await?;
    output.flush().await
}

/// What one read of the input gave.
#[expect(
    clippy::large_enum_variant,
    reason = "one per frame, moved once into rmcp's hands: boxing would add an allocation"
)]
enum Read {
    /// The input ended (or failed).
    End,
    /// A message for rmcp, and its frame's length.
    Message(ClientJsonRpcMessage, usize),
    /// A frame answered here: the answer's text.
    Answer(Vec<u8>),
}

/// The input's lines, each at most [`MAX_FRAME_BYTES`] long.
struct Lines<R> {
    read: BufReader<R>,
    /// The line read so far (without its newline).
    line: Vec<u8>,
    /// The rest of a line over the limit is being skipped.
    skipping: bool,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    /// The next frame that is not blank. Cancel-safe: what was read stays in `line`.
    async fn next(&mut self) -> Read {
        loop {
            let ended = match self.fill().await {
                Fill::Line => false,
                Fill::End if self.line.is_empty() => return Read::End,
                // A last frame without its newline is still a frame.
                Fill::End => true,
                Fill::TooLong(answer) => return Read::Answer(answer_line(&answer)),
            };
            let read = decode(&self.line);
            self.line.clear();
            self.line.shrink_to(KEPT_LINE_CAPACITY);
            match read {
                Some(read) => return read,
                None if ended => return Read::End,
                None => {}
            }
        }
    }

    /// Reads up to the end of a line into `line`. No await sits between taking bytes from the
    /// reader and keeping them, so a dropped call loses nothing.
    async fn fill(&mut self) -> Fill {
        loop {
            let (consumed, step) = {
                let available = match self.read.fill_buf().await {
                    Ok([]) | Err(_) => return Fill::End,
                    Ok(available) => available,
                };
                let newline = available.iter().position(|&b| b == b'\n');
                let content = newline.unwrap_or(available.len());
                let consumed = newline.map_or(available.len(), |at| at + 1);
                if self.skipping {
                    if newline.is_some() {
                        self.skipping = false;
                    }
                    (consumed, None)
                } else if self.line.len() + content > MAX_FRAME_BYTES {
                    // Answer from what fits (the id comes first in practice), then skip the
                    // rest of the line without keeping it.
                    let room = MAX_FRAME_BYTES - self.line.len();
                    self.line.extend_from_slice(&available[..room]);
                    let answer = frames::too_long(&self.line);
                    self.line.clear();
                    self.line.shrink_to(KEPT_LINE_CAPACITY);
                    self.skipping = newline.is_none();
                    (consumed, Some(Fill::TooLong(answer)))
                } else {
                    self.line.extend_from_slice(&available[..content]);
                    (consumed, newline.map(|_| Fill::Line))
                }
            };
            self.read.consume(consumed);
            if let Some(step) = step {
                return step;
            }
        }
    }
}

/// How a line read ended.
enum Fill {
    /// At its newline.
    Line,
    /// At the end of the input.
    End,
    /// Past [`MAX_FRAME_BYTES`]: skipped, with this answer.
    TooLong(Value),
}

/// What a line is: a message for rmcp (parsed once), an answer of the transport's own, or
/// nothing (a blank line, a notification or response rmcp's types refuse).
fn decode(line: &[u8]) -> Option<Read> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(BOM).unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let refused = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        // rmcp reads a request of MCP's own whose params its type refuses as a custom one
        // (which its handler would answer "method not found"): it is answered here instead.
        Ok(JsonRpcMessage::Request(r)) if matches!(&r.request, ClientRequest::CustomRequest(c) if is_mcp_request(&c.method)) =>
        {
            format!(
                "the `{}` request's params are not what MCP defines",
                r.request.method()
            )
        }
        Ok(message) => return Some(Read::Message(message, line.len())),
        Err(refused) => refused.to_string(),
    };
    frames::refusal(line, &refused).map(|answer| Read::Answer(answer_line(&answer)))
}

/// An answer's line, with its newline.
fn answer_line(answer: &Value) -> Vec<u8> {
    let mut line = answer.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// Whether `method` is one of the requests rmcp's [`ClientRequest`] has a type for.
fn is_mcp_request(method: &str) -> bool {
    use rmcp::model::{
        CallToolRequestMethod, CancelTaskMethod, CompleteRequestMethod, ConstString,
        DiscoverRequestMethod, GetPromptRequestMethod, GetSkillRequestMethod, GetTaskMethod,
        InitializeResultMethod, ListPromptsRequestMethod, ListResourceTemplatesRequestMethod,
        ListResourcesRequestMethod, ListSkillsRequestMethod, ListToolsRequestMethod,
        PingRequestMethod, ReadResourceDirectoryRequestMethod, ReadResourceRequestMethod,
        SetLevelRequestMethod, SubscribeRequestMethod, SubscriptionsListenRequestMethod,
        UnsubscribeRequestMethod, UpdateTaskMethod,
    };
    [
        PingRequestMethod::VALUE,
        InitializeResultMethod::VALUE,
        DiscoverRequestMethod::VALUE,
        CompleteRequestMethod::VALUE,
        SetLevelRequestMethod::VALUE,
        GetPromptRequestMethod::VALUE,
        ListPromptsRequestMethod::VALUE,
        ListResourcesRequestMethod::VALUE,
        ListResourceTemplatesRequestMethod::VALUE,
        ReadResourceRequestMethod::VALUE,
        SubscriptionsListenRequestMethod::VALUE,
        SubscribeRequestMethod::VALUE,
        UnsubscribeRequestMethod::VALUE,
        CallToolRequestMethod::VALUE,
        ListToolsRequestMethod::VALUE,
        GetTaskMethod::VALUE,
        UpdateTaskMethod::VALUE,
        CancelTaskMethod::VALUE,
        ListSkillsRequestMethod::VALUE,
        GetSkillRequestMethod::VALUE,
        ReadResourceDirectoryRequestMethod::VALUE,
    ]
    .contains(&method)
}

#[cfg(test)]
#[path = "lines_tests.rs"]
mod tests;
