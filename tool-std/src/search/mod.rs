//! The search tools: `grep`, `glob` and `search`, in-process on ripgrep's own libraries.
//!
//! An agent gets ripgrep's speed and semantics without an `rg` binary: the walk is
//! [`ignore`]'s parallel walker, the matcher is `grep-regex`'s, the search is
//! `grep-searcher`'s, and glob filters are `ignore`'s overrides over [`globset`]. Everything
//! goes through the [`Workspace`](crate::workspace::Workspace) policy: a path outside the
//! roots, or through a link leading out, is refused with its `security_error`; files are
//! opened beneath the root's directory handle, links are never followed, protected paths are
//! left out.
//!
//! | tool | does | category |
//! |---|---|---|
//! | `grep` | regex search of contents: `content` (lines with context), `files_with_matches` or `count`; case, smart case, `file_type`, `glob`, `multiline`, `offset` | search |
//! | `glob` | files by glob pattern (`**/*.tsx`), `exclude`, `!` negation, sorted by path or modification time | search |
//! | `search` | literal text in file paths and contents in one call (seed 003's enhanced search) | search |
//!
//! All three are `read_only`, need `read_files`, need no approval, are in category `search`
//! (seed 003's "Search & Discovery" group, beside `list_directory`) and in toolset `search`.
//!
//! # Design decisions
//!
//! - **ripgrep's rules.** `.gitignore`, `.ignore` and `.git/info/exclude` apply inside and
//!   outside git repositories (`--no-require-git`), hidden files are left out, binary files
//!   (a NUL byte) are skipped, files above [`SearchConfig::max_file_bytes`] (1 MB) are
//!   skipped, and each skip is counted in the answer. The ignore files of the directories
//!   between the root and the searched directory apply; rules above the root never do.
//! - **Deterministic, and early stop.** The walk collects the candidate files and sorts them
//!   by path; the search takes them in that order on every core and stops once the files
//!   finished so far hold what the call returns (`offset + max_results`). The results are
//!   the same on every run, sorted by path then line, and the totals say whether they are
//!   exact or lower bounds (`exact`). Only the shown matches are read again for their lines
//!   and context.
//! - **Seed 003's summary line.** Every answer's text ends with "Found 523 matches in 41
//!   files, showing first 50." and how to see more (`offset`, a narrower path, glob or type).
//!   `grep`'s and `search`'s structured results say it in numbers instead (`total_matches`,
//!   `total_files`, `exact`, `next_offset`), so they cost no more than the text
//!   ([`GrepResults`]); `glob`'s keeps the sentence.
//! - **ripgrep's line forms.** `N:text` for a match, `N-text` for a context line, in one
//!   list per file; `--` between groups that are not adjacent in the text only when context
//!   lines were asked for, as ripgrep prints it.
//! - **No pattern can hang the agent.** A regex above [`SearchConfig::regex_size_limit`]
//!   is refused when built; the search stops a little before the call's deadline (or at a
//!   cancellation), within one search step even inside a large file, and answers with what it
//!   found, saying so. An invalid regex is a `validation_error` quoting the regex error, with
//!   an example.
//! - **Speed.** `benches/search_vs_rg.rs` times the tools against `rg` (and `fd`) on a
//!   `cargo vendor` of this workspace's dependencies (552 MB, 21,000 files) in the same run.
//!   On 2 shared cores with ripgrep 13.0.0 (two runs), median wall time as a ratio of rg's:
//!   counting every match 0.79x-0.93x (literal, regex, case-insensitive, no match),
//!   `files_with_matches` 0.94x-0.96x, the first 50 matches 0.22x-0.25x (the search stops
//!   early; rg cannot), `glob **/*.rs` 0.78x-0.87x of `rg --files -g` and 0.89x-1.02x of `fd`.
//! - **Bounded output.** At most `max_results` results, lines cut around the match at
//!   [`SearchConfig::max_line_chars`], and [`SearchConfig::max_output_chars`] in all.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use tool_core::{Registry, Runtime, ToolCall};
//! use tool_std::workspace::Workspace;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir(dir.path().join("src"))?;
//! std::fs::write(dir.path().join("src/main.rs"), "fn main() {\n    run();\n}\n")?;
//! std::fs::write(dir.path().join("src/lib.rs"), "pub fn run() {}\n")?;
//! let ws = Workspace::builder().root("app", dir.path()).build()?;
//! let registry = Registry::builder().with_inventory().build()?;
//! let session = Runtime::builder(registry).service(Arc::new(ws)).build().session();
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let outcome = session
//!     .call(ToolCall::new("1", "grep", r#"{"pattern": "fn\\s+\\w+"}"#))
//!     .await;
//! let found = outcome.to_json();
//! assert_eq!(found["type"], "grep_results");
//! // Each file's lines, `N:text` for a match.
//! assert_eq!(found["matches"]["src/lib.rs"], serde_json::json!(["1:pub fn run() {}"]));
//! assert_eq!(found["matches"]["src/main.rs"], serde_json::json!(["1:fn main() {"]));
//! assert_eq!((found["total_matches"].as_u64(), found["exact"].as_bool()), (Some(2), Some(true)));
//! // The text for the model ends with the summary line.
//! let text = outcome.model_text(&mut tool_core::ResourcesTracker::new());
//! assert!(text.ends_with("\n\nFound 2 matches in 2 files.\n"), "{text}");
//!
//! let files = session
//!     .call(ToolCall::new("2", "glob", r#"{"pattern": "**/*.rs"}"#))
//!     .await
//!     .to_json();
//! assert_eq!(files["files"], serde_json::json!(["src/lib.rs", "src/main.rs"]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod config;
mod detail;
mod engine;
pub mod glob;
pub mod grep;
pub mod literal;
mod matcher;
pub mod results;
mod scan;
mod walk;

pub use config::SearchConfig;
pub use glob::{GlobResults, GlobSort};
pub use grep::OutputMode;
pub use results::{GrepResults, Skipped};

use tool_core::ToolError;

/// Reports a long search's progress on the call's activity: the display message ("Searched
/// 1200 of 5000 files") and `files_listed` / `files_searched` in its data.
fn progress(ctx: &tool_core::ToolContext) -> impl Fn(u64, u64) + Sync + '_ {
    move |listed, searched| {
        ctx.progress(if searched == 0 {
            format!("Listing files: {listed} found")
        } else {
            format!("Searched {searched} of {listed} files")
        });
        let mut data = serde_json::Map::new();
        data.insert("files_listed".into(), listed.into());
        data.insert("files_searched".into(), searched.into());
        ctx.update_data(data);
    }
}

/// The most a search streams as output chunks while it runs (the answer has everything).
pub const MAX_STREAMED_BYTES: usize = 16 * 1024;

/// Streams what a search finds as it finds it, as `TOOL_OUTPUT_CHUNK` events: a line per file
/// (`path (N matches)`, or the path alone for a file found by its name), in the order the
/// search threads find them, at most [`MAX_STREAMED_BYTES`], then one line saying the rest is
/// in the answer. The answer itself is ordered and complete as before.
fn stream(ctx: &tool_core::ToolContext) -> impl Fn(&std::path::Path, u64) + Sync + '_ {
    let sent = std::sync::atomic::AtomicUsize::new(0);
    move |path, count| {
        use std::sync::atomic::Ordering;
        if sent.load(Ordering::Relaxed) > MAX_STREAMED_BYTES {
            return;
        }
        let line = match count {
            0 => format!("{}\n", path.display()),
            1 => format!("{} (1 match)\n", path.display()),
            n => format!("{} ({n} matches)\n", path.display()),
        };
        let before = sent.fetch_add(line.len(), Ordering::Relaxed);
        if before + line.len() <= MAX_STREAMED_BYTES {
            ctx.emit_chunk(line);
        } else if before <= MAX_STREAMED_BYTES {
            ctx.emit_chunk("… (more in the answer)\n");
        }
    }
}

/// Runs blocking search work off the async threads.
async fn blocking<T, F>(f: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ToolError::system(format!("the search stopped unexpectedly: {e}")))?
}
