use toolsmith::Action;

#[derive(Action)]
struct SearchArgs {
    query: String,
}

fn main() {}
