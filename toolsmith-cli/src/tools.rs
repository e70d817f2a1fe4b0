//! Which tools a command offers: the selection flags (`--toolset`, `--tools`,
//! `--exclude-tools`), narrowed by the enabled tools of the agent `--agent` names.
//!
//! An agent's `enabled_tools` (seed 000's list, which `migrate-tools` migrates) is read this
//! way: an empty list means every tool, so an agent never configured keeps working as before;
//! otherwise only the listed tools (names or aliases) are offered and may be called. A name
//! in the list that no tool answers to is an error rather than ignored, so a typo or a tool
//! that went away never silently changes what an agent may do.

use tool_core::provider::{ExportOptions, ToolSearch};
use tool_core::{Registry, SelectedTools, ToolSelection};
use tool_std::prompt::{Agent, AgentStore};

use crate::args::{DeferArgs, GlobalOptions, SelectionArgs};
use crate::{CLI_ACCOUNT, host};

/// The selection the flags make (every tool when none is given). Blank items (`file,`) are
/// skipped.
pub(crate) fn flag_selection(args: &SelectionArgs) -> ToolSelection {
    ToolSelection::all()
        .toolsets(items(&args.toolsets))
        .tools(items(&args.tools))
        .excludes(items(&args.exclude_tools))
}

/// The non-blank items of a comma-separated or repeated flag, trimmed.
fn items(values: &[String]) -> impl Iterator<Item = &str> {
    values.iter().map(|s| s.trim()).filter(|s| !s.is_empty())
}

/// The tools an agent may use: `None` (every tool) when its list is empty.
pub(crate) fn agent_tools(
    agent: &Agent,
    registry: &Registry,
) -> Result<Option<SelectedTools>, String> {
    if agent.enabled_tools.is_empty() {
        return Ok(None);
    }
    let selection = ToolSelection::all().tools(agent.enabled_tools.iter().cloned());
    selection.resolve(registry).map(Some).map_err(|e| {
        let unknown = e.unknown_tools().join(",");
        format!(
            "agent `{name}`'s enabled tools name tools this server does not have: {e}. Remove \
             them with `toolsmith agents --agent {name} --disable-tools {unknown}`, or run \
             `toolsmith migrate-tools` if they are old tool names",
            name = agent.name
        )
    })
}

/// What a command offers: the flags' selection narrowed by the agent's enabled tools; `None`
/// when neither restricts anything (every tool).
pub(crate) fn offered(
    registry: &Registry,
    args: &SelectionArgs,
    agent: Option<&Agent>,
) -> Result<Option<SelectedTools>, String> {
    let flags = flag_selection(args);
    let from_flags = if flags.is_all() {
        None
    } else {
        Some(flags.resolve(registry).map_err(|e| e.to_string())?)
    };
    let from_agent = match agent {
        Some(a) => agent_tools(a, registry)?,
        None => None,
    };
    Ok(match (from_flags, from_agent) {
        (Some(f), Some(a)) => Some(f.intersection(&a)),
        (f, a) => f.or(a),
    })
}

/// The export options `list`'s deferral flags ask for; names and toolsets are checked (an
/// alias is deferred as the tool it names).
pub(crate) fn export_options(
    registry: &Registry,
    args: &DeferArgs,
) -> Result<ExportOptions, String> {
    let mut options = ExportOptions::new();
    let named = ToolSelection::all()
        .tools(args.defer_tools.iter().map(|s| s.trim()))
        .toolsets(args.defer_toolsets.iter().map(|s| s.trim()));
    if !named.is_all() {
        named
            .resolve(registry)
            .map_err(|e| format!("--defer-tools/--defer-toolsets: {e}"))?;
    }
    for name in &args.defer_tools {
        if let Some(e) = registry.get(name.trim()) {
            options = options.defer_tool(e.name());
        }
    }
    for t in &args.defer_toolsets {
        options = options.defer_toolset(t.trim());
    }
    if args.defer_all {
        options = options.defer_all();
    }
    if args.namespace_by_toolset {
        options = options.namespace_by_toolset();
    }
    options = options.tool_search(match args.tool_search.as_str() {
        "bm25" => ToolSearch::Bm25,
        "none" => ToolSearch::None,
        _ => ToolSearch::Regex,
    });
    let callers: Vec<&str> = args.allowed_callers.iter().map(|c| c.trim()).collect();
    if let Some(bad) = callers
        .iter()
        .find(|c| c.is_empty() || c.contains(char::is_whitespace))
    {
        return Err(format!(
            "--allowed-callers: {bad:?} is no caller; give `direct` or a code execution tool \
             type such as `code_execution_20260120`"
        ));
    }
    if !callers.is_empty() {
        options = options.allowed_callers(callers);
    }
    Ok(options)
}

/// Refuses to serve nothing: a selection that leaves no tool is a mistake worth saying.
pub(crate) fn require_some(
    selected: &Option<SelectedTools>,
    agent: Option<&Agent>,
) -> Result<(), String> {
    match selected {
        Some(s) if s.is_empty() => Err(match agent.filter(|a| !a.enabled_tools.is_empty()) {
            Some(a) => format!(
                "no tool is left to offer: the selection (--toolset, --tools, --exclude-tools) \
                 and agent `{}`'s enabled tools ({}) have no tool in common",
                a.name,
                a.enabled_tools.join(", ")
            ),
            None => "no tool is left to offer: --exclude-tools removes every tool the selection \
                     names"
                .to_owned(),
        }),
        _ => Ok(()),
    }
}

/// The agent `--agent` names, if the store has it, without creating it (`list` and the calls
/// of tools that do not need the store must not create agents).
pub(crate) async fn lookup_agent(options: &GlobalOptions) -> Result<Option<Agent>, String> {
    let Some(name) = &options.agent else {
        return Ok(None);
    };
    let roots = host::roots(options)?;
    let Some(store) = crate::stores::agents(options, &roots, true).await? else {
        return Ok(None);
    };
    find_agent(&*store, name).await
}

/// The agent called `name` in the command line's account, or the one renamed away from it.
pub(crate) async fn find_agent(
    store: &dyn AgentStore,
    name: &str,
) -> Result<Option<Agent>, String> {
    let read = |e: tool_std::prompt::StoreError| format!("cannot read agent `{name}`: {e}");
    if let Some(a) = store.get_by_name(CLI_ACCOUNT, name).await.map_err(read)? {
        return Ok(Some(a));
    }
    store
        .get_by_former_name(CLI_ACCOUNT, name)
        .await
        .map_err(read)
}
