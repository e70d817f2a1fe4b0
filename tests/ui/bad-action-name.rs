use toolsmith::Action;

#[derive(Action)]
enum WebAction {
    /// Search the web.
    #[action(rename = "web search")]
    Search { query: String },
}

fn main() {}
