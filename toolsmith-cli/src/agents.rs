//! `toolsmith agents`: the stored agents and the tools each may use, and edits of one agent's
//! enabled tools.
//!
//! Edits store the tools' current names (an alias given is stored as the tool it names), are
//! checked against the tools this binary has, and are written with a compare-and-set, so an
//! edit made meanwhile by another process (`prompt_manager`, `migrate-tools`) is never
//! overwritten: the change is recomputed from the agent as it is now.

use std::process::ExitCode;

use serde_json::{Value, json};
use tool_core::{Registry, ToolSelection};
use tool_std::prompt::{Agent, AgentStore, SwapOutcome};

use crate::args::GlobalOptions;
use crate::stores;
use crate::tools::{agent_tools, find_agent};
use crate::{CLI_ACCOUNT, fail, host, notice, print_json, print_text};

/// How many times an edit is recomputed when others keep changing the agent.
const MAX_ATTEMPTS: usize = 8;

/// What `toolsmith agents` was asked to change.
#[derive(Debug, Default)]
pub(crate) struct Edit {
    pub(crate) set: Vec<String>,
    pub(crate) enable: Vec<String>,
    pub(crate) disable: Vec<String>,
    pub(crate) all: bool,
}

impl Edit {
    fn is_empty(&self) -> bool {
        self.set.is_empty() && self.enable.is_empty() && self.disable.is_empty() && !self.all
    }
}

/// Runs `toolsmith agents`.
pub(crate) async fn agents(
    registry: &Registry,
    options: &GlobalOptions,
    edit: Edit,
    as_json: bool,
) -> ExitCode {
    match run(registry, options, edit).await {
        Ok(agents) if as_json => {
            let list: Vec<Value> = agents.iter().map(|a| describe_json(a, registry)).collect();
            print_json(&Value::Array(list)).map_or_else(|e| fail(2, &e), |()| ExitCode::SUCCESS)
        }
        Ok(agents) if agents.is_empty() => print_text("no agents are stored yet"),
        Ok(agents) => {
            let lines: Vec<String> = agents.iter().map(|a| describe(a, registry)).collect();
            print_text(&lines.join("\n"))
        }
        Err((code, message)) => fail(code, &message),
    }
}

async fn run(
    registry: &Registry,
    options: &GlobalOptions,
    edit: Edit,
) -> Result<Vec<Agent>, (u8, String)> {
    let usage = |m: String| (2, m);
    let roots = host::roots(options).map_err(usage)?;
    let existing = || async {
        stores::agents(options, &roots, true)
            .await
            .map_err(|e| (1, e))
    };
    let Some(name) = &options.agent else {
        if !edit.is_empty() {
            return Err(usage(
                "name the agent to edit with --agent NAME (`toolsmith agents` alone lists them)"
                    .to_owned(),
            ));
        }
        let Some(store) = existing().await? else {
            return Ok(Vec::new());
        };
        return store.list().await.map_err(|e| (1, e.to_string()));
    };
    if edit.is_empty() {
        let Some(store) = existing().await? else {
            return Err((
                1,
                format!("no agent is called `{name}` (no agent store yet)"),
            ));
        };
        return match find_agent(&*store, name).await.map_err(|e| (1, e))? {
            Some(agent) => Ok(vec![agent]),
            None => Err((1, no_such_agent(&*store, name).await)),
        };
    }
    let store = stores::agents(options, &roots, false)
        .await
        .map_err(|e| (1, e))?
        .ok_or((1, "the agent store could not be opened".to_owned()))?;
    let agent = store
        .get_or_create(CLI_ACCOUNT, name)
        .await
        .map_err(|e| (1, format!("cannot use agent `{name}`: {e}")))?;
    apply(&*store, agent, &edit, registry)
        .await
        .map(|a| vec![a])
}

async fn no_such_agent(store: &dyn AgentStore, name: &str) -> String {
    let names: Vec<String> = store
        .list_account(CLI_ACCOUNT)
        .await
        .map(|l| l.into_iter().map(|a| a.name).collect())
        .unwrap_or_default();
    if names.is_empty() {
        format!("no agent is called `{name}`; no agent is stored yet")
    } else {
        format!(
            "no agent is called `{name}`; the agents: {}",
            names.join(", ")
        )
    }
}

/// Applies `edit` with a compare-and-set, recomputing it when the agent changed meanwhile.
async fn apply(
    store: &dyn AgentStore,
    mut agent: Agent,
    edit: &Edit,
    registry: &Registry,
) -> Result<Agent, (u8, String)> {
    for _ in 0..MAX_ATTEMPTS {
        let after = edited(&agent, edit, registry).map_err(|e| (2, e))?;
        if after == agent.enabled_tools {
            return Ok(agent);
        }
        match store
            .compare_and_set_enabled_tools(agent.id, &agent.enabled_tools, &after)
            .await
            .map_err(|e| (1, format!("cannot update agent `{}`: {e}", agent.name)))?
        {
            SwapOutcome::Swapped(updated) => return Ok(updated),
            SwapOutcome::Stale(now) => agent = now,
        }
    }
    Err((
        1,
        format!(
            "agent `{}` kept changing while it was edited; try again",
            agent.name
        ),
    ))
}

/// The tools' current names for `names` (names or aliases), in order, once each; or the
/// selection error naming every unknown one.
fn canonical(names: &[String], registry: &Registry) -> Result<Vec<String>, String> {
    ToolSelection::all()
        .tools(names.iter().cloned())
        .resolve(registry)
        .map_err(|e| e.to_string())?;
    let mut out: Vec<String> = Vec::new();
    for n in names {
        if let Some(e) = registry.get(n)
            && !out.iter().any(|o| o == e.name())
        {
            out.push(e.name().to_owned());
        }
    }
    Ok(out)
}

/// The enabled tools `edit` makes of `agent`'s.
fn edited(agent: &Agent, edit: &Edit, registry: &Registry) -> Result<Vec<String>, String> {
    if edit.all {
        return Ok(Vec::new());
    }
    if !edit.set.is_empty() {
        return canonical(&edit.set, registry);
    }
    let enable = canonical(&edit.enable, registry)?;
    let current = &agent.enabled_tools;
    // The tool a stored entry names, when it still names one.
    let tool_of = |entry: &str| registry.get(entry).map(|e| e.name().to_owned());
    let mut list: Vec<String> = if current.is_empty() {
        if edit.disable.is_empty() {
            notice(&format!(
                "agent `{}` already has every tool (its list is empty); limit it with \
                 --set-tools",
                agent.name
            ));
            return Ok(Vec::new());
        }
        registry.iter().map(|e| e.name().to_owned()).collect()
    } else {
        current.clone()
    };
    for tool in enable {
        if !list
            .iter()
            .any(|e| tool_of(e).as_deref() == Some(tool.as_str()))
        {
            list.push(tool);
        }
    }
    let mut unknown = Vec::new();
    for name in &edit.disable {
        let before = list.len();
        match tool_of(name) {
            // Every stored spelling of the tool goes: its name and its aliases.
            Some(tool) => list.retain(|e| tool_of(e).as_deref() != Some(tool.as_str())),
            // A stored name no tool answers to any more can still be removed.
            None => list.retain(|e| e != name),
        }
        if list.len() == before && tool_of(name).is_none() {
            unknown.push(name.clone());
        }
    }
    if !unknown.is_empty() {
        let err = ToolSelection::all()
            .tools(unknown)
            .resolve(registry)
            .err()
            .map_or_else(String::new, |e| e.to_string());
        return Err(format!(
            "--disable-tools: {err}; agent `{}`'s enabled tools: {}",
            agent.name,
            shown(&agent.enabled_tools)
        ));
    }
    if list.is_empty() {
        return Err(format!(
            "that would leave agent `{}` no tool, and an empty list means every tool; keep at \
             least one, or give --all-tools",
            agent.name
        ));
    }
    Ok(list)
}

fn shown(list: &[String]) -> String {
    if list.is_empty() {
        "every tool".to_owned()
    } else {
        list.join(", ")
    }
}

/// One line: the agent and its tools.
fn describe(agent: &Agent, registry: &Registry) -> String {
    let head = format!(
        "{} (account {}, id {})",
        agent.name, agent.account, agent.id
    );
    if agent.enabled_tools.is_empty() {
        return format!("{head}: every tool");
    }
    let unknown: Vec<&str> = agent
        .enabled_tools
        .iter()
        .filter(|t| registry.get(t).is_none())
        .map(String::as_str)
        .collect();
    let tools = agent.enabled_tools.join(", ");
    if unknown.is_empty() {
        format!("{head}: {tools}")
    } else {
        format!(
            "{head}: {tools} (no tool here is called {})",
            unknown.join(", ")
        )
    }
}

/// The agent as JSON: its stored list, the tools it is offered, and stored names no tool
/// answers to.
fn describe_json(agent: &Agent, registry: &Registry) -> Value {
    let unknown: Vec<&str> = agent
        .enabled_tools
        .iter()
        .filter(|t| registry.get(t).is_none())
        .map(String::as_str)
        .collect();
    let tools: Vec<String> = match agent_tools(agent, registry) {
        Ok(Some(s)) => s.names().map(str::to_owned).collect(),
        Ok(None) => registry.iter().map(|e| e.name().to_owned()).collect(),
        Err(_) => Vec::new(),
    };
    json!({
        "id": agent.id,
        "account": agent.account,
        "name": agent.name,
        "enabled_tools": agent.enabled_tools,
        "all_tools": agent.enabled_tools.is_empty(),
        "tools": tools,
        "unknown_tools": unknown,
    })
}
