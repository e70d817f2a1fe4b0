//! The `toolsmith` command: list tool definitions, print one tool's schema, run a call.
//!
//! Exit codes: 0 success, 1 the tool answered with an error (its JSON is still printed on
//! stdout), 2 a usage error.

mod args;
mod demo;
mod host;

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use serde_json::{Value, json};
use tool_core::{
    ApproveAll, Mode, Registry, Runtime, SessionConfig, ToolCall, ToolFilter, ToolSpec,
};

use args::{Cli, Command, GlobalOptions};

fn main() -> ExitCode {
    let cli = Cli::parse();
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
    eprintln!("toolsmith: {message}");
    ExitCode::from(code)
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

fn build_registry() -> Result<Registry, String> {
    Registry::builder()
        .register(demo::Echo)
        .with_inventory()
        .build()
        .map_err(|e| e.to_string())
}

async fn run(cli: Cli) -> ExitCode {
    let mode = match parse_mode(&cli.options) {
        Ok(m) => m,
        Err(e) => return fail(2, &e),
    };
    let registry = match build_registry() {
        Ok(r) => r,
        Err(e) => return fail(2, &e),
    };
    match cli.command {
        Command::List { format, toolset } => {
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
        Command::Call { name, arguments } => {
            call(
                registry,
                &cli.options,
                mode.unwrap_or(Mode::Cli),
                name,
                arguments,
            )
            .await
        }
        Command::MigrateTools {
            rollback,
            dry_run,
            json,
        } => migrate_tools(&registry, &cli.options, rollback, dry_run, json).await,
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
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(1, &format!("the migration failed: {e}")),
    }
}

fn export(specs: &[&ToolSpec], format: &str) -> ExitCode {
    let value = match format {
        "json" => Value::Array(specs.iter().map(|s| spec_json(s)).collect()),
        other => {
            return fail(
                2,
                &format!(
                    "unknown format `{other}`; expected one of: json, openai, openai-strict, \
                     openai-responses, anthropic, gemini, mcp, xml"
                ),
            );
        }
    };
    match print_json(&value) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(2, &e),
    }
}

/// The canonical definition of a tool, as `list --format json` prints it.
fn spec_json(spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name,
        "title": spec.title,
        "description": spec.description,
        "input_schema": *spec.input_schema,
        "output_schema": spec.output_schema.as_deref(),
        "modes": spec.modes,
        "permissions": spec.permissions,
        "requires_approval": spec.requires_approval,
        "category": spec.category,
        "toolsets": spec.toolsets,
        "aliases": spec.aliases,
        "user_facing": spec.user_facing,
        "annotations": spec.annotations,
        "timeout_secs": spec.timeout.map(|d| d.as_secs_f64()),
        "actions": spec.actions,
    })
}

async fn call(
    registry: Registry,
    options: &GlobalOptions,
    mode: Mode,
    name: String,
    arguments: Option<String>,
) -> ExitCode {
    let mut builder = Runtime::builder(Arc::new(registry));
    if options.approve {
        builder = builder.approver(ApproveAll);
    }
    let runtime = builder.build();
    let session = runtime.session_with(SessionConfig::default().mode(mode));
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
