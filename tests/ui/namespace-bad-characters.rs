use toolsmith::{ToolResult, tool};

/// Reads a file.
#[tool(namespace = "file tools")]
async fn read_file() -> ToolResult<String> {
    Ok(String::new())
}

/// Lists a directory.
#[tool(namespace = "")]
async fn list_directory() -> ToolResult<String> {
    Ok(String::new())
}

fn main() {}
