use toolsmith::{ToolResult, tool};

#[tool(description = "Search file contents.", description_file = "Cargo.toml")]
async fn grep(pattern: String) -> ToolResult<String> {
    Ok(pattern)
}

fn main() {}
