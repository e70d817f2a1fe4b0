use toolsmith::tool;

/// A tool.
#[tool]
struct Grep;

fn main() {}
