use toolsmith::{ToolContext, ToolResult, tool};

#[derive(Default)]
struct Notes;

/// Keep notes.
#[tool]
impl Notes {
    async fn call(&self, _ctx: &ToolContext, text: String) -> ToolResult<String> {
        Ok(text)
    }

    #[action]
    async fn view(&self) -> ToolResult<String> {
        Ok(String::new())
    }

    #[action]
    async fn clear(&self) -> ToolResult<String> {
        Ok(String::new())
    }
}

fn main() {}
