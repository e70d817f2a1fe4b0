use toolsmith::Action;

#[derive(Action)]
enum WebAction {
    /// Search the web.
    Search(String),
    /// Fetch a page.
    Fetch { url: String },
}

fn main() {}
