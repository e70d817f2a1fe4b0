//! `toolsmith serve`: the tools over MCP, on stdio (the default) or streamable HTTP (with the
//! live activity page beside `/mcp`).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use tool_core::http::activity::{Activity, ActivityServer};
use tool_core::mcp::{HttpServer, Principal, ServeOptions, parse_sha256_hex, token_sha256};
use tool_core::{ApproveAll, Registry, Runtime, SelectedTools, SessionConfig, ToolSelection};

use crate::approval::{self, NoOneToAsk};
use crate::args::{GlobalOptions, SelectionArgs};
use crate::config::Config;
use crate::signals::stop_on_signals;
use crate::stores::{self, Records};
use crate::{fail, host, notice, prompt_context, prompt_context_for, tools};

/// The runtime `serve` offers: every tool with its host services, the file's rules,
/// approval per `--approve`, the activity records in the store `--activity-store` (or the
/// shared Postgres store) names (returned too, to flush it when the server stops); and the
/// tools its sessions are offered (the selection flags and the agent's enabled tools; `None`
/// for every tool).
async fn runtime(
    registry: Arc<Registry>,
    options: &GlobalOptions,
    config: &Config,
    select: &SelectionArgs,
) -> Result<(Unbuilt, Option<Records>, Option<SelectedTools>), String> {
    let roots = host::roots(options)?;
    let shared = stores::postgres_activity(options).await?;
    let activity = match host::activity_store_path(options, &roots) {
        _ if shared.is_some() => shared.map(Records::Postgres),
        Some(path) => {
            let store = host::open_activity_store(options, &path)?;
            notice(&format!("activity records in {}", path.display()));
            let closed = store.closed_abandoned();
            if closed > 0 {
                notice(&format!(
                    "closed {closed} activity record(s) a stopped server left in progress \
                     (as `failure`: {})",
                    tool_core::ABANDONED
                ));
            }
            Some(Records::Sqlite(store))
        }
        None => None,
    };
    let workspace = Arc::new(host::workspace(options)?);
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
    // The guardian, which ends the commands of a server killed outright, starts now, so
    // that a failure is said at start rather than found after a crash.
    if let Err(why) = tool_std::trust::sandbox::start_guardian(shell.sandbox.helper.as_deref()) {
        notice(&format!(
            "warning: commands would outlive this server if it were killed: {why}"
        ));
    }
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
    let parts = Parts {
        workspace,
        shell,
        prompts,
    };
    let mut runtime = build_runtime(registry, options, config, parts, None)?;
    if let Some(store) = &activity {
        runtime = runtime.with_activity_store(store.store());
    }
    Ok((runtime, activity, selected))
}

/// What a runtime serves with: its workspace, `bash`'s configuration, the agent store.
struct Parts {
    workspace: Arc<tool_std::workspace::Workspace>,
    shell: tool_std::shell::ShellConfig,
    prompts: tool_std::prompt::PromptContext,
}

/// A runtime over `parts` with the host's services and `rules`.
fn build_runtime(
    registry: Arc<Registry>,
    options: &GlobalOptions,
    config: &Config,
    parts: Parts,
    principal: Option<&str>,
) -> Result<Unbuilt, String> {
    let (code_config, servers) = crate::language_servers::services(config, &parts.shell);
    let shell = Arc::new(parts.shell);
    let rules = config.rule_sections(principal);
    let policy = approval::policy(
        config,
        &rules,
        &registry,
        parts.workspace.clone(),
        shell.clone(),
    )
    .map_err(|e| e.0)?;
    approval::hide_denied(&policy, &parts.workspace);
    // Reread on SIGHUP (see `reload`).
    let policy = crate::reload::register(policy, principal, parts.workspace.clone(), shell.clone());
    let mut builder = Runtime::builder(registry)
        .service(Arc::new(host::web_config(options)?))
        .service(Arc::new(host::search_config(options)))
        .service(parts.workspace)
        .service(shell)
        .service(code_config)
        .service(servers)
        .service(Arc::new(parts.prompts));
    builder = builder.policy(policy);
    builder = if options.approve {
        // `--approve`: every call that asks is allowed.
        builder.approver(ApproveAll)
    } else {
        builder.approver(NoOneToAsk {
            because: "this MCP client cannot ask its user",
        })
    };
    Ok(Unbuilt(builder))
}

/// A runtime, set up but for what it may share with the server's own runtime.
struct Unbuilt(tool_core::RuntimeBuilder);

impl Unbuilt {
    /// The runtime, recording its activity in `store`.
    fn with_activity_store(self, store: Arc<dyn tool_core::ActivityStore>) -> Self {
        Unbuilt(self.0.activity_store(store))
    }

    /// The runtime, sharing `main`'s activity store and event stream (so that one page shows
    /// every principal's calls).
    fn sharing(self, main: &Runtime) -> Runtime {
        self.0
            .activity_store(main.activities().clone())
            .events(main.events().clone())
            .build()
    }

    fn build(self) -> Runtime {
        self.0.build()
    }
}

/// What `serve` was asked for besides the global options.
pub(crate) struct ServeArgs {
    pub(crate) http: Option<String>,
    pub(crate) token: Option<String>,
    pub(crate) activity_page: bool,
    pub(crate) activity_addr: Option<String>,
}

/// The file's principals, each served with its own roots (a subset of the server's, the
/// others unreadable to its commands), agent, rules (the file's `[rules]` and its own) and
/// tools (its `toolsets`, within what the flags select and its agent enables).
async fn principals(
    registry: &Arc<Registry>,
    options: &GlobalOptions,
    config: &Config,
    select: &SelectionArgs,
    main: &Runtime,
) -> Result<Vec<Principal>, String> {
    let all_roots = host::roots(options)?;
    let mut out = Vec::new();
    for p in &config.file.principals {
        let name = p.name.get_ref();
        let roots = match &p.roots {
            None => all_roots.clone(),
            Some(names) => {
                let mut picked = Vec::new();
                for n in names {
                    let Some(root) = all_roots.iter().find(|r| r.name == *n.get_ref()) else {
                        let known: Vec<&str> = all_roots.iter().map(|r| r.name.as_str()).collect();
                        return Err(config
                            .error_at(
                                n.span(),
                                &format!(
                                    "principal `{name}` names the root `{}`, which the server \
                                     does not serve; its roots are: {}",
                                    n.get_ref(),
                                    known.join(", ")
                                ),
                            )
                            .0);
                    };
                    picked.push(root.clone());
                }
                picked
            }
        };
        let mut shell = host::shell_config(options)?;
        // The server's other roots are not for this principal's commands to read.
        for other in all_roots.iter().filter(|r| !roots.contains(r)) {
            shell.sandbox.deny_read.push(other.dir.clone());
        }
        let workspace = Arc::new(host::workspace_of(options, roots)?);
        let agent = p.agent.as_deref().or(options.agent.as_deref());
        let (prompts, current) = prompt_context_for(options, agent).await?;
        let mut selected = tools::offered(registry, select, current.as_ref())?;
        if let Some(toolsets) = &p.toolsets {
            let own = ToolSelection::all()
                .toolsets(toolsets.iter().map(|t| t.trim()))
                .resolve(registry)
                .map_err(|e| format!("principal `{name}`'s toolsets: {e}"))?;
            selected = Some(match selected {
                Some(s) => s.intersection(&own),
                None => own,
            });
        }
        tools::require_some(&selected, current.as_ref())?;
        let parts = Parts {
            workspace,
            shell,
            prompts,
        };
        let runtime =
            build_runtime(registry.clone(), options, config, parts, Some(name))?.sharing(main);
        let hash = match (&p.token, &p.token_sha256) {
            (Some(t), _) => token_sha256(t.get_ref()),
            (None, Some(h)) => parse_sha256_hex(h.get_ref()).ok_or("a checked hash reads back")?,
            (None, None) => return Err(format!("principal `{name}` has no token")),
        };
        let mut session = SessionConfig::default().principal(name.as_str());
        if let Some(agent) = agent {
            session = session.agent(agent);
        }
        if let Some(selected) = selected {
            session = session.tools(selected);
        }
        out.push(Principal::new(name.as_str(), hash, runtime).session(session));
    }
    Ok(out)
}

/// Runs `toolsmith serve`.
pub(crate) async fn serve(
    registry: Registry,
    options: &GlobalOptions,
    config: &Config,
    select: &SelectionArgs,
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
    // `--approve` allows every ask; without it, calls that ask ask the client's user.
    serve_options = serve_options.ask_clients(!options.approve);
    let section = config.file.serve.as_ref();
    let key = std::env::var("TOOLSMITH_APPROVAL_KEY").ok().or_else(|| {
        section
            .and_then(|s| s.approval_key.as_ref())
            .map(|k| k.get_ref().clone())
    });
    if let Some(key) = key {
        serve_options = serve_options.approval_key(key.into_bytes());
    }
    // The shared database, when `--store` names one: connected before anything is served,
    // so that a wrong URL or a server away is said at start.
    let shared = match stores::postgres(options).await {
        Ok(shared) => shared,
        Err(e) => return fail(2, &e),
    };
    if let Some(shared) = &shared {
        notice(&format!(
            "agents, activity records, used approvals and the search window in Postgres at {} \
             (this replica: {})",
            shared.server(),
            shared.replica()
        ));
        serve_options = serve_options.used_approval_store(Arc::new(shared.clone()));
    } else {
        let used = match section.and_then(|s| s.used_approvals.as_ref()) {
            Some(dir) => config.dir().join(dir),
            None => match host::roots(options) {
                Ok(roots) => host::store_path(options, &roots).with_file_name("approvals"),
                Err(e) => return fail(2, &e),
            },
        };
        serve_options = serve_options.used_approvals(used);
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
    // Off loopback the token is all that keeps strangers out: the flag and the variable
    // are held to the file's rule.
    let off_loopback = [addr, side]
        .into_iter()
        .flatten()
        .any(|a| !a.ip().is_loopback());
    if let Some(t) = &token
        && off_loopback
        && (t.chars().count() < crate::config::MIN_TOKEN_CHARS
            || t.chars().any(char::is_whitespace))
    {
        return fail(
            2,
            &format!(
                "the token (--token or TOOLSMITH_TOKEN) is {} characters; a server beyond \
                 loopback needs one of at least {} characters without spaces, as \
                 toolsmith.toml does; make one with `openssl rand -hex 32`",
                t.chars().count(),
                crate::config::MIN_TOKEN_CHARS
            ),
        );
    }
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
    let registry = Arc::new(registry);
    // The runtimes built from here on reread their rules on SIGHUP.
    let first_root = host::roots(options)
        .ok()
        .and_then(|r| r.first().map(|r| r.dir.clone()));
    crate::reload::watch(registry.clone(), options.config.clone(), first_root);
    let (runtime, store) = match runtime(registry.clone(), options, config, select).await {
        Ok((r, store, selected)) => {
            if let Some(selected) = selected {
                let session = serve_options.session.clone().tools(selected);
                serve_options = serve_options.session(session);
            }
            (r.build(), store)
        }
        Err(e) => return fail(2, &e),
    };
    match principals(&registry, options, config, select, &runtime).await {
        Ok(list) if list.is_empty() => {}
        Ok(list) if addr.is_none() => notice(&format!(
            "{} principal(s) configured: they apply to HTTP requests, and stdio has none",
            list.len()
        )),
        Ok(list) => {
            for p in list {
                serve_options = serve_options.principal(p);
            }
        }
        Err(e) => return fail(2, &e),
    }
    // The page of a replica on the shared store shows the other replicas' calls too.
    let replicas = match &store {
        Some(Records::Postgres(s)) => Some(s.clone()),
        _ => None,
    };
    let code = match addr {
        None => serve_stdio(runtime, serve_options, side, token, replicas).await,
        Some(addr) => {
            serve_http(runtime, serve_options, addr, token, activity_page, replicas).await
        }
    };
    // The language servers stop with it, asked to (`shutdown`, `exit`), then ended.
    let stopped = crate::language_servers::shutdown_all().await;
    if stopped > 0 {
        notice(&format!("stopped {stopped} language server(s)"));
    }
    // The background processes die with the server, each with its whole group.
    let ended = tool_std::shell::Processes::global().end_all().await;
    if ended > 0 {
        notice(&format!("ended {ended} background process(es)"));
    }
    // Everything the calls recorded reaches the file before the process ends.
    if let Some(store) = store {
        store.flush().await;
        let (dropped, held) = store.lost();
        if dropped > 0 {
            notice(&format!(
                "{dropped} activity record change(s) were dropped (see the warnings above)"
            ));
        }
        if held > 0 {
            notice(&format!(
                "{held} activity record(s) could not be written: the database is away"
            ));
        }
    }
    // The lease goes back: the other replicas need not wait for it to run out.
    if let Some(shared) = stores::opened_postgres() {
        shared.close().await;
    }
    code
}

/// MCP on stdio, with the activity page on `side` when given.
async fn serve_stdio(
    runtime: Runtime,
    serve_options: ServeOptions,
    side: Option<SocketAddr>,
    token: Option<String>,
    replicas: Option<tool_core::postgres::PostgresActivityStore>,
) -> ExitCode {
    let stop = serve_options.shutdown.clone();
    stop_on_signals(stop.clone());
    if let Some(side) = side {
        let activity = match Activity::new(&runtime) {
            Ok(a) => match &token {
                Some(t) => a.token(t.clone()),
                None => a,
            },
            Err(e) => return fail(2, &format!("cannot start the activity page: {e}")),
        };
        if let Some(store) = replicas {
            stores::follow_replicas(activity.feed().clone(), store, stop.clone());
        }
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
    replicas: Option<tool_core::postgres::PostgresActivityStore>,
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
    if let (Some(activity), Some(store)) = (&activity, replicas) {
        stores::follow_replicas(activity.feed().clone(), store, shutdown.clone());
    }
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
    stop_on_signals(shutdown);
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
