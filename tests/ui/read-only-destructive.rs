use toolsmith::{ToolResult, tool};

/// Delete a file.
#[tool(read_only, destructive)]
async fn delete_file(path: String) -> ToolResult<String> {
    Ok(path)
}

fn main() {}
