use toolsmith::{ToolResult, tool};

/// Read files.
#[tool(name = "read")]
async fn read(
    /// The paths.
    #[param(alias = "offset", alias = "file_paths", alias = "file_paths")]
    paths: Vec<String>,
    /// The first line.
    offset: Option<usize>,
) -> ToolResult<String> {
    let _ = (paths, offset);
    Ok(String::new())
}

fn main() {}
