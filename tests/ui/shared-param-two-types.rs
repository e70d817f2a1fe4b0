use toolsmith::Action;

#[derive(Action)]
enum Prompt {
    /// View a prompt.
    View { content: Option<String> },
    /// Update a prompt.
    Update { content: String },
}

fn main() {}
