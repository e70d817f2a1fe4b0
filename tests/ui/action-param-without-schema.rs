use toolsmith::{ToolResult, tool};

#[derive(serde::Deserialize)]
struct Query {
    text: String,
}

#[derive(Default)]
struct Web;

/// Search the web.
#[tool]
impl Web {
    /// Search.
    #[action]
    async fn search(&self, query: Query) -> ToolResult<String> {
        Ok(query.text)
    }
}

fn main() {}
