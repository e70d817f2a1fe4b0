//! The `toolsmith` command: list tool definitions, print one tool's schema, run a call, serve
//! the tools over MCP (stdio or streamable HTTP, with the live activity page) and migrate
//! stored agents' tool names.
//!
//! Exit codes: 0 success, 1 the tool answered with an error (its JSON is still printed on
//! stdout), 2 a usage error.
//!
//! The binary is also the `bash` sandbox's helper: started with that `argv[0]`, `main` hands
//! over to `tool_std::shell::sandbox::dispatch` before anything else.

mod activity;
mod args;
mod host;
mod logs;
mod serve;

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use serde_json::Value;
use tool_core::provider::{Format, export_all};
use tool_core::{
    ApproveAll, Mode, Permission, Registry, Runtime, SessionConfig, ToolCall, ToolFilter, ToolSpec,
};
use tool_std::prompt::{AgentStore, PromptContext, SqliteAgentStore};

use args::{Cli, Command, GlobalOptions};

/// The account agents named with `--agent` belong to.
const CLI_ACCOUNT: &str = "default";

fn main() -> ExitCode {
    // Started as the bash sandbox's helper, this process restricts itself and becomes the
    // command's shell here; it must happen before the async runtime starts any thread.
    tool_std::shell::sandbox::dispatch();
    let cli = Cli::parse();
    // Kept to the end: dropped, it sends the spans still batched.
    let logs = logs::init(cli.options.log_format);
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
    rt.block_on(run(cli))
}

fn fail(code: u8, message: &str) -> ExitCode {
    notice(message);
    ExitCode::from(code)
}

pub(crate) use logs::notice;

fn print_text(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}") {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(2, &format!("cannot write to stdout: {e}")),
    }
}

fn print_json(value: &Value) -> Result<(), String> {
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

async fn run(cli: Cli) -> ExitCode {
    let mode = match parse_mode(&cli.options) {
        Ok(m) => m,
        Err(e) => return fail(2, &e),
    };
    // Every tool linked into the binary: the standard tools submit themselves.
    let registry = match Registry::from_inventory() {
        Ok(r) => r,
        Err(e) => return fail(2, &e.to_string()),
    };
    match cli.command {
        Command::List { format, toolset } => {
            if let Ok(shell) = host::shell_config(&cli.options) {
                notice(&host::sandbox_notice(&shell));
            }
            let mut filter = ToolFilter::all();
            filter.mode = mode;
            filter.toolset = toolset;
            let specs: Vec<&ToolSpec> = registry.filter(&filter).map(|e| &**e.spec()).collect();
            export(&specs, &format)
        }
        Command::Schema { name, format } => match registry.get(&name) {
            Some(entry) => export(&[&**entry.spec()], &format),
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
        } => {
            let arguments = match serve::read_arguments(arguments, args_file.as_deref()) {
                Ok(a) => a,
                Err(e) => return fail(2, &e),
            };
            call(
                registry,
                &cli.options,
                mode.unwrap_or(Mode::Cli),
                name,
                arguments,
            )
            .await
        }
        Command::Serve {
            http,
            token,
            no_activity,
            activity_addr,
        } => {
            let args = serve::ServeArgs {
                http,
                token,
                activity_page: !no_activity,
                activity_addr,
            };
            serve::serve(registry, &cli.options, args).await
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

fn export(specs: &[&ToolSpec], format: &str) -> ExitCode {
    let format: Format = match format.parse() {
        Ok(f) => f,
        Err(e) => return fail(2, &e.to_string()),
    };
    match export_all(specs.iter().copied(), format) {
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

async fn prompt_context(options: &GlobalOptions) -> Result<PromptContext, String> {
    let roots = host::roots(options)?;
    let path = host::store_path(options, &roots);
    let store = SqliteAgentStore::open(&path)
        .await
        .map_err(|e| format!("cannot open the agent store at {}: {e}", path.display()))?;
    let store: Arc<dyn AgentStore> = Arc::new(store);
    let mut context = PromptContext::new(store.clone());
    if let Some(name) = &options.agent {
        let agent = store
            .get_or_create(CLI_ACCOUNT, name)
            .await
            .map_err(|e| format!("cannot use agent `{name}`: {e}"))?;
        if agent.name != *name {
            notice(&format!(
                "agent `{name}` was renamed to `{}`; using it (`--agent {}` names it directly)",
                agent.name, agent.name
            ));
        }
        context = context.with_agent(&agent);
    }
    Ok(context)
}

async fn call(
    registry: Registry,
    options: &GlobalOptions,
    mode: Mode,
    name: String,
    arguments: Option<String>,
) -> ExitCode {
    let web = match host::web_config(options) {
        Ok(w) => w,
        Err(e) => return fail(2, &e),
    };
    let store_needed = registry
        .get(&name)
        .is_some_and(|e| needs_agent_store(e.spec()));
    let workspace = match host::workspace(options) {
        Ok(w) => w,
        Err(e) => return fail(2, &e),
    };
    let shell = match host::shell_config(options) {
        Ok(s) => s,
        Err(e) => return fail(2, &e),
    };
    let mut builder = Runtime::builder(Arc::new(registry))
        .service(Arc::new(web))
        .service(Arc::new(workspace))
        .service(Arc::new(shell));
    if store_needed {
        match prompt_context(options).await {
            Ok(context) => builder = builder.service(Arc::new(context)),
            Err(e) => return fail(2, &e),
        }
    }
    if options.approve {
        builder = builder.approver(ApproveAll);
    }
    let runtime = builder.build();
    let mut config = SessionConfig::default().mode(mode).turns(false);
    if let Some(agent) = &options.agent {
        config = config.agent(agent.as_str());
    }
    let session = runtime.session_with(config);
    let arguments = arguments.unwrap_or_else(|| "{}".to_owned());
    let outcome = session.call(ToolCall::new("cli", name, arguments)).await;
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
    use tool_std::prompt::{
        Direction, SqliteAgentStore, ToolRenames, migrate_enabled_tools, preview_enabled_tools,
    };
    let roots = match host::roots(options) {
        Ok(r) => r,
        Err(e) => return fail(2, &e),
    };
    let path = host::store_path(options, &roots);
    let renames = match ToolRenames::new(registry.renames()) {
        Ok(r) => r,
        Err(e) => return fail(1, &format!("the tools' aliases conflict: {e}")),
    };
    let store = match SqliteAgentStore::open(&path).await {
        Ok(s) => s,
        Err(e) => return fail(1, &format!("cannot open the agent store: {e}")),
    };
    let direction = if rollback {
        Direction::Rollback
    } else {
        Direction::Forward
    };
    let report = if dry_run {
        preview_enabled_tools(&store, &renames, direction).await
    } else {
        migrate_enabled_tools(&store, &renames, direction).await
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
