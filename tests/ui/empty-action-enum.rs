use toolsmith::Action;

#[derive(Action)]
enum WebAction {}

fn main() {}
