//! `toolsmith serve`: the tools over MCP, on stdio (the default) or streamable HTTP (with the
//! live activity page beside `/mcp`); and the
//! ways `call` reads its arguments when they do not fit in argv (`-` for stdin,
//! `--args-file PATH`).

use std::io::Read;
use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use tool_core::activity::SqliteActivityStore;
use tool_core::http::activity::{Activity, ActivityServer};
use tool_core::mcp::{HttpServer, ServeOptions};
use tool_core::{ApproveAll, Registry, Runtime};

use crate::args::GlobalOptions;
use crate::{fail, host, notice, prompt_context};

/// The most bytes of arguments read from stdin or a file (the runtime's own limit on a
/// call's arguments is what refuses them; this only keeps the read bounded).
const MAX_ARGUMENT_INPUT: u64 = 64 * 1024 * 1024;

/// The arguments of `call`: the positional JSON, `-` for stdin, or `--args-file PATH`.
pub(crate) fn read_arguments(
    positional: Option<String>,
    file: Option<&Path>,
) -> Result<Option<String>, String> {
    match (positional.as_deref(), file) {
        (Some(_), Some(_)) => Err(
            "give the arguments once: as JSON, as `-` (stdin) or with --args-file, not two of them"
                .to_owned(),
        ),
        (Some("-"), None) => {
            let mut text = String::new();
            std::io::stdin()
                .lock()
                .take(MAX_ARGUMENT_INPUT)
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read the arguments from stdin: {e}"))?;
            Ok(Some(text))
        }
        (_, Some(path)) => {
            let file = std::fs::File::open(path)
                .map_err(|e| format!("cannot open the arguments file {}: {e}", path.display()))?;
            let mut text = String::new();
            file.take(MAX_ARGUMENT_INPUT)
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read the arguments file {}: {e}", path.display()))?;
            Ok(Some(text))
        }
        (p, None) => Ok(p.map(str::to_owned)),
    }
}

/// The runtime `serve` offers: every tool with its host services, approval per `--approve`,
/// the activity records in the store `--activity-store` names (returned too, to flush it
/// when the server stops).
async fn runtime(
    registry: Registry,
    options: &GlobalOptions,
) -> Result<(Runtime, Option<SqliteActivityStore>), String> {
    let roots = host::roots(options)?;
    let activity = match host::activity_store_path(options, &roots) {
        Some(path) => {
            let store = host::open_activity_store(options, &path)?;
            notice(&format!("activity records in {}", path.display()));
            Some(store)
        }
        None => None,
    };
    let web = host::web_config(options)?;
    let workspace = host::workspace(options)?;
    // Temporary files of writes killed mid-way (a bounded walk; each write cleans its own
    // directory as well).
    let swept = workspace.remove_stale_temp_files();
    if swept.removed > 0 {
        notice(&format!(
            "removed {} temporary file(s) left by killed writes",
            swept.removed
        ));
    }
    let shell = host::shell_config(options)?;
    notice(&host::sandbox_notice(&shell));
    let prompts = prompt_context(options).await?;
    let mut builder = Runtime::builder(Arc::new(registry))
        .service(Arc::new(web))
        .service(Arc::new(workspace))
        .service(Arc::new(shell))
        .service(Arc::new(prompts));
    if options.approve {
        // MCP hosts ask their user before a call: `--approve` trusts them to.
        builder = builder.approver(ApproveAll);
    }
    if let Some(store) = &activity {
        builder = builder.activity_store(Arc::new(store.clone()));
    }
    Ok((builder.build(), activity))
}

/// What `serve` was asked for besides the global options.
pub(crate) struct ServeArgs {
    pub(crate) http: Option<String>,
    pub(crate) token: Option<String>,
    pub(crate) activity_page: bool,
    pub(crate) activity_addr: Option<String>,
}

/// Runs `toolsmith serve`.
pub(crate) async fn serve(
    registry: Registry,
    options: &GlobalOptions,
    args: ServeArgs,
) -> ExitCode {
    let ServeArgs {
        http,
        token,
        activity_page,
        activity_addr,
    } = args;
    let mut serve_options = ServeOptions::new("toolsmith");
    if let Some(agent) = &options.agent {
        let session = serve_options.session.clone().agent(agent.as_str());
        serve_options = serve_options.session(session);
    }
    if let Some(t) = &token {
        serve_options = serve_options.token(t.clone());
    }
    // Refuse a bad address or a missing token before anything is opened.
    let addr = match http.as_deref().map(parse_addr).transpose() {
        Ok(a) => a,
        Err(e) => return fail(2, &e),
    };
    if let Some(addr) = addr
        && let Err(e) = HttpServer::check(addr, &serve_options)
    {
        return fail(2, &e.to_string());
    }
    let side = match activity_addr.as_deref().map(parse_addr).transpose() {
        Ok(a) => a,
        Err(e) => return fail(2, &format!("--activity-addr: {e}")),
    };
    if side.is_some() && addr.is_some() {
        return fail(
            2,
            "--activity-addr is for stdio; with --http the page is on the same server (/activity)",
        );
    }
    if let Some(side) = side
        && token.is_none()
        && !side.ip().is_loopback()
    {
        return fail(
            2,
            &format!(
                "--activity-addr {side} is not a loopback address: the page beyond this machine \
                 needs a token (--token or TOOLSMITH_TOKEN), or bind 127.0.0.1 / [::1]"
            ),
        );
    }
    let (runtime, store) = match runtime(registry, options).await {
        Ok(r) => r,
        Err(e) => return fail(2, &e),
    };
    let code = match addr {
        None => serve_stdio(runtime, serve_options, side, token).await,
        Some(addr) => serve_http(runtime, serve_options, addr, token, activity_page).await,
    };
    // Everything the calls recorded reaches the file before the process ends.
    if let Some(store) = store {
        store.flush().await;
        let stats = store.stats();
        if stats.dropped > 0 {
            notice(&format!(
                "{} activity record change(s) were dropped (see the warnings above)",
                stats.dropped
            ));
        }
    }
    code
}

/// MCP on stdio, with the activity page on `side` when given.
async fn serve_stdio(
    runtime: Runtime,
    serve_options: ServeOptions,
    side: Option<SocketAddr>,
    token: Option<String>,
) -> ExitCode {
    let stop = serve_options.shutdown.clone();
    if let Some(side) = side {
        let activity = match Activity::new(&runtime) {
            Ok(a) => match &token {
                Some(t) => a.token(t.clone()),
                None => a,
            },
            Err(e) => return fail(2, &format!("cannot start the activity page: {e}")),
        };
        let server = match ActivityServer::bind(side, activity).await {
            Ok(s) => s,
            Err(e) => return fail(2, &format!("cannot serve the activity page on {side}: {e}")),
        };
        match server.url() {
            Ok(url) if token.is_some() => notice(&format!(
                "activity page on {url} (open it once as {url}?token=TOKEN)"
            )),
            Ok(url) => notice(&format!("activity page on {url}")),
            Err(e) => return fail(2, &e.to_string()),
        }
        let stop = stop.clone();
        tokio::spawn(async move {
            if let Err(e) = server.run(stop).await {
                notice(&format!("the activity page stopped: {e}"));
            }
        });
    }
    notice("serving MCP on stdio");
    let served = tool_core::mcp::serve_stdio(runtime, serve_options).await;
    stop.cancel();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(1, &e.to_string()),
    }
}

/// MCP on streamable HTTP, with the activity page beside `/mcp` unless turned off.
async fn serve_http(
    runtime: Runtime,
    serve_options: ServeOptions,
    addr: SocketAddr,
    token: Option<String>,
    activity_page: bool,
) -> ExitCode {
    let shutdown = serve_options.shutdown.clone();
    let activity = if activity_page {
        match Activity::new(&runtime) {
            Ok(a) => Some(match &token {
                Some(t) => a.token(t.clone()),
                None => a,
            }),
            Err(e) => return fail(2, &format!("cannot start the activity page: {e}")),
        }
    } else {
        None
    };
    let mut server = match HttpServer::bind(addr, runtime, serve_options).await {
        Ok(s) => s,
        Err(e) => return fail(2, &format!("cannot serve on {addr}: {e}")),
    };
    if let Some(activity) = activity {
        server = server.with_activity(activity);
    }
    match server.endpoint() {
        Ok(url) => notice(&format!("serving MCP on {url}")),
        Err(e) => return fail(2, &e.to_string()),
    }
    match server.activity_url() {
        Ok(Some(url)) if token.is_some() => notice(&format!(
            "activity page on {url} (open it once as {url}?token=TOKEN)"
        )),
        Ok(Some(url)) => notice(&format!("activity page on {url}")),
        Ok(None) => {}
        Err(e) => return fail(2, &e.to_string()),
    }
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            shutdown.cancel();
        }
    });
    match server.run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(1, &e.to_string()),
    }
}

fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    // A bare port means loopback.
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse().map_err(|_| {
        format!("`{text}` is not an address; give IP:PORT (127.0.0.1:8080, [::1]:8080) or a port")
    })
}
