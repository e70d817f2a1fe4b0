use toolsmith::{ToolResult, tool};

#[derive(Default)]
struct Counter {
    count: u64,
}

/// Count calls.
#[tool]
impl Counter {
    /// Add one.
    #[action]
    async fn add(&mut self) -> ToolResult<String> {
        self.count += 1;
        Ok(self.count.to_string())
    }
}

fn main() {}
