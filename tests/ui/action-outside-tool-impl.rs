use toolsmith::action;

struct Web;

impl Web {
    #[action]
    async fn search(&self, query: String) -> String {
        query
    }
}

fn main() {}
