use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{ErrorKind, ToolError};

/// A call waiting for approval.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The call's id.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The action, for a polymorphic tool.
    pub action: Option<String>,
    /// The validated arguments.
    pub arguments: Value,
    /// The call as a model would write it.
    pub signature: String,
    /// The permission rule that asks (`ask: bash(git push*)`, see [`Rule`](crate::Rule)); `None`
    /// when the tool's own declaration (`requires_approval`) asks.
    pub rule: Option<String>,
    /// What the call would change, for the person asked (a diff for an edit), from the
    /// runtime's [`CallPolicy::preview`](crate::policy::CallPolicy::preview).
    pub preview: Option<String>,
    /// The rules that allow calls like this one and no wider, from the runtime's
    /// [`CallPolicy::scope`](crate::policy::CallPolicy::scope): what "allow for this session"
    /// grants (empty: the whole tool, and the form says so).
    pub scope: Vec<String>,
    /// The activity record of the waiting call (its status is `awaiting_approval` while the
    /// approver decides), so that an approver answering through a later call
    /// ([`ApprovalDecision::Defer`]) can name it.
    pub activity_id: String,
}

impl ApprovalRequest {
    /// A request for a call, as a host's own gate makes one (the runtime fills the rule).
    pub fn new(
        call_id: impl Into<String>,
        tool: impl Into<String>,
        action: Option<String>,
        arguments: Value,
        signature: impl Into<String>,
    ) -> Self {
        ApprovalRequest {
            call_id: call_id.into(),
            tool: tool.into(),
            action,
            arguments,
            signature: signature.into(),
            rule: None,
            preview: None,
            scope: Vec::new(),
            activity_id: String::new(),
        }
    }

    /// What asks for this call, for a person or a model: `the rule `ask: bash(git*)``, or
    /// `its declaration (requires_approval)`.
    pub fn asked_by(&self) -> String {
        match &self.rule {
            Some(rule) => format!("the rule `{rule}`"),
            None => format!("`{}`'s declaration (requires_approval)", self.tool),
        }
    }
}

/// The model's error for a call a rule refuses.
pub(crate) fn refused_by_rule(rule: &str, reason: &str, suggestion: Option<String>) -> ToolError {
    let mut e = ToolError::new(
        ErrorKind::ApprovalDenied,
        format!("the call is refused by `{rule}`: {reason}"),
    )
    .with_field("rule", rule);
    e = e.with_suggestion(suggestion.unwrap_or_else(|| {
        "Do not retry the same call: the host's rules refuse it. Take another approach, or ask \
         the user to change the rule."
            .to_owned()
    }));
    e
}

/// Who let a call run, as its activity record keeps it ([`Allowed`](crate::activity::Allowed)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ApprovedBy {
    /// A permission rule's `allow` (the record names it).
    Rule,
    /// The user, for this call.
    UserOnce,
    /// The user, for calls like it until the session ends (now, or earlier in the session).
    UserSession,
    /// The host approves every call that asks (the CLI's `--approve`, [`ApproveAll`]).
    ApproveAll,
    /// An approver that did not say how ([`ApprovalDecision::Approve`]).
    Approver,
}

impl ApprovedBy {
    /// How a person reads it: `a rule`, `the user (once)`, `the user (for the session)`,
    /// `--approve`, `the approver`.
    pub fn describe(self) -> &'static str {
        match self {
            ApprovedBy::Rule => "a rule",
            ApprovedBy::UserOnce => "the user (once)",
            ApprovedBy::UserSession => "the user (for the session)",
            ApprovedBy::ApproveAll => "--approve",
            ApprovedBy::Approver => "the approver",
        }
    }
}

/// What an approver decided.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApprovalDecision {
    /// Run the call (the record says [`ApprovedBy::Approver`]; [`ApproveAs`](Self::ApproveAs)
    /// says who).
    Approve,
    /// Do not run it; the model gets an `approval_denied` error with the reason.
    Deny {
        /// Why, shown to the model.
        reason: Option<String>,
    },
    /// Run the call, saying who allowed it: its activity record keeps it.
    ApproveAs(ApprovedBy),
    /// The person is asked, but their answer comes with a later call (MCP 2026-07-28's
    /// `input_required` round): this call ends now with `reason` (`approval_denied`), while
    /// its record stays `awaiting_approval` for the call that brings the answer and continues
    /// it, or until `expires_at_ms` (milliseconds since the Unix epoch), when it ends
    /// `failure`, unanswered.
    Defer {
        /// Why the call ends now, shown to the caller.
        reason: String,
        /// When the question expires.
        expires_at_ms: u64,
    },
}

impl ApprovalDecision {
    /// Who allowed the call, when the decision lets it run.
    pub fn approved_by(&self) -> Option<ApprovedBy> {
        match self {
            ApprovalDecision::Approve => Some(ApprovedBy::Approver),
            ApprovalDecision::ApproveAs(by) => Some(*by),
            ApprovalDecision::Deny { .. } | ApprovalDecision::Defer { .. } => None,
        }
    }

    /// The decision as the call's path takes it: who allowed the call, or the model's
    /// `approval_denied`.
    pub(crate) fn into_result(self) -> Result<ApprovedBy, ToolError> {
        let msg = match self {
            ApprovalDecision::Approve => return Ok(ApprovedBy::Approver),
            ApprovalDecision::ApproveAs(by) => return Ok(by),
            ApprovalDecision::Deny { reason: Some(r) } => format!("the call was not approved: {r}"),
            ApprovalDecision::Deny { reason: None } => "the call was not approved".to_owned(),
            ApprovalDecision::Defer { reason, .. } => {
                format!("the call was not approved: {reason}")
            }
        };
        Err(ToolError::new(ErrorKind::ApprovalDenied, msg)
            .with_suggestion("Do not retry the same call; ask the user or take another approach."))
    }
}

/// Decides on calls that need approval (a person at a prompt, a policy engine). Denial is a
/// normal result the model sees, not a failure of the host.
#[async_trait]
pub trait Approver: Send + Sync + 'static {
    /// Decides on one call.
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision;
}

/// Denies every call that needs approval (the default: nothing risky runs unattended).
#[derive(Debug, Clone, Copy, Default)]
pub struct DenyAll;

#[async_trait]
impl Approver for DenyAll {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        ApprovalDecision::Deny {
            reason: Some(format!(
                "{} asks for approval and this host has no one to ask",
                request.asked_by()
            )),
        }
    }
}

/// Approves every call (the CLI's `--approve`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ApproveAll;

#[async_trait]
impl Approver for ApproveAll {
    async fn approve(&self, _: &ApprovalRequest) -> ApprovalDecision {
        ApprovalDecision::ApproveAs(ApprovedBy::ApproveAll)
    }
}

/// An approver from a closure.
pub struct FnApprover<F>(pub F);

impl<F> std::fmt::Debug for FnApprover<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FnApprover")
    }
}

#[async_trait]
impl<F> Approver for FnApprover<F>
where
    F: Fn(&ApprovalRequest) -> ApprovalDecision + Send + Sync + 'static,
{
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        (self.0)(request)
    }
}
