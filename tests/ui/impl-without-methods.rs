use toolsmith::tool;

#[derive(Default)]
struct Web;

/// Search the web.
#[tool]
impl Web {
    fn helper(&self) {}
}

fn main() {}
