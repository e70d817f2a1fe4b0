use toolsmith::{Action, ToolResult, tool};

#[derive(Default)]
struct Files;

/// Files.
#[tool(name = "files")]
impl Files {
    /// Read one.
    #[action]
    async fn read(
        &self,
        /// The path.
        #[param(alias = "file_path")]
        path: String,
    ) -> ToolResult<String> {
        Ok(path)
    }
}

#[derive(Action)]
enum Op {
    /// Write one.
    Write {
        /// The path.
        #[param(alias = "file_path")]
        path: String,
    },
}

fn main() {}
