use std::fmt;

use serde_json::Value;

use crate::context::CallNotes;
use crate::error::ToolError;

/// What a rule does with the calls it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Effect {
    /// Run without asking.
    Allow,
    /// Ask the approver (a person, through the host) first.
    Ask,
    /// Never run.
    Deny,
}

impl Effect {
    /// `allow`, `ask` or `deny`, as a configuration file writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Allow => "allow",
            Effect::Ask => "ask",
            Effect::Deny => "deny",
        }
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The longest rule accepted, in bytes.
pub const MAX_RULE_BYTES: usize = 1024;

/// One rule: `tool` or `tool(specifier)`.
///
/// Permission rules: which calls run without asking, which ask a person first, which never
/// run.
///
/// A rule names a tool (or one of its aliases) and optionally an *argument specifier* in
/// parentheses: `bash(cargo test*)`, `create_file(src/**)`, `web(fetch:docs.rs)`,
/// `prompt_manager(update)`. What a specifier means depends on the tool; this module parses
/// rules and decides between them, and a [`CallPolicy`] (for the standard tools,
/// `tool_std::trust::rules::StandardPolicy`) says which rules match a call.
///
/// The decision, for one call:
///
/// 1. a matching `deny` rule: the call is refused (`approval_denied`, naming the rule);
/// 2. else a matching `ask` rule: the approver is asked;
/// 3. else a matching `allow` rule: the call runs without asking;
/// 4. else the tool's declaration: `requires_approval` asks, anything else runs.
///
/// Deny beats ask beats allow, whatever order the rules are written in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// What it does.
    pub effect: Effect,
    /// The tool as written (a name or an alias).
    pub tool: String,
    /// The argument specifier, without its parentheses; `None` matches every call of the tool.
    pub specifier: Option<String>,
}

impl Rule {
    /// Parses `tool` or `tool(specifier)`. The specifier runs to the last `)` and may hold
    /// parentheses of its own; `tool()` and `tool(*)` are the same as `tool`.
    ///
    /// # Errors
    ///
    /// A message saying what is wrong and what to write instead.
    pub fn parse(effect: Effect, text: &str) -> Result<Rule, String> {
        let example = "write `tool` or `tool(specifier)`, e.g. `bash(cargo test*)`";
        if text.len() > MAX_RULE_BYTES {
            return Err(format!(
                "the rule is {} bytes long; at most {MAX_RULE_BYTES} are allowed",
                text.len()
            ));
        }
        let text = text.trim();
        let (tool, specifier) = match text.find('(') {
            None => (text, None),
            Some(open) => {
                let Some(inner) = text[open + 1..].strip_suffix(')') else {
                    return Err(format!(
                        "`{text}` has `(` without a closing `)` at its end; {example}"
                    ));
                };
                let inner = inner.trim();
                let specifier = (!inner.is_empty() && inner != "*").then(|| inner.to_owned());
                (text[..open].trim_end(), specifier)
            }
        };
        if tool.is_empty() {
            return Err(format!("`{text}` names no tool; {example}"));
        }
        if !tool
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
        {
            return Err(format!(
                "`{tool}` is not a tool name (letters, digits, `_`, `-`, `.`); {example}"
            ));
        }
        Ok(Rule {
            effect,
            tool: tool.to_owned(),
            specifier,
        })
    }
}

impl fmt::Display for Rule {
    /// `allow: bash(cargo test*)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.effect, self.tool)?;
        if let Some(s) = &self.specifier {
            write!(f, "({s})")?;
        }
        Ok(())
    }
}

/// Whether a rule's specifier matches a call, as a [`CallPolicy`] judges it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    /// It does not.
    No,
    /// It matches some of what the call does (enough for `deny` and `ask`).
    Some,
    /// It matches everything the call does (needed for `allow`: `bash(cargo test*)` does not
    /// allow `cargo test; rm -rf x`).
    All,
}

impl AsRef<Rule> for Rule {
    fn as_ref(&self) -> &Rule {
        self
    }
}

/// Picks the rule that decides a call among `rules` (rules, or anything holding one, such as
/// a rule with its compiled specifier): the first matching `deny`, else the first matching
/// `ask`, else the first `allow` matching all of the call. `matches` says how a rule's
/// specifier matches (a rule without a specifier is [`Match::All`] for its tool; `matches` is
/// only called for rules naming `tool`, compared by `same_tool`).
pub fn decide<T: AsRef<Rule>>(
    rules: &[T],
    same_tool: impl Fn(&str) -> bool,
    mut matches: impl FnMut(&T) -> Match,
) -> Option<&T> {
    let mut ask = None;
    let mut allow = None;
    for item in rules.iter().filter(|r| same_tool(&r.as_ref().tool)) {
        let rule = item.as_ref();
        let m = if rule.specifier.is_none() {
            Match::All
        } else {
            matches(item)
        };
        match (rule.effect, m) {
            (_, Match::No) => {}
            (Effect::Deny, _) => return Some(item),
            (Effect::Ask, _) => {
                ask.get_or_insert(item);
            }
            (Effect::Allow, Match::All) => {
                allow.get_or_insert(item);
            }
            (Effect::Allow, Match::Some) => {}
        }
    }
    ask.or(allow)
}

/// A call as a [`CallPolicy`] sees it: after validation, before anything runs.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct PolicyCall<'a> {
    /// The tool's name (aliases resolved).
    pub tool: &'a str,
    /// The chosen action, for a polymorphic tool.
    pub action: Option<&'a str>,
    /// The validated arguments.
    pub arguments: &'a Value,
    /// Whether the tool (or action) declares `requires_approval`, or the runtime requires it.
    pub needs_approval: bool,
    /// The notes the call's tool will read: what the policy works out about the call (a
    /// parsed command line) may be left here for the tool. `None` outside the runtime.
    pub notes: Option<&'a CallNotes>,
}

impl<'a> PolicyCall<'a> {
    /// A call of `tool` (its name, aliases resolved), to ask a policy about outside the
    /// runtime.
    pub fn new(
        tool: &'a str,
        action: Option<&'a str>,
        arguments: &'a Value,
        needs_approval: bool,
    ) -> Self {
        PolicyCall {
            tool,
            action,
            arguments,
            needs_approval,
            notes: None,
        }
    }

    /// The same call, with the notes its tool will read.
    #[must_use]
    pub fn with_notes(mut self, notes: &'a CallNotes) -> Self {
        self.notes = Some(notes);
        self
    }
}

/// What a [`CallPolicy`] decided.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum PolicyDecision {
    /// No rule matched: the tool's declaration decides (`requires_approval` asks).
    Declared,
    /// Run without asking.
    Allow {
        /// The rule, as [`Rule`]'s `Display` writes it, when one matched.
        rule: Option<String>,
    },
    /// Ask the approver first.
    Ask {
        /// The rule that asks (`ask: bash(git push*)`); `None` when the declaration asks.
        rule: Option<String>,
    },
    /// Never run: the model gets `approval_denied` with the reason.
    Deny {
        /// The rule (`deny: delete_file(**)`, or a built-in refusal's name).
        rule: String,
        /// Why, for the model.
        reason: String,
        /// What to do instead.
        suggestion: Option<String>,
    },
    /// Never run, answered with the tool's own error: a check the tool would make when it
    /// runs, made before anyone is asked (`bash`'s refused commands).
    Refuse(ToolError),
}

/// Decides, for every call, whether it runs, asks first or is refused: the runtime consults
/// it before its approval gate ([`RuntimeBuilder::policy`](crate::RuntimeBuilder::policy)).
pub trait CallPolicy: Send + Sync + 'static {
    /// Decides on one call. Must not block: it runs on the call's path.
    fn decide(&self, call: &PolicyCall<'_>) -> PolicyDecision;

    /// What the call would change, shown to the person asked to approve it (a diff for an
    /// edit); `None` (the default) shows the call alone. Made only when someone is asked.
    fn preview(&self, call: &PolicyCall<'_>) -> Option<String> {
        let _ = call;
        None
    }

    /// The narrowest `allow` rules, as a host's configuration writes them, that let this call
    /// run without asking, and no call that differs in what it does (`bash(rm -rf src)` for
    /// `rm -rf src`; `bash(git status *)` for `git status`, whose every form only reads). It is
    /// what "allow for this session" grants, named in the form, and what a refusal suggests
    /// adding; empty (the default) means the whole tool. Made only when someone is asked.
    fn scope(&self, call: &PolicyCall<'_>) -> Vec<String> {
        let _ = call;
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(effect: Effect, text: &str) -> Rule {
        Rule::parse(effect, text).unwrap()
    }

    #[test]
    fn parses_tools_and_specifiers() {
        let r = rule(Effect::Allow, " bash( cargo test* ) ");
        assert_eq!(r.tool, "bash");
        assert_eq!(r.specifier.as_deref(), Some("cargo test*"));
        assert_eq!(r.to_string(), "allow: bash(cargo test*)");
        assert_eq!(rule(Effect::Deny, "bash(*)").specifier, None);
        assert_eq!(rule(Effect::Deny, "bash()").specifier, None);
        assert_eq!(
            rule(Effect::Ask, "bash(echo (a))").specifier.as_deref(),
            Some("echo (a)")
        );
        for bad in ["", "(x)", "bash(x", "ba sh", "bash(x) y"] {
            assert!(Rule::parse(Effect::Allow, bad).is_err(), "{bad}");
        }
        assert!(Rule::parse(Effect::Allow, &"a".repeat(MAX_RULE_BYTES + 1)).is_err());
    }

    #[test]
    fn deny_beats_ask_beats_allow_in_any_order() {
        let rules = vec![
            rule(Effect::Allow, "t"),
            rule(Effect::Ask, "t(a)"),
            rule(Effect::Deny, "t(b)"),
        ];
        let pick = |m: &dyn Fn(&Rule) -> Match| decide(&rules, |t| t == "t", m).map(|r| r.effect);
        assert_eq!(pick(&|_| Match::No), Some(Effect::Allow));
        assert_eq!(
            pick(&|r| if r.specifier.as_deref() == Some("a") {
                Match::All
            } else {
                Match::No
            }),
            Some(Effect::Ask)
        );
        assert_eq!(pick(&|_| Match::Some), Some(Effect::Deny));
        assert_eq!(decide(&rules, |t| t == "u", |_| Match::All), None);
    }

    #[test]
    fn allow_needs_all_of_the_call() {
        let rules = vec![rule(Effect::Allow, "t(a)")];
        assert!(decide(&rules, |_| true, |_| Match::Some).is_none());
        assert!(decide(&rules, |_| true, |_| Match::All).is_some());
    }
}
