use toolsmith::tool;

#[derive(Default)]
struct Web;

/// Search the web.
#[tool]
impl Clone for Web {
    fn clone(&self) -> Self {
        Web
    }
}

fn main() {}
