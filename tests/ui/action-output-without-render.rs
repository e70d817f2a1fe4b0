use toolsmith::{ToolResult, tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Page {
    text: String,
}

#[derive(Default)]
struct Web;

/// Search the web or fetch a page.
#[tool]
impl Web {
    /// Fetch a page.
    #[action]
    async fn fetch(&self, url: String) -> ToolResult<Page> {
        Ok(Page { text: url })
    }
}

fn main() {}
