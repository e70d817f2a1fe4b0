//! Who decides on a call that asks: the permission rules of `toolsmith.toml`, then a person
//! at the terminal (`call`), `--approve`, or nobody (the call is denied, saying how to allow
//! it).

use std::io::{BufRead, IsTerminal, Read as _, Write};
use std::sync::Arc;

use async_trait::async_trait;
use tool_core::Effect;
use tool_core::{ApprovalDecision, ApprovalRequest, ApprovedBy, Approver, Registry};
use tool_std::shell::ShellConfig;
use tool_std::trust::rules::StandardPolicy;
use tool_std::workspace::Workspace;

use crate::config::{AllowAsk, Config, ConfigError, RulesSection};

/// The rules of `sections` (the file's `[rules]`, and a principal's own) over `workspace`.
/// Without rules the policy still checks `bash`'s refused commands before anyone is asked,
/// and previews what a call would change for the person asked. A rule that cannot be used
/// is an error at its line.
pub(crate) fn policy(
    config: &Config,
    sections: &[&RulesSection],
    registry: &Registry,
    workspace: Arc<Workspace>,
    shell: Arc<ShellConfig>,
) -> Result<Arc<StandardPolicy>, ConfigError> {
    let list = |effect: Effect| -> Vec<&toml::Spanned<String>> {
        sections
            .iter()
            .flat_map(|s| match effect {
                Effect::Allow => &s.allow,
                Effect::Ask => &s.ask,
                Effect::Deny => &s.deny,
            })
            .collect()
    };
    // The last section that says decides (a principal's over the file's).
    let sandboxed = sections.iter().rev().find_map(|s| s.sandboxed_bash);
    let mut builder = StandardPolicy::builder(registry, workspace)
        .shell(shell)
        .allow_sandboxed_bash(sandboxed == Some(AllowAsk::Allow));
    for effect in [Effect::Allow, Effect::Ask, Effect::Deny] {
        builder = builder.rules(effect, list(effect).iter().map(|r| r.get_ref().clone()));
    }
    match builder.build() {
        Ok(p) => Ok(Arc::new(p)),
        Err(e) => {
            let span = list(e.effect).get(e.index).map_or(0..0, |r| r.span());
            Err(config.error_at(span, &e.to_string()))
        }
    }
}

/// Hides from every tool of `workspace`, and from `bash`, the paths `policy`'s `deny` rules of
/// reading tools name (see `tool_std::trust::rules`, *Families*).
pub(crate) fn hide_denied(policy: &StandardPolicy, workspace: &Workspace) {
    // The specifiers compiled as the policy's rules, so hiding them cannot fail.
    let _ = workspace.hide(&policy.hidden_paths());
}

/// Checks every rule of the file (its `[rules]` and each principal's) against the registry and
/// the workspace, one by one, so that every rule that cannot be used is reported at once, at
/// its line.
pub(crate) fn check_rules(
    config: &Config,
    registry: &Registry,
    workspace: &Arc<Workspace>,
) -> Result<(), ConfigError> {
    let mut sections: Vec<&RulesSection> = config.file.rules.iter().collect();
    sections.extend(
        config
            .file
            .principals
            .iter()
            .filter_map(|p| p.rules.as_ref()),
    );
    let mut errors = Vec::new();
    for section in sections {
        for (effect, list) in [
            (Effect::Allow, &section.allow),
            (Effect::Ask, &section.ask),
            (Effect::Deny, &section.deny),
        ] {
            for rule in list {
                let built = StandardPolicy::builder(registry, workspace.clone())
                    .rules(effect, [rule.get_ref().clone()])
                    .build();
                if let Err(e) = built {
                    errors.push((
                        rule.span().start,
                        config.error_at(rule.span(), &e.to_string()),
                    ));
                }
            }
        }
    }
    if errors.is_empty() {
        return Ok(());
    }
    errors.sort_by_key(|(at, _)| *at);
    Err(ConfigError::all(
        errors.into_iter().map(|(_, e)| e).collect(),
    ))
}

/// What the user can change so that calls like `request` run without asking: the `ask` rule
/// that asked, to take out; or the rules that allow exactly this call (its scope), to add.
fn advice(request: &ApprovalRequest) -> String {
    if let Some(rule) = &request.rule {
        let (effect, rule) = rule.split_once(": ").unwrap_or(("ask", rule.as_str()));
        return format!(
            "to let such calls run, take \"{rule}\" out of `{effect}` under [rules] in \
             toolsmith.toml (an `allow` rule does not beat it; a running server rereads the \
             file on SIGHUP)"
        );
    }
    if request.tool == "bash"
        && let Some(command) = request.arguments.get("command").and_then(|c| c.as_str())
        && tool_std::trust::command::CommandLine::parse(command)
            .parts()
            .iter()
            .any(|p| p.writes)
    {
        return "no `allow` rule lets a command that writes a file through a redirect (`>`) \
                run (write the file with a file tool instead)"
            .to_owned();
    }
    let rules: Vec<String> = if request.scope.is_empty() {
        vec![request.tool.clone()]
    } else {
        request.scope.clone()
    };
    let quoted: Vec<String> = rules
        .iter()
        .map(|r| toml::Value::String(r.clone()).to_string())
        .collect();
    format!(
        "to let such calls run, add {} to `allow` under [rules] in toolsmith.toml (a running \
         server rereads it on SIGHUP)",
        quoted.join(", ")
    )
}

/// Denies what asks, because nobody can be asked here; the model is told which rule asked and
/// the user how to allow such calls.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NoOneToAsk {
    /// Why nobody can be asked ("there is no terminal", "the client cannot ask its user").
    pub(crate) because: &'static str,
}

#[async_trait]
impl Approver for NoOneToAsk {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        ApprovalDecision::Deny {
            reason: Some(format!(
                "{} asks for approval and {}; {}; or start toolsmith with --approve",
                request.asked_by(),
                self.because,
                advice(request),
            )),
        }
    }
}

/// Asks the person at the terminal, on stderr, and reads `y` or `n` from stdin.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TerminalApprover;

impl TerminalApprover {
    /// Whether there is a person to ask: stdin and stderr are a terminal.
    pub(crate) fn available() -> bool {
        std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }
}

/// The longest answer line read.
const MAX_ANSWER_BYTES: u64 = 1024;

#[async_trait]
impl Approver for TerminalApprover {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        let question = format!(
            "{}\n  needs approval ({}). Allow this call? [y/N] ",
            shorten(&request.signature, 2000),
            request.asked_by()
        );
        let answer = tokio::task::spawn_blocking(move || -> std::io::Result<String> {
            let mut err = std::io::stderr().lock();
            err.write_all(question.as_bytes())?;
            err.flush()?;
            let mut line = String::new();
            std::io::stdin()
                .lock()
                .take(MAX_ANSWER_BYTES)
                .read_line(&mut line)?;
            Ok(line)
        })
        .await;
        match answer {
            Ok(Ok(line)) if matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes") => {
                ApprovalDecision::ApproveAs(ApprovedBy::UserOnce)
            }
            Ok(Ok(_)) => ApprovalDecision::Deny {
                reason: Some("the user declined it at the terminal".to_owned()),
            },
            Ok(Err(e)) => ApprovalDecision::Deny {
                reason: Some(format!("the terminal could not be asked: {e}")),
            },
            Err(e) => ApprovalDecision::Deny {
                reason: Some(format!("the terminal could not be asked: {e}")),
            },
        }
    }
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push('…');
    out
}
