use std::rc::Rc;

use toolsmith::{ToolResult, tool};

/// Shout a text.
#[tool]
async fn shout(text: String) -> ToolResult<String> {
    let shared = Rc::new(text);
    std::future::ready(()).await;
    Ok(shared.to_uppercase())
}

fn main() {}
