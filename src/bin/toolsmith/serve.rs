//! `toolsmith serve`: the tools over MCP, on stdio (the default) or streamable HTTP (with the
//! live activity page beside `/mcp`); and the
//! ways `call` reads its arguments when they do not fit in argv (`-` for stdin,
//! `--args-file PATH`).

use std::io::Read;
use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use tool_core::http::activity::Activity;
use tool_core::mcp::{HttpServer, ServeOptions};
use tool_core::{ApproveAll, Registry, Runtime, SelectedTools};

use crate::args::{GlobalOptions, SelectionArgs};
use crate::{fail, host, notice, prompt_context, tools};

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

/// The runtime `serve` offers: every tool with its host services, approval per `--approve`;
/// and the tools its sessions are offered (the selection flags and the agent's enabled tools;
/// `None` for every tool).
async fn runtime(
    registry: Registry,
    options: &GlobalOptions,
    select: &SelectionArgs,
) -> Result<(Runtime, Option<SelectedTools>), String> {
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
    let (prompts, agent) = prompt_context(options).await?;
    let selected = tools::offered(&registry, select, agent.as_ref())?;
    tools::require_some(&selected, agent.as_ref())?;
    if let Some(s) = &selected {
        let offered: Vec<&str> = registry
            .offered(tool_core::Mode::Mcp, Some(s))
            .map(|e| e.name())
            .collect();
        notice(&format!(
            "offering {} tool(s): {}",
            offered.len(),
            offered.join(", ")
        ));
    }
    let mut builder = Runtime::builder(Arc::new(registry))
        .service(Arc::new(web))
        .service(Arc::new(workspace))
        .service(Arc::new(shell))
        .service(Arc::new(prompts));
    if options.approve {
        // MCP hosts ask their user before a call: `--approve` trusts them to.
        builder = builder.approver(ApproveAll);
    }
    Ok((builder.build(), selected))
}

/// Runs `toolsmith serve`.
pub(crate) async fn serve(
    registry: Registry,
    options: &GlobalOptions,
    select: &SelectionArgs,
    http: Option<String>,
    token: Option<String>,
    activity_page: bool,
) -> ExitCode {
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
    let runtime = match runtime(registry, options, select).await {
        Ok((r, selected)) => {
            if let Some(selected) = selected {
                let session = serve_options.session.clone().tools(selected);
                serve_options = serve_options.session(session);
            }
            r
        }
        Err(e) => return fail(2, &e),
    };
    let Some(addr) = addr else {
        notice("serving MCP on stdio");
        return match tool_core::mcp::serve_stdio(runtime, serve_options).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(1, &e.to_string()),
        };
    };
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
