use toolsmith::{ToolResult, tool};

/// Does nothing.
#[tool(name = "a_tool_name_that_is_much_longer_than_the_sixty_four_characters_providers_accept")]
async fn nothing() -> ToolResult<String> {
    Ok(String::new())
}

fn main() {}
