use toolsmith::{ToolContext, ToolResult, tool};

/// Search the web.
#[tool(error_context(query, limit))]
async fn web(query_or_url: String, max_results: Option<u32>) -> ToolResult<String> {
    Ok(format!("{query_or_url} {max_results:?}"))
}

#[derive(Default)]
struct Prompts;

/// View or update your prompts.
#[tool(error_context(prompt_type, contents), register = false)]
impl Prompts {
    /// View a prompt.
    #[action(read_only)]
    async fn view(&self, _ctx: &ToolContext, prompt_type: String) -> ToolResult<String> {
        Ok(prompt_type)
    }

    /// Replace a prompt.
    #[action]
    async fn update(&self, prompt_type: String, content: String) -> ToolResult<String> {
        Ok(format!("{prompt_type} = {content}"))
    }
}

fn main() {}
