//! What the `core_runtime_*` tests share: `risky`, a `counted` tool that needs approval.
#![allow(dead_code, unreachable_pub)]

use tool_core::{Tool, ToolContext, ToolError, ToolSpec};

use crate::common::*;

/// `counted` with approval required by its spec.
#[derive(Clone, Default)]
pub struct Risky {
    pub inner: Counted,
}

impl Tool for Risky {
    type Input = CountedArgs;
    type Output = CountedOut;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("risky", "Needs approval.").requires_approval(true)
    }
    async fn call(&self, ctx: &ToolContext, a: CountedArgs) -> Result<CountedOut, ToolError> {
        Tool::call(&self.inner, ctx, a).await
    }
}
