use toolsmith::tool;

/// Search file contents.
#[tool]
async fn grep(pattern: String) -> String {
    pattern
}

fn main() {}
