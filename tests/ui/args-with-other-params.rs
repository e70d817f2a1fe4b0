use toolsmith::{ToolResult, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct GrepArgs {
    pattern: String,
}

/// Search file contents.
#[tool]
async fn grep(args: GrepArgs, limit: u32) -> ToolResult<String> {
    Ok(format!("{}{limit}", args.pattern))
}

fn main() {}
