//! The `toolsmith` command: list tool definitions, print one tool's schema, run a call, serve
//! the tools over MCP (stdio or streamable HTTP, with the live activity page) and migrate
//! stored agents' tool names.
//!
//! Exit codes: 0 success, 1 the tool answered with an error (its JSON is still printed on
//! stdout), 2 a usage error.
//!
//! The binary is also the `bash` sandbox's helper: started with that `argv[0]`, `main` hands
//! over to `tool_std::trust::sandbox::dispatch` before anything else.

mod activity;
mod agents;
mod approval;
mod args;
mod config;
mod host;
mod language_servers;
mod logs;
mod reload;
mod serve;
mod signals;
mod stores;
mod tools;

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use serde_json::Value;
use tool_core::provider::{ExportOptions, Format, export_all_with};
use tool_core::{
    ApproveAll, Mode, Permission, Registry, Runtime, SessionConfig, ToolCall, ToolFilter, ToolSpec,
};
use tool_std::prompt::{Agent, AgentStore, PromptContext};

use args::{Cli, Command, GlobalOptions, SelectionArgs};

/// The account agents named with `--agent` belong to.
pub(crate) const CLI_ACCOUNT: &str = "default";

fn main() -> ExitCode {
    // Started as the bash sandbox's helper, this process restricts itself and becomes the
    // command's shell here; it must happen before the async runtime starts any thread.
    tool_std::trust::sandbox::dispatch();
    let mut cli = Cli::parse();
    // The file is read before the logs start: it may choose their format.
    let first_root = cli
        .options
        .roots
        .first()
        .and_then(|spec| host::parse_root(spec, true).ok())
        .map(|root| root.dir);
    let config = match config::Config::load(cli.options.config.as_deref(), first_root.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(std::io::stderr().lock(), "toolsmith: {e}");
            return ExitCode::from(2);
        }
    };
    config.apply(&mut cli.options);
    cli.options.config_found.clone_from(&config.path);
    let format = cli
        .options
        .log_format
        .unwrap_or(match config.file.log_format {
            Some(config::LogFormatKey::Json) => logs::LogFormat::Json,
            _ => logs::LogFormat::Text,
        });
    // Kept to the end: dropped, it sends the spans still batched.
    let logs = logs::init(format);
    notice(&config.notice());
    if logs.exporting() && matches!(cli.command, Command::Serve { .. }) {
        notice("exporting call spans over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT)");
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(2, &format!("cannot start the async runtime: {e}")),
    };
    let code = rt.block_on(async {
        let code = run(cli, config).await;
        // A replica on the shared store gives its lease back as it ends.
        if let Some(shared) = stores::opened_postgres() {
            shared.close().await;
        }
        code
    });
    // A read of stdin still waiting on its blocking thread (a stdio server stopped by a
    // signal) would hold the runtime's drop for ever: what is left is not waited for.
    rt.shutdown_timeout(std::time::Duration::from_millis(500));
    code
}

fn fail(code: u8, message: &str) -> ExitCode {
    notice(message);
    ExitCode::from(code)
}

pub(crate) use logs::notice;

pub(crate) fn print_text(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}") {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(2, &format!("cannot write to stdout: {e}")),
    }
}

pub(crate) fn print_json(value: &Value) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").map_err(|e| e.to_string())
}

fn parse_mode(options: &GlobalOptions) -> Result<Option<Mode>, String> {
    options
        .mode
        .as_deref()
        .map(|m| Mode::parse(m).map_err(|e| e.to_string()))
        .transpose()
}

async fn run(cli: Cli, config: config::Config) -> ExitCode {
    let mode = match parse_mode(&cli.options) {
        Ok(m) => m,
        Err(e) => return fail(2, &e),
    };
    // Every tool linked into the binary: the standard tools submit themselves. The `web`
    // tool's description states the search limit this server enforces.
    let mut tools = Registry::builder().with_inventory();
    if let Ok(web) = host::web_config(&cli.options) {
        tools = tools.describe("web", web.tool_description(false));
    }
    let registry = match tools.build() {
        Ok(r) => r,
        Err(e) => return fail(2, &e.to_string()),
    };
    // A file whose rules cannot be used is refused by every command that would apply them.
    if config.path.is_some()
        && matches!(
            cli.command,
            Command::List { .. } | Command::Call { .. } | Command::Serve { .. }
        )
    {
        let checked = host::workspace(&cli.options).and_then(|ws| {
            approval::check_rules(&config, &registry, &Arc::new(ws)).map_err(|e| e.0)
        });
        if let Err(e) = checked {
            return fail(2, &e);
        }
    }
    match cli.command {
        Command::List {
            format,
            mut select,
            deferred,
        } => {
            config.fill_selection(&mut select);
            if let Ok(shell) = host::shell_config(&cli.options) {
                notice(&host::sandbox_notice(&shell));
            }
            let agent = match tools::lookup_agent(&cli.options).await {
                Ok(a) => a,
                Err(e) => return fail(2, &e),
            };
            let mut filter = ToolFilter::all();
            filter.mode = mode;
            match tools::offered(&registry, &select, agent.as_ref()) {
                Ok(selected) => filter.selected = selected,
                Err(e) => return fail(2, &e),
            }
            let options = match tools::export_options(&registry, &deferred) {
                Ok(o) => o,
                Err(e) => return fail(2, &e),
            };
            let specs: Vec<&ToolSpec> = registry.filter(&filter).map(|e| &**e.spec()).collect();
            export(&specs, &format, &options)
        }
        Command::Schema { name, format } => match registry.get(&name) {
            Some(entry) => export(&[&**entry.spec()], &format, &ExportOptions::new()),
            None => {
                let names: Vec<&str> = registry.iter().map(|e| e.name()).collect();
                fail(
                    2,
                    &format!("no tool named `{name}`; tools: {}", names.join(", ")),
                )
            }
        },
        Command::Call {
            name,
            arguments,
            args_file,
            mut select,
        } => {
            config.fill_selection(&mut select);
            let arguments = match signals::read_arguments(arguments, args_file.as_deref()) {
                Ok(a) => a,
                Err(e) => return fail(2, &e),
            };
            let mode = mode.unwrap_or(Mode::Cli);
            call(
                registry,
                &cli.options,
                &config,
                &select,
                mode,
                name,
                arguments,
            )
            .await
        }
        Command::Serve {
            http,
            token,
            no_activity,
            mut select,
            activity_addr,
        } => {
            config.fill_selection(&mut select);
            let section = config.file.serve.as_ref();
            let activity_addr =
                activity_addr.or_else(|| section.and_then(|s| s.activity_addr.clone()));
            let http = http.or_else(|| section.and_then(|s| s.http.clone()));
            let token = token
                .or_else(|| section.and_then(|s| s.token.as_ref().map(|t| t.get_ref().clone())));
            let args = serve::ServeArgs {
                http,
                token,
                activity_page: !no_activity && section.and_then(|s| s.activity) != Some(false),
                activity_addr,
            };
            serve::serve(registry, &cli.options, &config, &select, args).await
        }
        Command::Agents {
            set_tools,
            enable_tools,
            disable_tools,
            all_tools,
            json,
        } => {
            let edit = agents::Edit {
                set: set_tools,
                enable: enable_tools,
                disable: disable_tools,
                all: all_tools,
            };
            agents::agents(&registry, &cli.options, edit, json).await
        }
        Command::Activity {
            limit,
            json,
            follow,
        } => activity::show(&cli.options, limit, json, follow).await,
        Command::MigrateTools {
            rollback,
            dry_run,
            json,
        } => migrate_tools(&registry, &cli.options, rollback, dry_run, json).await,
    }
}

fn export(specs: &[&ToolSpec], format: &str, options: &ExportOptions) -> ExitCode {
    let format: Format = match format.parse() {
        Ok(f) => f,
        Err(e) => return fail(2, &e.to_string()),
    };
    match export_all_with(specs.iter().copied(), format, options) {
        Ok(exported) => print_text(&exported.to_pretty()),
        Err(e) => fail(1, &e.to_string()),
    }
}

/// Whether a tool works on the agent store (the prompt tools), so the store is opened only
/// for calls that need it.
fn needs_agent_store(spec: &ToolSpec) -> bool {
    spec.permissions.contains(Permission::ViewPrompts)
        || spec.permissions.contains(Permission::ManagePrompts)
        || spec.actions.as_ref().is_some_and(|a| {
            a.actions.iter().any(|x| {
                x.permissions.contains(Permission::ViewPrompts)
                    || x.permissions.contains(Permission::ManagePrompts)
            })
        })
}

/// The prompt tools' context over the agent store, and the agent `--agent` names (created on
/// first use).
async fn prompt_context(options: &GlobalOptions) -> Result<(PromptContext, Option<Agent>), String> {
    prompt_context_for(options, options.agent.as_deref()).await
}

/// The prompt tools' context over the agent store, with `agent` (if any, created on first
/// use) as the current agent, and that agent.
async fn prompt_context_for(
    options: &GlobalOptions,
    agent: Option<&str>,
) -> Result<(PromptContext, Option<Agent>), String> {
    let roots = host::roots(options)?;
    let store: Arc<dyn AgentStore> = stores::agents(options, &roots, false)
        .await?
        .ok_or("the agent store could not be opened")?;
    let mut context = PromptContext::new(store.clone());
    let mut current = None;
    if let Some(name) = agent {
        let agent = store
            .get_or_create(CLI_ACCOUNT, name)
            .await
            .map_err(|e| format!("cannot use agent `{name}`: {e}"))?;
        if agent.name != name {
            notice(&format!(
                "agent `{name}` was renamed to `{}`; using it (`--agent {}` names it directly)",
                agent.name, agent.name
            ));
        }
        context = context.with_agent(&agent);
        current = Some(agent);
    }
    Ok((context, current))
}

async fn call(
    registry: Registry,
    options: &GlobalOptions,
    config: &config::Config,
    select: &SelectionArgs,
    mode: Mode,
    name: String,
    arguments: Option<String>,
) -> ExitCode {
    // A search counts in the shared window: the shared store is opened first.
    if name == "web"
        && let Err(e) = stores::postgres(options).await
    {
        return fail(2, &e);
    }
    let web = match host::web_config(options) {
        Ok(w) => w,
        Err(e) => return fail(2, &e),
    };
    let store_needed = registry
        .get(&name)
        .is_some_and(|e| needs_agent_store(e.spec()));
    let workspace = match host::workspace(options) {
        Ok(w) => Arc::new(w),
        Err(e) => return fail(2, &e),
    };
    let shell = match host::shell_config(options) {
        Ok(s) => Arc::new(s),
        Err(e) => return fail(2, &e),
    };
    let rules: Vec<_> = config.file.rules.iter().collect();
    let policy = match approval::policy(config, &rules, &registry, workspace.clone(), shell.clone())
    {
        Ok(p) => p,
        Err(e) => return fail(2, &e.0),
    };
    approval::hide_denied(&policy, &workspace);
    let registry = Arc::new(registry);
    let (code_config, servers) = language_servers::services(config, &shell);
    let mut builder = Runtime::builder(registry.clone())
        .service(Arc::new(web))
        .service(Arc::new(host::search_config(options)))
        .service(workspace)
        .service(shell)
        .service(code_config)
        .service(servers);
    builder = builder.policy(policy);
    let agent = if store_needed {
        match prompt_context(options).await {
            Ok((context, agent)) => {
                builder = builder.service(Arc::new(context));
                agent
            }
            Err(e) => return fail(2, &e),
        }
    } else {
        match tools::lookup_agent(options).await {
            Ok(agent) => agent,
            Err(e) => return fail(2, &e),
        }
    };
    // The flags' selection and the agent's enabled tools: a call of any other tool is
    // refused with the tools offered.
    let selected = match tools::offered(&registry, select, agent.as_ref()) {
        Ok(s) => s,
        Err(e) => return fail(2, &e),
    };
    builder = if options.approve {
        builder.approver(ApproveAll)
    } else if approval::TerminalApprover::available() {
        builder.approver(approval::TerminalApprover)
    } else {
        builder.approver(approval::NoOneToAsk {
            because: "there is no terminal to ask on",
        })
    };
    let runtime = builder.build();
    let mut session_config = SessionConfig::default().mode(mode).turns(false);
    if let Some(agent) = &options.agent {
        session_config = session_config.agent(agent.as_str());
    }
    if let Some(selected) = selected {
        session_config = session_config.tools(selected);
    }
    let session = runtime.session_with(session_config);
    let arguments = arguments.unwrap_or_else(|| "{}".to_owned());
    let outcome = session.call(ToolCall::new("cli", name, arguments)).await;
    // The servers the call started end with it.
    language_servers::shutdown_all().await;
    if let Err(e) = print_json(&outcome.to_json()) {
        return fail(2, &e);
    }
    if outcome.result.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

async fn migrate_tools(
    registry: &Registry,
    options: &GlobalOptions,
    rollback: bool,
    dry_run: bool,
    json: bool,
) -> ExitCode {
    use tool_std::prompt::{Direction, ToolRenames, migrate_enabled_tools, preview_enabled_tools};
    let roots = match host::roots(options) {
        Ok(r) => r,
        Err(e) => return fail(2, &e),
    };
    let renames = match ToolRenames::new(registry.renames()) {
        Ok(r) => r,
        Err(e) => return fail(1, &format!("the tools' aliases conflict: {e}")),
    };
    let store = match stores::agents(options, &roots, false).await {
        Ok(Some(s)) => s,
        Ok(None) => return fail(1, "the agent store could not be opened"),
        Err(e) => return fail(1, &e),
    };
    let direction = if rollback {
        Direction::Rollback
    } else {
        Direction::Forward
    };
    let report = if dry_run {
        preview_enabled_tools(&*store, &renames, direction).await
    } else {
        migrate_enabled_tools(&*store, &renames, direction).await
    };
    match report {
        Ok(report) if json => match serde_json::to_value(&report) {
            Ok(v) => print_json(&v).map_or_else(|e| fail(2, &e), |()| ExitCode::SUCCESS),
            Err(e) => fail(1, &e.to_string()),
        },
        Ok(report) => print_text(&report.to_string()),
        Err(e) => fail(1, &format!("the migration failed: {e}")),
    }
}
