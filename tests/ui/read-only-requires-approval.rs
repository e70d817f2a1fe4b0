use toolsmith::{ToolResult, tool};

/// Read a file.
#[tool(read_only, requires_approval)]
async fn read_file(path: String) -> ToolResult<String> {
    Ok(path)
}

fn main() {}
