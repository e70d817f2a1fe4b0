use toolsmith::{ToolResult, tool};

struct Web {
    base_url: String,
}

/// Search the web.
#[tool]
impl Web {
    async fn call(&self, query: String) -> ToolResult<String> {
        Ok(format!("{}{query}", self.base_url))
    }
}

fn main() {}
