//! The plan family: `update_plan`, the task list a model keeps on a long task, in the shape
//! Codex's models are trained on.
//!
//! | tool | does | category |
//! |---|---|---|
//! | `update_plan` | the whole plan, written again each call: steps `pending`, `in_progress` or `completed`, at most one in progress, and an optional explanation; answered restated as a checklist | planning |
//!
//! The plan lives in the conversation, not on the server: each call carries the whole plan,
//! so the tool keeps no state, and any replica answers it the same (DESIGN's state table). The
//! activity page shows a call as a checklist.
//!
//! ```
//! use std::sync::Arc;
//! use tool_core::{Registry, Runtime, ToolCall};
//!
//! let session = Runtime::builder(Registry::builder().with_inventory().build()?)
//!     .build()
//!     .session();
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let out = session
//!     .call(ToolCall::new("1", "update_plan", r#"{"plan": [
//!         {"step": "Read the failing test", "status": "completed"},
//!         {"step": "Fix the parser", "status": "in_progress"},
//!         {"step": "Run the suite", "status": "pending"}
//!     ]}"#))
//!     .await
//!     .to_json();
//! assert_eq!(out["type"], "plan_updated");
//! assert_eq!(out["completed"], 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod update_plan;

pub use update_plan::{MAX_PLAN_STEPS, MAX_STEP_CHARS, PlanStep, PlanUpdated, StepStatus};
