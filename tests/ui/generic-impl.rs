use toolsmith::{ToolResult, tool};

#[derive(Default)]
struct Web<T>(T);

/// Search the web.
#[tool]
impl<T: Send + Sync + 'static> Web<T> {
    async fn call(&self, query: String) -> ToolResult<String> {
        Ok(query)
    }
}

fn main() {}
