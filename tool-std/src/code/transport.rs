//! What sits between a language server's pipes and async-lsp's client loop: a reader that
//! refuses frames over the size limit before anything allocates them ([`FrameGuard`]), the
//! router answering the server's own requests, and the store of the diagnostics it
//! publishes ([`Published`]).
//!
//! async-lsp reads a frame's `Content-Length` and allocates that many bytes at once, so a
//! server announcing a frame of terabytes would end this process; [`FrameGuard`] watches the
//! headers as they pass and fails the read first. Everything else of the framing (headers,
//! JSON-RPC, request ids) is async-lsp's.

use std::collections::HashMap;
use std::io;
use std::ops::ControlFlow;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use async_lsp::router::Router;
use async_lsp::{AnyNotification, ResponseError};
use lsp_types::{Diagnostic, PublishDiagnosticsParams, Url};
use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::watch;

/// The longest header line of a frame (bytes).
const MAX_HEADER_LINE: usize = 1024;

/// The most files whose diagnostics are kept per server; past it the oldest are forgotten.
pub(crate) const MAX_DIAGNOSED_FILES: usize = 2_000;

/// The most diagnostics kept per file.
pub(crate) const MAX_DIAGNOSTICS_PER_FILE: usize = 1_000;

/// A server's stdout, passed through unchanged while its frames' headers are checked: a
/// `Content-Length` over the limit, or a header line over [`MAX_HEADER_LINE`], fails the read.
pub(crate) struct FrameGuard<R> {
    inner: R,
    max: usize,
    /// In a header: the bytes of its current line so far.
    line: Vec<u8>,
    length: Option<usize>,
    /// In a frame's content: the bytes left of it.
    body: usize,
}

impl<R> FrameGuard<R> {
    pub(crate) fn new(inner: R, max: usize) -> Self {
        FrameGuard {
            inner,
            max,
            line: Vec::new(),
            length: None,
            body: 0,
        }
    }

    /// Follows the frames through `bytes`.
    fn watch(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            if self.body > 0 {
                let n = self.body.min(bytes.len());
                self.body -= n;
                bytes = &bytes[n..];
                continue;
            }
            let byte = bytes[0];
            bytes = &bytes[1..];
            self.line.push(byte);
            if self.line.len() > MAX_HEADER_LINE {
                return Err(io::Error::other(format!(
                    "the language server sent a header line over {MAX_HEADER_LINE} bytes"
                )));
            }
            if byte != b'\n' {
                continue;
            }
            let line = std::mem::take(&mut self.line);
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end();
            if text.is_empty() {
                // The end of the header: the content follows.
                self.body = self.length.take().unwrap_or(0);
                continue;
            }
            if let Some((name, value)) = text.split_once(':')
                && name.trim().eq_ignore_ascii_case("content-length")
            {
                let n: usize = value.trim().parse().unwrap_or(usize::MAX);
                if n > self.max {
                    return Err(io::Error::other(format!(
                        "the language server sent a message of {} bytes, over the limit of {} \
                         (CodeConfig::max_message_bytes)",
                        value.trim(),
                        self.max
                    )));
                }
                self.length = Some(n);
            }
        }
        Ok(())
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for FrameGuard<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                let read = buf.filled()[before..].to_vec();
                Poll::Ready(self.watch(&read))
            }
            other => other,
        }
    }
}

/// One file's latest published diagnostics.
#[derive(Debug, Clone)]
pub(crate) struct FileDiagnostics {
    /// Counts the publications for the file (1 for the first).
    pub(crate) generation: u64,
    /// The document version they are of, when the server says.
    pub(crate) version: Option<i32>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// The diagnostics a server published, per file, and a signal on every publication.
#[derive(Debug)]
pub(crate) struct Published {
    files: Mutex<HashMap<Url, FileDiagnostics>>,
    order: Mutex<std::collections::VecDeque<Url>>,
    changed: watch::Sender<u64>,
}

impl Published {
    pub(crate) fn new() -> Arc<Published> {
        Arc::new(Published {
            files: Mutex::new(HashMap::new()),
            order: Mutex::new(std::collections::VecDeque::new()),
            changed: watch::channel(0).0,
        })
    }

    fn record(&self, params: PublishDiagnosticsParams) {
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        let mut diagnostics = params.diagnostics;
        diagnostics.truncate(MAX_DIAGNOSTICS_PER_FILE);
        let generation = files.get(&params.uri).map_or(0, |f| f.generation) + 1;
        if generation == 1 {
            let mut order = self.order.lock().unwrap_or_else(|e| e.into_inner());
            order.push_back(params.uri.clone());
            while order.len() > MAX_DIAGNOSED_FILES {
                if let Some(old) = order.pop_front() {
                    files.remove(&old);
                }
            }
        }
        files.insert(
            params.uri,
            FileDiagnostics {
                generation,
                version: params.version,
                diagnostics,
            },
        );
        drop(files);
        self.changed.send_modify(|n| *n += 1);
    }

    /// The file's latest diagnostics, if any were published.
    pub(crate) fn of(&self, uri: &Url) -> Option<FileDiagnostics> {
        self.files
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(uri)
            .cloned()
    }

    /// A receiver that changes on every publication.
    pub(crate) fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }
}

/// The client side of the conversation: publications go to `published`, the server's
/// requests get the answers a client without settings gives, every other notification is
/// ignored.
pub(crate) fn router(published: Arc<Published>, folders: Value) -> Router<()> {
    let mut router = Router::new(());
    router.unhandled_notification(move |_, notif: AnyNotification| {
        if notif.method == "textDocument/publishDiagnostics"
            && let Ok(params) = serde_json::from_value::<PublishDiagnosticsParams>(notif.params)
        {
            published.record(params);
        }
        ControlFlow::Continue(())
    });
    router.unhandled_request(move |_, req| {
        let answer = match req.method.as_str() {
            // One `null` per item asked: no settings, the server's defaults.
            "workspace/configuration" => Ok(Value::Array(vec![
                Value::Null;
                req.params["items"]
                    .as_array()
                    .map_or(0, Vec::len)
                    .min(1_000)
            ])),
            "workspace/workspaceFolders" => Ok(folders.clone()),
            "client/registerCapability"
            | "client/unregisterCapability"
            | "window/workDoneProgress/create"
            | "window/showMessageRequest"
            | "workspace/diagnostic/refresh"
            | "workspace/semanticTokens/refresh"
            | "workspace/inlayHint/refresh"
            | "workspace/codeLens/refresh" => Ok(Value::Null),
            // The code tool changes no file through a server.
            "workspace/applyEdit" => Ok(serde_json::json!({
                "applied": false,
                "failureReason": "this client applies no edits"
            })),
            _ => Err(ResponseError::new(
                async_lsp::ErrorCode::METHOD_NOT_FOUND,
                format!("this client does not answer {}", req.method),
            )),
        };
        std::future::ready(answer)
    });
    router
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_over_the_limit_fail_before_their_content() {
        let mut g = FrameGuard::new((), 100);
        g.watch(b"Content-Length: 5\r\n\r\nhello").expect("fits");
        g.watch(b"Content-Length: 3\r\nContent-Type: x\r\n\r\nabc")
            .expect("fits");
        let e = g.watch(b"Content-Length: 101\r\n\r\n").unwrap_err();
        assert!(e.to_string().contains("over the limit of 100"), "{e}");
        let mut g = FrameGuard::new((), 100);
        let e = g
            .watch(b"Content-Length: 99999999999999999999999\r\n")
            .unwrap_err();
        assert!(e.to_string().contains("over the limit"), "{e}");
        let mut g = FrameGuard::new((), 100);
        assert!(g.watch(&[b'x'; 2000]).is_err());
    }

    #[test]
    fn a_frame_split_across_reads_is_followed() {
        let mut g = FrameGuard::new((), 100);
        for part in [
            &b"Content-Le"[..],
            b"ngth: 4\r",
            b"\n\r\nab",
            b"cdContent-Length: 2\r\n\r\nxy",
        ] {
            g.watch(part).expect("fits");
        }
        assert_eq!((g.body, g.line.len()), (0, 0));
    }
}
