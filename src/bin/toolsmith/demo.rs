//! Small demonstration tools, written by hand against the trait layer, so `list` and `call`
//! show the runtime before any standard tool is linked in.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::{Render, Tool, ToolContext, ToolError, ToolSpec};

/// Arguments of `echo`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct EchoArgs {
    /// The text to send back.
    text: String,
    /// How many times to repeat it (1 to 10).
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 10))]
    times: u8,
}

fn one() -> u8 {
    1
}

/// What `echo` answers.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Echoed {
    r#type: &'static str,
    text: String,
}

impl Render for Echoed {
    fn status(&self) -> Option<String> {
        Some(format!("Echoed {} characters", self.text.chars().count()))
    }
}

/// Sends text back, repeated.
#[derive(Debug, Default)]
pub(crate) struct Echo;

#[async_trait::async_trait]
impl Tool for Echo {
    type Input = EchoArgs;
    type Output = Echoed;

    fn spec(&self) -> ToolSpec {
        ToolSpec::new("echo", "Send the text back, repeated `times` times.")
            .category("demo")
            .toolset("demo")
            .annotations(
                tool_core::Annotations::new()
                    .read_only(true)
                    .idempotent(true),
            )
    }

    async fn call(&self, _: &ToolContext, args: EchoArgs) -> Result<Echoed, ToolError> {
        Ok(Echoed {
            r#type: "echoed",
            text: args.text.repeat(usize::from(args.times)),
        })
    }
}
