use toolsmith::Action;

#[derive(Action)]
enum Edit {
    /// Replace text.
    Replace { action: String, text: String },
}

fn main() {}
