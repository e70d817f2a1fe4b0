//! `update_plan`: the model's task list, written whole on every call (see the
//! [family](super)).

use serde::{Deserialize, Serialize};
use tool_core::{Render, ResourcesTracker, ToolError, ToolResult};
use tool_macros::{Action, tool};

/// The most steps one plan holds.
pub const MAX_PLAN_STEPS: usize = 50;

/// The most characters of one step, and of the explanation.
pub const MAX_STEP_CHARS: usize = 500;

/// Where a step stands.
#[derive(Action, Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepStatus {
    /// Not begun.
    Pending,
    /// Being done now (at most one step at a time).
    InProgress,
    /// Done.
    Completed,
}

/// One step of the plan.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanStep {
    /// What to do, in a short sentence.
    pub step: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: StepStatus,
}

/// The answer of `update_plan`: the plan as it now stands.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PlanUpdated {
    /// Always `plan_updated`.
    pub r#type: &'static str,
    /// The steps, in order.
    pub plan: Vec<PlanStep>,
    /// How many are completed.
    pub completed: usize,
    /// Why the plan changed, when the call said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
}

impl Render for PlanUpdated {
    fn status(&self) -> Option<String> {
        Some(format!(
            "Plan: {} of {} completed",
            self.completed,
            self.plan.len()
        ))
    }

    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        let mut out = format!(
            "Plan updated ({} of {} completed):\n",
            self.completed,
            self.plan.len()
        );
        for s in &self.plan {
            let mark = match s.status {
                StepStatus::Completed => "[x]",
                StepStatus::InProgress => "[>]",
                StepStatus::Pending => "[ ]",
            };
            out.push_str(&format!("{mark} {}\n", s.step));
        }
        Some(out)
    }
}

/// Checks a plan: at most one step in progress, steps and explanation within their limits.
fn check(plan: &[PlanStep], explanation: Option<&str>) -> Result<(), ToolError> {
    if plan.len() > MAX_PLAN_STEPS {
        return Err(ToolError::validation(format!(
            "the plan has {} steps; at most {MAX_PLAN_STEPS} are kept",
            plan.len()
        ))
        .with_suggestion("Merge small steps, or drop the completed ones from the plan."));
    }
    let too_long = |text: &str| text.chars().count() > MAX_STEP_CHARS;
    if let Some((i, _)) = plan.iter().enumerate().find(|(_, s)| too_long(&s.step)) {
        return Err(ToolError::validation(format!(
            "step {} is longer than {MAX_STEP_CHARS} characters",
            i + 1
        ))
        .with_suggestion("Write each step as one short sentence."));
    }
    if plan.iter().any(|s| s.step.trim().is_empty()) {
        return Err(ToolError::validation(
            "a step is empty; say what the step does",
        ));
    }
    if explanation.is_some_and(too_long) {
        return Err(ToolError::validation(format!(
            "explanation is longer than {MAX_STEP_CHARS} characters"
        )));
    }
    let running: Vec<usize> = plan
        .iter()
        .enumerate()
        .filter(|(_, s)| s.status == StepStatus::InProgress)
        .map(|(i, _)| i + 1)
        .collect();
    if running.len() > 1 {
        return Err(ToolError::validation(format!(
            "steps {} are all in_progress; at most one step is in progress at a time",
            running
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .with_field("in_progress_steps", running)
        .with_suggestion(
            "Mark the step being done in_progress, the others pending or completed.",
        ));
    }
    Ok(())
}

/// Keep a plan of the task.
#[tool(
    name = "update_plan",
    description = "Write your plan for the task: every step with its status (pending, in_progress, completed), at most one in_progress. Send the whole plan each time a step starts or ends.",
    category = "planning",
    toolsets(plan),
    read_only,
    idempotent,
    suppress_execution_animation
)]
pub async fn update_plan(
    /// The steps, in order.
    plan: Vec<PlanStep>,
    /// Why the plan changed (optional).
    explanation: Option<String>,
) -> ToolResult<PlanUpdated> {
    let explanation = explanation.filter(|e| !e.trim().is_empty());
    check(&plan, explanation.as_deref())?;
    Ok(PlanUpdated {
        r#type: "plan_updated",
        completed: plan
            .iter()
            .filter(|s| s.status == StepStatus::Completed)
            .count(),
        plan,
        explanation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(text: &str, status: StepStatus) -> PlanStep {
        PlanStep {
            step: text.to_owned(),
            status,
        }
    }

    #[test]
    fn one_step_in_progress_at_most_and_bounded() {
        use StepStatus::{Completed, InProgress, Pending};
        assert!(
            check(
                &[
                    step("a", Completed),
                    step("b", InProgress),
                    step("c", Pending)
                ],
                None
            )
            .is_ok()
        );
        assert!(check(&[], None).is_ok(), "an empty plan clears it");
        let e = check(
            &[
                step("a", InProgress),
                step("b", Pending),
                step("c", InProgress),
            ],
            None,
        )
        .unwrap_err();
        assert!(e.message().contains("steps 1, 3"), "{}", e.message());
        let many: Vec<PlanStep> = (0..=MAX_PLAN_STEPS).map(|_| step("x", Pending)).collect();
        assert!(check(&many, None).is_err());
        assert!(check(&[step(&"x".repeat(MAX_STEP_CHARS + 1), Pending)], None).is_err());
        assert!(check(&[step("  ", Pending)], None).is_err());
        assert!(check(&[], Some(&"y".repeat(MAX_STEP_CHARS + 1))).is_err());
    }

    #[test]
    fn the_answer_restates_the_plan_as_a_checklist() {
        let out = PlanUpdated {
            r#type: "plan_updated",
            plan: vec![
                step("Read", StepStatus::Completed),
                step("Fix", StepStatus::InProgress),
                step("Test", StepStatus::Pending),
            ],
            completed: 1,
            explanation: None,
        };
        assert_eq!(
            out.render(&mut ResourcesTracker::new()).unwrap(),
            "Plan updated (1 of 3 completed):\n[x] Read\n[>] Fix\n[ ] Test\n"
        );
        assert_eq!(out.status().unwrap(), "Plan: 1 of 3 completed");
    }
}
