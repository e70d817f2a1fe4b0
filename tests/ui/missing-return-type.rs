use toolsmith::tool;

/// Search file contents.
#[tool]
async fn grep(pattern: String) {
    let _ = pattern;
}

fn main() {}
