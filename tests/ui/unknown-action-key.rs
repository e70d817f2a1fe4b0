use toolsmith::Action;

#[derive(Action)]
enum WebAction {
    /// Fetch a page.
    #[action(requires_aproval)]
    Fetch { url: String },
}

fn main() {}
