use toolsmith::{ToolResult, tool};

// Every mistake is reported at once.
#[tool(nmae = "grep", modes(agnet), permissions(netwrk), timeout = "soon")]
fn grep(pattern: String) -> ToolResult<String> {
    Ok(pattern)
}

fn main() {}
