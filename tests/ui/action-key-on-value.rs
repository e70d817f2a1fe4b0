use toolsmith::Action;

#[derive(Action)]
enum PromptType {
    System,
    #[action(requires_approval)]
    Name,
}

fn main() {}
