//! Permission rules for the standard tools: what runs without asking, what asks the user
//! first, what never runs ([`tool_core::Rule`] has the grammar and the order: deny beats
//! ask beats allow; without a matching rule a tool's declaration decides).
//!
//! What a rule's argument specifier means, by tool:
//!
//! | tool | specifier | examples |
//! |---|---|---|
//! | `bash` | a command pattern, `*` any text | `bash(cargo test*)`, `bash(git status)`, `bash(rm *)` |
//! | file and search tools | a glob over the path relative to its root, or `root:glob` | `create_file(src/**)`, `delete_file(**)`, `read_file(docs:*.md)` |
//! | `web` | an action, and for `fetch` a host pattern as [`HostPattern`](crate::trust::net::HostPattern) reads it (a name, `*.` and a domain for any name beneath it, an address; optionally `:port`) | `web(search)`, `web(fetch:docs.rs)`, `web(fetch:*.rust-lang.org)`, `web(fetch:localhost:8080)` |
//! | other tools with actions | the action | `prompt_manager(update)` |
//!
//! Rules may name a tool by an alias (`write(src/**)` is `create_file(src/**)`), and a call
//! made through an alias meets its tool's rules.
//!
//! **Families.** A rule with a path specifier on a tool that reads ([`READING_TOOLS`]:
//! `read_file`, `list_directory`, `glob`, `grep`, `search`) is a rule of every one of them, and
//! one on a tool that writes ([`WRITING_TOOLS`]: the edit tools, `delete_file`, `apply_patch`)
//! of every one of those: `deny: read_file(secrets/**)` refuses `grep` with `path: secrets`,
//! `ask: create_file(src/**)` asks before `apply_patch` changes `src/lib.rs`. A rule without a
//! specifier (`deny: delete_file`) stays its own tool's. The `deny` rules of reading tools also
//! hide their paths ([`StandardPolicy::hidden_paths`], applied by the host with
//! [`Workspace::hide`](crate::workspace::Workspace::hide)): a search of the whole root skips
//! them, the file tools refuse them, and `bash`'s sandbox denies them to commands.
//!
//! **Commands.** A command line is split into its simple commands (the parts of lists and
//! pipelines, command substitutions, `bash -c` strings) by the lexer of the refused-command
//! check. An `allow` rule matches only when *every* part matches it, word for word from the
//! first word (so `bash(cargo test*)` does not allow `cargo test; rm -rf x`, `cargo test
//! $(curl x)` or `FOO=1 cargo test`), and no part redirects output into a file (`>
//! /dev/null` and `2>&1` are fine); a line of several commands that no one rule allows whole
//! is allowed when each of its commands is allowed by a rule of its own (`bash(git status *)`
//! and `bash(ls *)` allow `git status && ls`), and no rule denies or asks about any. `ask` and `deny` rules match when *any* part matches,
//! from its first word or from its program (`deny: bash(rm *)` refuses `nohup rm -f x`).
//! The refused commands and the host's `--bash-allow` list are checked first, before anyone
//! is asked.
//!
//! **Paths.** Each path a call names (`paths` of `read_file` and `delete_file`, `path` of the
//! others, every file an `apply_patch` patch adds, updates, deletes or moves to) is read as
//! the tool reads it (`name:path`, relative, or absolute inside a root; `..` resolved) and,
//! where it exists, also with its links followed inside the root: an `allow` rule must match
//! every one of them both ways, an `ask` or `deny` rule any one either way. A search without
//! a `path` names its whole root, which `src/**` does not match. A path the workspace refuses
//! matches no rule; the tool refuses it when it runs.
//!
//! **Previews.** A `replace_in_file` call with `preview_only: true` writes nothing: it runs
//! without asking (the approval form of the real edit shows the same diff), unless a `deny`
//! rule matches it.
//!
//! **Scopes.** The narrowest rules that allow a call ([`CallPolicy::scope`]), what "allow for
//! this session" grants and what a refusal suggests: for `bash` a rule per simple command, its
//! program with any arguments when every form of it only reads (`bash(ls *)`,
//! `bash(git status *)`), else the command word for word (`bash(rm -rf src)`, wildcards
//! escaped: `bash(rm \*.o)`); for the file and search tools a rule per path named; for `web`
//! its action and host; for other tools their action. A pattern ending in ` *` also matches
//! the bare command (`bash(ls *)` matches `ls`).
//!
//! **Sandboxed commands.** With [`PolicyBuilder::allow_sandboxed_bash`], a `bash` call that no
//! rule matches runs without asking when the operating-system sandbox will run it
//! ([`ShellConfig::runs_sandboxed`]); `ask` and `deny` rules still apply.

mod pattern;
mod preview;
mod scope;
mod subjects;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use tool_core::{CallPolicy, Effect, Match, PolicyCall, PolicyDecision, Rule, decide};
use tool_core::{Registry, ToolSpec};

use crate::shell::ShellConfig;
use crate::trust::command::{CommandLine, CommandPattern, wildcard};
use crate::workspace::Workspace;
use pattern::{PathPattern, WebPattern};
pub use preview::{MAX_PREVIEW_LINE_CHARS, MAX_PREVIEW_LINES};
use subjects::Subjects;

/// The most rules one policy holds.
pub const MAX_RULES: usize = 1000;

/// The tools that read paths: a path rule of one is a rule of each (`deny:
/// read_file(secrets/**)` keeps `grep` and `search` out too), and its `deny` rules hide their
/// paths from every tool and from `bash` ([`StandardPolicy::hidden_paths`]).
pub const READING_TOOLS: &[&str] = &["read_file", "list_directory", "glob", "grep", "search"];

/// The tools that write paths: a path rule of one is a rule of each (`ask: edit(src/**)`
/// asks before `create_file`, `delete_file` or `apply_patch` touch `src` too).
pub const WRITING_TOOLS: &[&str] = &[
    "create_file",
    "update_file",
    "append_file",
    "edit_lines",
    "replace_in_file",
    "delete_file",
    "apply_patch",
];

/// Whether a path rule of `rule_tool` applies to a call of `call_tool`: the same tool, or
/// two tools of one family ([`READING_TOOLS`], [`WRITING_TOOLS`]).
fn same_family(rule_tool: &str, call_tool: &str) -> bool {
    rule_tool == call_tool
        || [READING_TOOLS, WRITING_TOOLS]
            .iter()
            .any(|family| family.contains(&rule_tool) && family.contains(&call_tool))
}

/// Whether `tool`'s specifier is a path glob: a reading or a writing tool.
fn is_path_tool(tool: &str) -> bool {
    READING_TOOLS.contains(&tool) || WRITING_TOOLS.contains(&tool)
}

/// A rule that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RuleError {
    /// The list the rule is in.
    pub effect: Effect,
    /// Its position in that list (0-based), as given to the builder.
    pub index: usize,
    /// The rule as written.
    pub rule: String,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} rule `{}`: {}", self.effect, self.rule, self.message)
    }
}

impl std::error::Error for RuleError {}

/// What a tool's specifiers mean.
#[derive(Debug, Clone)]
enum Kind {
    Command,
    Paths,
    Web(Vec<String>),
    Action(Vec<String>),
    None,
}

impl Kind {
    fn of(spec: &ToolSpec) -> Kind {
        let actions = || -> Vec<String> {
            spec.actions
                .as_ref()
                .map(|a| a.actions.iter().map(|x| x.name.to_string()).collect())
                .unwrap_or_default()
        };
        match spec.name.as_ref() {
            "bash" => Kind::Command,
            "web" => Kind::Web(actions()),
            name if is_path_tool(name) => Kind::Paths,
            _ if spec.actions.is_some() => Kind::Action(actions()),
            _ => Kind::None,
        }
    }
}

/// A specifier, compiled for its tool's kind.
#[derive(Debug, Clone)]
enum Pattern {
    Command(CommandPattern),
    Path(PathPattern),
    Web(WebPattern),
    Action(String),
}

/// Builds a [`StandardPolicy`].
#[derive(Debug)]
pub struct PolicyBuilder<'r> {
    registry: &'r Registry,
    workspace: Arc<Workspace>,
    shell: Option<Arc<ShellConfig>>,
    rules: Vec<(Effect, String)>,
    allow_sandboxed_bash: bool,
}

impl PolicyBuilder<'_> {
    /// Adds rules, each `tool` or `tool(specifier)`.
    pub fn rules<I, S>(mut self, effect: Effect, rules: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.rules
            .extend(rules.into_iter().map(|r| (effect, r.into())));
        self
    }

    /// The bash tool's configuration: its refused commands and allow-list are checked before
    /// anyone is asked, and it says whether commands run sandboxed.
    pub fn shell(mut self, config: Arc<ShellConfig>) -> Self {
        self.shell = Some(config);
        self
    }

    /// Lets `bash` calls that no rule matches run without asking when the sandbox runs them
    /// (default off: `bash` asks, as it declares).
    pub fn allow_sandboxed_bash(mut self, yes: bool) -> Self {
        self.allow_sandboxed_bash = yes;
        self
    }

    /// Checks every rule against the registry and the workspace.
    ///
    /// # Errors
    ///
    /// The first rule that names no tool (listing the tools), has a specifier its tool cannot
    /// take, or a specifier that does not compile; or more than [`MAX_RULES`] rules.
    pub fn build(self) -> Result<StandardPolicy, RuleError> {
        let roots: Vec<&str> = self.workspace.roots().iter().map(|r| r.name()).collect();
        let mut kinds = HashMap::new();
        let mut rules = Vec::with_capacity(self.rules.len());
        let mut counts: HashMap<Effect, usize> = HashMap::new();
        for (effect, text) in &self.rules {
            let index = counts.entry(*effect).or_default();
            let error = |message: String| RuleError {
                effect: *effect,
                index: *index,
                rule: text.clone(),
                message,
            };
            if rules.len() == MAX_RULES {
                return Err(error(format!("at most {MAX_RULES} rules are allowed")));
            }
            let mut rule = Rule::parse(*effect, text).map_err(&error)?;
            let Some(entry) = self.registry.get(&rule.tool) else {
                let names: Vec<&str> = self.registry.iter().map(|e| e.name()).collect();
                return Err(error(format!(
                    "there is no tool `{}`; tools: {}",
                    rule.tool,
                    names.join(", ")
                )));
            };
            rule.tool = entry.name().to_owned();
            let kind = kinds
                .entry(rule.tool.clone())
                .or_insert_with(|| Kind::of(entry.spec()))
                .clone();
            let pattern = match &rule.specifier {
                None => None,
                Some(s) => Some(compile(&rule.tool, &kind, s, &roots).map_err(&error)?),
            };
            *index += 1;
            rules.push(Compiled { rule, pattern });
        }
        Ok(StandardPolicy {
            rules,
            workspace: self.workspace,
            shell: self.shell,
            allow_sandboxed_bash: self.allow_sandboxed_bash,
        })
    }
}

fn compile(tool: &str, kind: &Kind, specifier: &str, roots: &[&str]) -> Result<Pattern, String> {
    Ok(match kind {
        Kind::Command => Pattern::Command(CommandPattern::new(specifier)),
        Kind::Paths => Pattern::Path(PathPattern::new(specifier, roots)?),
        Kind::Web(actions) => {
            let actions: Vec<&str> = actions.iter().map(String::as_str).collect();
            Pattern::Web(WebPattern::new(specifier, &actions)?)
        }
        Kind::Action(actions) => {
            if !actions.iter().any(|a| wildcard(specifier, a)) {
                return Err(format!(
                    "`{specifier}` is no action of `{tool}` (actions: {})",
                    actions.join(", ")
                ));
            }
            Pattern::Action(specifier.to_owned())
        }
        Kind::None => {
            return Err(format!(
                "`{tool}` takes no argument specifier; write `{tool}` alone to match every call"
            ));
        }
    })
}

/// The standard tools' [`CallPolicy`]: rules with the specifiers of the [module
/// documentation](self).
#[derive(Debug)]
pub struct StandardPolicy {
    rules: Vec<Compiled>,
    workspace: Arc<Workspace>,
    shell: Option<Arc<ShellConfig>>,
    allow_sandboxed_bash: bool,
}

impl StandardPolicy {
    /// A builder over the registry (to resolve tool names and aliases) and the workspace (to
    /// read paths as the tools do).
    pub fn builder(registry: &Registry, workspace: Arc<Workspace>) -> PolicyBuilder<'_> {
        PolicyBuilder {
            registry,
            workspace,
            shell: None,
            rules: Vec::new(),
            allow_sandboxed_bash: false,
        }
    }

    /// The rules, tool names resolved.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter().map(|c| &c.rule)
    }

    /// The paths the `deny` rules of reading tools name (`deny: read_file(secrets/**)` gives
    /// `secrets/**`): what a host hides from every tool and command with
    /// [`Workspace::hide`](crate::workspace::Workspace::hide), so that a search of the whole
    /// root or a command's `cat` does not return what a rule denies reading.
    pub fn hidden_paths(&self) -> Vec<String> {
        self.rules
            .iter()
            .filter(|c| {
                c.rule.effect == Effect::Deny
                    && READING_TOOLS.contains(&c.rule.tool.as_str())
                    && matches!(c.pattern, Some(Pattern::Path(_)))
            })
            .filter_map(|c| c.rule.specifier.clone())
            .collect()
    }
}

/// A rule and its specifier, compiled for its tool.
#[derive(Debug)]
struct Compiled {
    rule: Rule,
    pattern: Option<Pattern>,
}

impl AsRef<Rule> for Compiled {
    fn as_ref(&self) -> &Rule {
        &self.rule
    }
}

impl CallPolicy for StandardPolicy {
    fn decide(&self, call: &PolicyCall<'_>) -> PolicyDecision {
        // A command line is parsed once, here, and left for the tool in the call's notes.
        let line = (call.tool == "bash")
            .then(|| call.arguments.get("command").and_then(Value::as_str))
            .flatten()
            .map(|command| {
                let line = Arc::new(CommandLine::parse(command));
                if let Some(notes) = call.notes {
                    notes.insert(line.clone());
                }
                line
            });
        if let (Some(line), Some(shell)) = (&line, &self.shell)
            && let Err(e) = line.screen(&shell.allowed_prefixes)
        {
            return PolicyDecision::Refuse(e);
        }
        // What the call does is worked out (paths resolved, links followed) only when a rule
        // with a specifier asks, and once.
        let mut subjects = line.map(Subjects::Commands);
        // A rule is its tool's; a path rule is its family's too.
        let candidates: Vec<&Compiled> = self
            .rules
            .iter()
            .filter(|c| {
                c.rule.tool == call.tool
                    || matches!(c.pattern, Some(Pattern::Path(_)))
                        && same_family(&c.rule.tool, call.tool)
            })
            .collect();
        let chosen = decide(
            &candidates,
            |_| true,
            |c| match &c.pattern {
                Some(p) => subjects
                    .get_or_insert_with(|| Subjects::new(call, &self.workspace))
                    .matches(p, c.rule.effect),
                None => Match::All,
            },
        )
        .map(|c| &c.rule);
        // A preview writes nothing: it is a read, and needs no approval (a deny rule still
        // refuses it, since it shows the file).
        if is_preview(call) && chosen.is_none_or(|r| r.effect != Effect::Deny) {
            return PolicyDecision::Allow {
                rule: Some(format!(
                    "allow: {} (preview_only writes nothing)",
                    call.tool
                )),
            };
        }
        match chosen {
            Some(rule) => match rule.effect {
                Effect::Deny => PolicyDecision::Deny {
                    rule: rule.to_string(),
                    reason: format!("the host's rules do not let `{}` run this", call.tool),
                    suggestion: Some(
                        "Do not retry the same call; take another approach, or ask the user \
                         to change the rule."
                            .to_owned(),
                    ),
                },
                Effect::Ask => PolicyDecision::Ask {
                    rule: Some(rule.to_string()),
                },
                Effect::Allow => PolicyDecision::Allow {
                    rule: Some(rule.to_string()),
                },
            },
            None if call.tool == "bash"
                && let Some(Subjects::Commands(line)) = &subjects
                && let Some(rules) = self.allow_each_part(line) =>
            {
                PolicyDecision::Allow {
                    rule: Some(format!("allow: {}", rules.join(" + "))),
                }
            }
            None if call.tool == "bash"
                && self.allow_sandboxed_bash
                && self.shell.as_ref().is_some_and(|s| s.runs_sandboxed()) =>
            {
                PolicyDecision::Allow {
                    rule: Some("allow: bash (sandboxed)".to_owned()),
                }
            }
            None => PolicyDecision::Declared,
        }
    }

    /// The patch, the lines replaced, the content written, the command run: see
    /// [`MAX_PREVIEW_LINES`].
    fn preview(&self, call: &PolicyCall<'_>) -> Option<String> {
        preview::preview(call.tool, call.arguments)
    }

    /// The narrowest rules allowing this call (the module documentation's *Scopes*).
    fn scope(&self, call: &PolicyCall<'_>) -> Vec<String> {
        scope::of(call, &self.workspace)
    }
}

impl StandardPolicy {
    /// For a line of several commands no one `allow` rule matches whole: an `allow` rule
    /// for each of its commands (the rules as written, in the order of the commands), when
    /// every command has one; `None` when one has none, writes a file or the line cannot be
    /// read whole.
    fn allow_each_part(&self, line: &CommandLine) -> Option<Vec<String>> {
        if line.unreadable().is_some() || line.parts().len() < 2 {
            return None;
        }
        let mut used: Vec<String> = Vec::new();
        for part in line.parts() {
            if part.writes {
                return None;
            }
            let rule = self.rules.iter().find(|c| {
                c.rule.effect == Effect::Allow
                    && c.rule.tool == "bash"
                    && match &c.pattern {
                        Some(Pattern::Command(p)) => {
                            p.matches(&part.all) || part.plain_prefix && p.matches(&part.program)
                        }
                        _ => false,
                    }
            })?;
            let text = rule.rule.to_string();
            let text = text.strip_prefix("allow: ").unwrap_or(&text).to_owned();
            if !used.contains(&text) {
                used.push(text);
            }
        }
        Some(used)
    }
}

/// The tools whose `preview_only: true` makes a call that writes nothing.
const PREVIEW_TOOLS: &[&str] = &["replace_in_file"];

/// Whether `call` only previews a change (`preview_only: true` of a tool that has it).
fn is_preview(call: &PolicyCall<'_>) -> bool {
    PREVIEW_TOOLS.contains(&call.tool)
        && call.arguments.get("preview_only").and_then(Value::as_bool) == Some(true)
}

#[cfg(test)]
mod tests;
