use toolsmith::{ToolResult, tool};

/// Search the web.
#[tool(name = "web", aliases(web_search, web))]
async fn web(query: String) -> ToolResult<String> {
    Ok(query)
}

fn main() {}
