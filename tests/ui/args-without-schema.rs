use toolsmith::{ToolContext, ToolResult, tool};

#[derive(serde::Deserialize)]
struct GrepArgs {
    pattern: String,
}

/// Search file contents.
#[tool]
async fn grep(_ctx: &ToolContext, args: GrepArgs) -> ToolResult<String> {
    Ok(args.pattern)
}

fn main() {}
