use toolsmith::Action;

#[derive(Action)]
enum WebAction {
    /// Search the web.
    Search { query: String },
    /// Search the web again.
    #[action(rename = "search")]
    Find { query: String },
}

fn main() {}
