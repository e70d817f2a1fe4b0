//! One call's way to a server: the file read and given to the server of its language and
//! root (started if need be), the request sent within the call's deadline and cancelled
//! with the call, and a server that stopped restarted once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use lsp_types::request::Request;
use tool_core::{ErrorKind, ToolContext, ToolError};

use super::config::CodeConfig;
use super::server::{Failure, Key, Server};
use super::servers::LanguageServers;
use super::source::{Source, load};
use crate::workspace::Workspace;

/// Time kept between the tool's own deadline and the runtime's, to answer.
const DEADLINE_MARGIN: Duration = Duration::from_millis(300);

/// The deadline of a call that has none of the runtime's.
const DEFAULT_DEADLINE: Duration = Duration::from_secs(60);

/// A call of the `code` tool.
pub(crate) struct Call<'a> {
    pub(crate) ctx: &'a ToolContext,
    pub(crate) ws: Arc<Workspace>,
    pub(crate) config: Arc<CodeConfig>,
    servers: Arc<LanguageServers>,
    pub(crate) deadline: Instant,
    /// What happened on the way that the answer should say (a restart).
    pub(crate) notes: Vec<String>,
    restarted: bool,
    /// Whether a stopped server was already given its one more chance.
    retried: bool,
}

/// A file given to its server.
pub(crate) struct Opened {
    pub(crate) source: Source,
    pub(crate) server: Arc<Server>,
    /// The document's version at the server.
    pub(crate) version: i32,
    /// The publication count of its diagnostics before it was given.
    pub(crate) before: u64,
    /// Whether it was sent (opened or changed) now.
    pub(crate) sent: bool,
}

impl<'a> Call<'a> {
    pub(crate) fn new(ctx: &'a ToolContext) -> Result<Call<'a>, ToolError> {
        let config = CodeConfig::of(ctx);
        if !config.enabled {
            return Err(ToolError::permission(
                "the host has turned the code tool off; use grep and read_file",
            ));
        }
        let now = Instant::now();
        let deadline = ctx.deadline().map_or(now + DEFAULT_DEADLINE, |d| {
            d.checked_sub(DEADLINE_MARGIN).unwrap_or(now).max(now)
        });
        Ok(Call {
            ctx,
            ws: ctx.require_service::<Workspace>()?,
            config,
            servers: LanguageServers::of(ctx),
            deadline,
            notes: Vec::new(),
            restarted: false,
            retried: false,
        })
    }

    /// Reads `path` (off the async threads).
    pub(crate) async fn load(&self, path: &str) -> Result<Source, ToolError> {
        let ws = self.ws.clone();
        let config = self.config.clone();
        let path = path.to_owned();
        tokio::task::spawn_blocking(move || load(&ws, &config, &path))
            .await
            .map_err(|e| ToolError::system(format!("reading the file stopped unexpectedly: {e}")))?
    }

    /// The server key of a language in a root: the configured command, else the default one
    /// already running for the root, else the first default found on the `PATH`.
    pub(crate) fn key(&self, language: &str, root: usize) -> Result<Key, ToolError> {
        let root = self.ws.roots()[root].path().to_path_buf();
        let command = self
            .servers
            .running_default(&self.config, language, &root)
            .or_else(|| self.config.server_for(language));
        let Some(command) = command else {
            return Err(ToolError::user(format!(
                "no language server for {language} is configured or installed"
            ))
            .with_suggestion(format!(
                "Tell the user to install one (the defaults are looked for on the PATH) or to \
                 name it in toolsmith.toml: [code.servers] {language} = [\"program\", \"args\"]. \
                 Use grep and read_file meanwhile."
            )));
        };
        Ok(Key { root, command })
    }

    /// The server of `key`, started if need be; a restart of a stopped one is noted.
    async fn server(&mut self, key: &Key) -> Result<Arc<Server>, ToolError> {
        self.ctx.progress(format!(
            "Waiting for the language server `{}`",
            key.program()
        ));
        let (server, restarted) = self
            .servers
            .get(&self.config, &self.ws, key, self.deadline)
            .await?;
        if restarted {
            self.restarted = true;
            self.notes.push(format!(
                "The language server `{}` had stopped and was restarted.",
                key.program()
            ));
        }
        Ok(server)
    }

    /// Reads `path` and gives it to its server.
    pub(crate) async fn open(&mut self, path: &str) -> Result<Opened, ToolError> {
        let source = self.load(path).await?;
        self.give(source).await
    }

    /// Gives `source` to its server (restarting a stopped one once).
    pub(crate) async fn give(&mut self, source: Source) -> Result<Opened, ToolError> {
        let key = self.key(&source.language, source.path.root())?;
        loop {
            let server = self.server(&key).await?;
            let before = server.generation(&source.uri);
            match server
                .sync(&source.uri, &source.language, &source.text)
                .await
            {
                Ok((version, sent)) => {
                    return Ok(Opened {
                        source,
                        server,
                        version,
                        before,
                        sent,
                    });
                }
                Err(failure) => self.retry_or_fail(&server, failure).await?,
            }
        }
    }

    /// Sends `R` to the server `opened` went to; a server that stopped meanwhile is
    /// restarted once, given the file again, and asked again.
    pub(crate) async fn ask<R: Request>(
        &mut self,
        opened: &mut Opened,
        params: impl Fn(&Opened) -> R::Params,
    ) -> Result<R::Result, ToolError> {
        loop {
            let cancel = self.ctx.cancellation().clone();
            match opened
                .server
                .request::<R>(params(opened), self.deadline, &cancel)
                .await
            {
                Ok(answer) => {
                    opened.server.touch();
                    return Ok(answer);
                }
                Err(failure) => {
                    let server = opened.server.clone();
                    self.retry_or_fail(&server, failure).await?;
                    *opened = self.give(opened.source.clone()).await?;
                }
            }
        }
    }

    /// Whether to go on after `failure`: once, for a server that stopped; otherwise the
    /// error the model reads.
    async fn retry_or_fail(&mut self, server: &Server, failure: Failure) -> Result<(), ToolError> {
        let program = server.key.program().to_owned();
        match failure {
            Failure::Ended(_) if !self.restarted && !self.retried => {
                // Its end may not be recorded yet; it is ended for sure before the restart.
                self.retried = true;
                server.shutdown().await;
                Ok(())
            }
            Failure::Ended(why) => Err(ToolError::system(format!(
                "the language server `{program}` stopped again after its restart: {why}"
            ))
            .with_suggestion(
                "Tell the user the server keeps stopping (the error says why); use grep and \
                 read_file meanwhile.",
            )),
            Failure::Timeout => Err(ToolError::new(
                ErrorKind::Timeout,
                format!(
                    "the language server `{program}` did not answer within the call's time; \
                     it may still be reading the project"
                ),
            )
            .with_suggestion("Call again in a moment; use grep meanwhile.")),
            Failure::Cancelled => Err(ToolError::new(
                ErrorKind::Cancelled,
                "the call was cancelled",
            )),
            Failure::Unsupported(method) => Err(ToolError::user(format!(
                "the language server `{program}` does not answer {method}, which this action needs"
            ))
            .with_field("method", method)
            .with_suggestion(
                "Use another action (references, definition, symbols) or grep; the user can \
                 name another server for the language in toolsmith.toml ([code.servers]).",
            )),
            Failure::Refused(why) => Err(ToolError::user(format!(
                "the language server `{program}` could not answer: {why}"
            ))
            .with_suggestion(
                "Check the path, line and symbol (the name must be on that line); if the \
                 project is still being read, call again in a moment.",
            )),
        }
    }

    /// The notes of the way, as one sentence list.
    pub(crate) fn notes(&self) -> Option<String> {
        (!self.notes.is_empty()).then(|| self.notes.join(" "))
    }
}
