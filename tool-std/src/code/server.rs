//! One running language server: started through the sandbox's one entry, spoken to over its
//! pipes with async-lsp's client loop, initialized with its root, fed the documents the
//! tools look at, and ended as a whole group when it stops.

use std::collections::HashMap;
use std::future::Future;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::{Duration, Instant};

use async_lsp::{MainLoop, ServerSocket};
use lsp_types::notification::{
    Cancel, DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Exit, Initialized,
};
use lsp_types::request::{Initialize, Request, Shutdown};
use lsp_types::{
    CancelParams, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, InitializeParams, InitializedParams, NumberOrString,
    ServerCapabilities, TextDocumentContentChangeEvent, TextDocumentIdentifier, TextDocumentItem,
    Url, VersionedTextDocumentIdentifier, WorkspaceFolder,
};
use tokio::io::AsyncReadExt;
use tokio::sync::watch;
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};
use tokio_util::sync::CancellationToken;
use tool_core::ToolError;

use super::capabilities::client_capabilities;
use super::config::CodeConfig;
use super::transport::{FrameGuard, Published, router};
use crate::trust::sandbox::{Group, Program, Sandbox, Stop, program_path};
use crate::workspace::Workspace;

/// Bytes of a server's stderr kept, its last ones, to say why it stopped.
const STDERR_TAIL: usize = 4_000;

/// How long a server has to exit after `shutdown` and `exit` before its group is killed.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// How long a server's group has between `SIGTERM` and `SIGKILL`.
const KILL_GRACE: Duration = Duration::from_millis(500);

/// Which server: the root it serves and the command that runs it. Languages served by the
/// same command share one server per root.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub(crate) root: PathBuf,
    pub(crate) command: Vec<String>,
}

impl Key {
    /// `clangd` (the program's name) for messages.
    pub(crate) fn program(&self) -> &str {
        self.command.first().map_or("", String::as_str)
    }
}

/// Why a request got no answer.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The server is gone (crashed, killed, or its output broke); the text says how.
    Ended(String),
    /// The call's deadline came first (the request was cancelled at the server).
    Timeout,
    /// The call was cancelled (and so was the request at the server).
    Cancelled,
    /// The server answered with an error.
    Refused(String),
    /// The server does not know the request's method.
    Unsupported(&'static str),
}

/// A document as the server has it.
#[derive(Debug)]
struct Doc {
    version: i32,
    hash: u64,
    used: u64,
}

#[derive(Debug, Default)]
struct Docs {
    open: HashMap<Url, Doc>,
    clock: u64,
}

/// A started server.
#[derive(Debug)]
pub(crate) struct Server {
    pub(crate) key: Key,
    pub(crate) pid: u32,
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) published: Arc<Published>,
    pub(crate) config: Arc<CodeConfig>,
    socket: ServerSocket,
    /// The id async-lsp gives the next request (it numbers them from 0 in the order they
    /// are queued; the lock keeps that order ours).
    next_id: tokio::sync::Mutex<i32>,
    docs: tokio::sync::Mutex<Docs>,
    used: Mutex<Instant>,
    ended: watch::Receiver<Option<String>>,
    stop: CancellationToken,
}

impl Server {
    /// Starts `key`'s command in the sandbox, in the root's directory, and initializes it
    /// with the root, within `deadline`.
    pub(crate) async fn start(
        config: Arc<CodeConfig>,
        ws: &Workspace,
        key: Key,
        deadline: Instant,
    ) -> Result<Arc<Server>, ToolError> {
        let env = config.server_env();
        let program = program_path(key.program(), &env);
        if !program.is_absolute() {
            return Err(ToolError::user(format!(
                "the language server `{}` is not installed on the server's PATH",
                key.program()
            ))
            .with_suggestion(
                "Tell the user to install it, or to name another server for the language in \
                 toolsmith.toml ([code.servers]); use grep meanwhile.",
            ));
        }
        let sandbox = Sandbox::prepare(&config.sandbox, ws, &key.root, None).await?;
        let mut env = env;
        if let Some(tmp) = sandbox.temp_dir() {
            // Servers keep caches (jedi's, clangd's) under XDG_CACHE_HOME, by default in the
            // home directory, which a sandboxed server cannot write: they get one of their
            // own in the private temporary directory, gone with the server.
            let cache = tmp.join("cache");
            if std::fs::create_dir_all(&cache).is_ok() {
                env.retain(|(k, _)| k != "XDG_CACHE_HOME");
                env.push(("XDG_CACHE_HOME".to_owned(), cache.display().to_string()));
            }
        }
        let mut launched = sandbox
            .launch(Program {
                path: program,
                args: key.command[1..].to_vec(),
                cwd: key.root.clone(),
                env,
                stdin: true,
            })
            .await?;
        let pid = launched.child.id().unwrap_or(0);
        let (Some(stdin), Some(stdout), Some(stderr)) = (
            launched.child.stdin.take(),
            launched.child.stdout.take(),
            launched.child.stderr.take(),
        ) else {
            if let Some(group) = Group::of(&launched.child) {
                group.signal(Stop::Kill);
            }
            return Err(ToolError::system(
                "the language server started without its pipes",
            ));
        };
        let root_uri = Url::from_directory_path(&key.root).map_err(|()| {
            ToolError::system(format!(
                "{} is not a path a URI can name",
                key.root.display()
            ))
        })?;
        let name = key
            .root
            .file_name()
            .map_or_else(|| "root".to_owned(), |n| n.to_string_lossy().into_owned());
        let folders = serde_json::json!([{"uri": root_uri.as_str(), "name": name}]);
        let published = Published::new();
        let (main, socket) = MainLoop::new_client(|_| router(published.clone(), folders));
        let (ended_tx, ended) = watch::channel(None);
        let stop = CancellationToken::new();
        let max = config.max_message_bytes;
        let watching = stop.clone();
        // async-lsp's loop must outlive every socket (it panics when none is left), so the
        // task keeps one until the loop has ended.
        let kept = socket.clone();
        tokio::spawn(async move {
            let _kept = kept;
            let tail = Arc::new(Mutex::new(Vec::<u8>::new()));
            let drain = tokio::spawn(drain(stderr, tail.clone()));
            let input = FrameGuard::new(stdout, max).compat();
            let run = main.run_buffered(input, stdin.compat_write());
            let why = tokio::select! {
                ran = run => match ran {
                    Ok(()) => "it closed the conversation".to_owned(),
                    Err(async_lsp::Error::Eof) => "it closed its output (it exited or was killed)".to_owned(),
                    Err(e) => format!("its conversation broke: {e}"),
                },
                () = watching.cancelled() => "it was stopped".to_owned(),
            };
            let mut child = launched.child;
            let group = Group::of(&child);
            let exit = end_group(&mut child, group).await;
            let _ = tokio::time::timeout(Duration::from_millis(500), drain).await;
            let tail = String::from_utf8_lossy(&tail.lock().unwrap_or_else(|e| e.into_inner()))
                .trim()
                .to_owned();
            let code = exit.and_then(|s| s.code());
            let notes = sandbox.finish(code, &tail).await;
            drop(launched.guarded);
            let mut why = why;
            if let Some(status) = exit {
                why.push_str(&format!("; {status}"));
            }
            match notes {
                Err(e) => why.push_str(&format!("; {}", e.message())),
                Ok(notes) if !notes.is_empty() => why.push_str(&format!("; {}", notes.join(" "))),
                Ok(_) => {}
            }
            if !tail.is_empty() {
                why.push_str(&format!("; its last words on stderr: {tail}"));
            }
            let _ = ended_tx.send(Some(why));
        });
        let server = Arc::new(Server {
            key,
            pid,
            capabilities: ServerCapabilities::default(),
            published,
            config,
            socket,
            next_id: tokio::sync::Mutex::new(0),
            docs: tokio::sync::Mutex::new(Docs::default()),
            used: Mutex::new(Instant::now()),
            ended,
            stop,
        });
        let capabilities = match server.initialize(&root_uri, &name, deadline).await {
            Ok(c) => c,
            Err(e) => {
                server.stop.cancel();
                return Err(e);
            }
        };
        // The capabilities are known only now; the server is not shared before.
        let mut server = Arc::into_inner(server)
            .ok_or_else(|| ToolError::system("the language server was shared too early"))?;
        server.capabilities = capabilities;
        Ok(Arc::new(server))
    }

    async fn initialize(
        &self,
        root_uri: &Url,
        name: &str,
        deadline: Instant,
    ) -> Result<ServerCapabilities, ToolError> {
        let until = deadline.min(Instant::now() + self.config.start_timeout);
        #[allow(deprecated)]
        let params = InitializeParams {
            process_id: Some(std::process::id()),
            root_uri: Some(root_uri.clone()),
            root_path: Some(self.key.root.display().to_string()),
            workspace_folders: Some(vec![WorkspaceFolder {
                uri: root_uri.clone(),
                name: name.to_owned(),
            }]),
            capabilities: client_capabilities(),
            client_info: Some(lsp_types::ClientInfo {
                name: "toolsmith".to_owned(),
                version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            }),
            ..InitializeParams::default()
        };
        let never = CancellationToken::new();
        let result = self
            .request::<Initialize>(params, until, &never)
            .await
            .map_err(|f| self.start_error(f))?;
        self.socket
            .notify::<Initialized>(InitializedParams {})
            .map_err(|_| self.start_error(Failure::Ended(self.why_ended())))?;
        Ok(result.capabilities)
    }

    fn start_error(&self, failure: Failure) -> ToolError {
        let program = self.key.program();
        let why = match failure {
            Failure::Ended(why) => format!("it stopped while starting: {why}"),
            Failure::Timeout => format!(
                "it did not answer `initialize` within {} s",
                self.config.start_timeout.as_secs()
            ),
            Failure::Cancelled => "the call was cancelled".to_owned(),
            Failure::Refused(e) => format!("it refused `initialize`: {e}"),
            Failure::Unsupported(_) => "it does not know `initialize`".to_owned(),
        };
        ToolError::system(format!(
            "the language server `{program}` for {} could not be started: {why}",
            self.key.root.display()
        ))
        .with_suggestion("Tell the user what the error says; use grep and read_file meanwhile.")
    }

    /// Why the server ended, once it has; a placeholder before.
    pub(crate) fn why_ended(&self) -> String {
        self.ended
            .borrow()
            .clone()
            .unwrap_or_else(|| "it stopped answering".to_owned())
    }

    /// Whether the server still runs.
    pub(crate) fn alive(&self) -> bool {
        self.ended.borrow().is_none()
    }

    /// Marks it used now.
    pub(crate) fn touch(&self) {
        *self.used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    /// When it was last used.
    pub(crate) fn last_used(&self) -> Instant {
        *self.used.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends `R` and waits for the answer until `deadline` or `cancel`; either cancels the
    /// request at the server (`$/cancelRequest`).
    pub(crate) async fn request<R: Request>(
        &self,
        params: R::Params,
        deadline: Instant,
        cancel: &CancellationToken,
    ) -> Result<R::Result, Failure> {
        let mut answer = Box::pin(self.socket.request::<R>(params));
        let mut early = None;
        let id = {
            let mut next = self.next_id.lock().await;
            let id = *next;
            *next = next.wrapping_add(1);
            // The first poll queues the request, under the lock, so ids follow our count.
            std::future::poll_fn(|cx| {
                if let Poll::Ready(r) = answer.as_mut().poll(cx) {
                    early = Some(r);
                }
                Poll::Ready(())
            })
            .await;
            id
        };
        let got = match early {
            Some(r) => r,
            None => {
                let mut ended = self.ended.clone();
                tokio::select! {
                    r = &mut answer => r,
                    () = tokio::time::sleep_until(deadline.into()) => {
                        self.cancel_request(id);
                        return Err(Failure::Timeout);
                    }
                    () = cancel.cancelled() => {
                        self.cancel_request(id);
                        return Err(Failure::Cancelled);
                    }
                    gone = ended.wait_for(Option::is_some) => Err(async_lsp::Error::Protocol(
                        format!("ended: {}", gone.is_ok())
                    )),
                }
            }
        };
        match got {
            Ok(answer) => Ok(answer),
            Err(async_lsp::Error::Response(r))
                if r.code == async_lsp::ErrorCode::METHOD_NOT_FOUND =>
            {
                Err(Failure::Unsupported(R::METHOD))
            }
            Err(async_lsp::Error::Response(r)) => Err(Failure::Refused(r.message)),
            Err(async_lsp::Error::Deserialize(e)) => Err(Failure::Refused(format!(
                "its answer could not be read: {e}"
            ))),
            Err(_) => Err(Failure::Ended(self.ended_reason().await)),
        }
    }

    /// Why the server ended, waiting a moment for its end to be recorded.
    async fn ended_reason(&self) -> String {
        let mut ended = self.ended.clone();
        let _ = tokio::time::timeout(Duration::from_secs(3), ended.wait_for(Option::is_some)).await;
        self.why_ended()
    }

    fn cancel_request(&self, id: i32) {
        let _ = self.socket.notify::<Cancel>(CancelParams {
            id: NumberOrString::Number(id),
        });
    }

    /// Gives the server `text` as the content of `uri` (opened, or changed when it differs
    /// from what the server has); returns the document's version and whether anything was
    /// sent. Past [`CodeConfig::max_open_documents`] the least recently used is closed.
    pub(crate) async fn sync(
        &self,
        uri: &Url,
        language: &str,
        text: &str,
    ) -> Result<(i32, bool), Failure> {
        let hash = {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            text.hash(&mut h);
            h.finish()
        };
        let mut docs = self.docs.lock().await;
        docs.clock += 1;
        let now = docs.clock;
        let ended = || Failure::Ended(self.why_ended());
        if let Some(doc) = docs.open.get_mut(uri) {
            doc.used = now;
            if doc.hash == hash {
                return Ok((doc.version, false));
            }
            doc.version = doc.version.wrapping_add(1);
            doc.hash = hash;
            let version = doc.version;
            self.socket
                .notify::<DidChangeTextDocument>(DidChangeTextDocumentParams {
                    text_document: VersionedTextDocumentIdentifier::new(uri.clone(), version),
                    content_changes: vec![TextDocumentContentChangeEvent {
                        range: None,
                        range_length: None,
                        text: text.to_owned(),
                    }],
                })
                .map_err(|_| ended())?;
            return Ok((version, true));
        }
        while docs.open.len() >= self.config.max_open_documents.max(1) {
            let Some(oldest) = docs
                .open
                .iter()
                .min_by_key(|(_, d)| d.used)
                .map(|(u, _)| u.clone())
            else {
                break;
            };
            docs.open.remove(&oldest);
            self.socket
                .notify::<DidCloseTextDocument>(DidCloseTextDocumentParams {
                    text_document: TextDocumentIdentifier::new(oldest),
                })
                .map_err(|_| ended())?;
        }
        docs.open.insert(
            uri.clone(),
            Doc {
                version: 1,
                hash,
                used: now,
            },
        );
        self.socket
            .notify::<DidOpenTextDocument>(DidOpenTextDocumentParams {
                text_document: TextDocumentItem::new(
                    uri.clone(),
                    language.to_owned(),
                    1,
                    text.to_owned(),
                ),
            })
            .map_err(|_| ended())?;
        Ok((1, true))
    }

    /// Waits until the server has published diagnostics for `uri` after publication
    /// `after` (and of at least `version`, when it says which), or until `until` or the
    /// server's end; the latest ones then, if any.
    pub(crate) async fn diagnostics_after(
        &self,
        uri: &Url,
        after: u64,
        version: i32,
        until: Instant,
    ) -> Option<Vec<lsp_types::Diagnostic>> {
        let mut changes = self.published.subscribe();
        let mut ended = self.ended.clone();
        loop {
            if let Some(found) = self.published.of(uri)
                && found.generation > after
                && found.version.is_none_or(|v| v >= version)
            {
                return Some(found.diagnostics);
            }
            tokio::select! {
                changed = changes.changed() => if changed.is_err() { break },
                () = tokio::time::sleep_until(until.into()) => break,
                _ = ended.wait_for(Option::is_some) => break,
            }
        }
        None
    }

    /// The publication count of `uri`'s diagnostics so far.
    pub(crate) fn generation(&self, uri: &Url) -> u64 {
        self.published.of(uri).map_or(0, |f| f.generation)
    }

    /// Asks the server to shut down and exit; ends its group when it does not within a
    /// grace. Returns once it has ended.
    pub(crate) async fn shutdown(&self) {
        if self.alive() {
            let never = CancellationToken::new();
            let until = Instant::now() + SHUTDOWN_GRACE;
            if self.request::<Shutdown>((), until, &never).await.is_ok() {
                let _ = self.socket.notify::<Exit>(());
            }
            let mut ended = self.ended.clone();
            let waited = tokio::time::timeout(SHUTDOWN_GRACE, ended.wait_for(Option::is_some));
            if waited.await.is_err() {
                self.stop.cancel();
            }
        }
        self.stop.cancel();
        let mut ended = self.ended.clone();
        let _ = tokio::time::timeout(Duration::from_secs(5), ended.wait_for(Option::is_some)).await;
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Nobody holds it any more: its group ends with it.
        self.stop.cancel();
    }
}

/// Reads a server's stderr to its end, keeping the last [`STDERR_TAIL`] bytes.
async fn drain(mut stderr: tokio::process::ChildStderr, tail: Arc<Mutex<Vec<u8>>>) {
    let mut buf = vec![0u8; 8 * 1024];
    while let Ok(n) = stderr.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let mut kept = tail.lock().unwrap_or_else(|e| e.into_inner());
        kept.extend_from_slice(&buf[..n]);
        if kept.len() > STDERR_TAIL {
            let cut = kept.len() - STDERR_TAIL;
            kept.drain(..cut);
        }
    }
}

/// Ends the server's process group (`SIGTERM`, a grace, `SIGKILL`) unless its leader has
/// already exited, kills whatever is left of the group, and reaps the leader.
async fn end_group(
    child: &mut tokio::process::Child,
    group: Option<Group>,
) -> Option<std::process::ExitStatus> {
    if let Ok(Some(status)) = child.try_wait() {
        if let Some(group) = group {
            group.signal(Stop::Kill);
        }
        return Some(status);
    }
    if let Some(group) = group {
        group.signal(Stop::Term);
    }
    let status = match tokio::time::timeout(KILL_GRACE, child.wait()).await {
        Ok(status) => status.ok(),
        Err(_) => {
            if let Some(group) = group {
                group.signal(Stop::Kill);
            }
            let _ = child.start_kill();
            child.wait().await.ok()
        }
    };
    if let Some(group) = group {
        group.signal(Stop::Kill);
    }
    status
}
