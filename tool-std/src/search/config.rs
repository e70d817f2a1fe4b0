//! [`SearchConfig`]: the limits and defaults of the search tools, a host service.
//!
//! Every number here bounds something a model could otherwise make unbounded: the size of a
//! file searched, the results one call returns, the characters of a line shown, the size of a
//! compiled regex. A host that wants other limits puts its own `SearchConfig` in the runtime's
//! services; without one the tools use [`SearchConfig::default`], whose values follow seed 003
//! (files above 1 MB skipped, 50 grep results, 100 glob results).

use std::sync::Arc;

use tool_core::ToolContext;

/// The limits of `grep`, `glob` and `search`. Put one in the runtime's services to change them.
///
/// ```
/// use std::sync::Arc;
/// use tool_std::search::SearchConfig;
///
/// let mut config = SearchConfig::default();
/// config.max_file_bytes = 4 * 1024 * 1024;
/// let registry = tool_core::Registry::builder().with_inventory().build()?;
/// let _runtime = tool_core::Runtime::builder(registry).service(Arc::new(config)).build();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchConfig {
    /// Files larger than this are skipped, and counted as skipped (seed 003: 1 MB).
    pub max_file_bytes: u64,
    /// Results `grep` and `search` return when the call gives no `max_results` (seed 003: 50).
    pub default_grep_results: usize,
    /// The largest `max_results` a `grep` or `search` call may ask for.
    pub max_grep_results: usize,
    /// Files `glob` returns when the call gives no `max_results` (seed 003: 100).
    pub default_glob_results: usize,
    /// The largest `max_results` a `glob` call may ask for.
    pub max_glob_results: usize,
    /// Characters of one line shown; a longer line is cut around its first match.
    pub max_line_chars: usize,
    /// The most context lines (`before`, `after`, `context`) a call may ask for.
    pub max_context: usize,
    /// Characters of matched and context text one call returns in all; past it the results
    /// stop and say how to page on.
    pub max_output_chars: usize,
    /// The compiled size limit of a regex (bytes): a pattern such as `(a{1000}){1000}` is
    /// refused instead of being built.
    pub regex_size_limit: usize,
    /// The lazy DFA's cache per search thread (bytes). A pattern that outgrows it falls
    /// back to slower engines rather than taking more memory.
    pub dfa_size_limit: usize,
    /// Files a walk looks at in all before it stops (a guard against a root holding
    /// millions of files); past it the totals are lower bounds.
    pub max_files_scanned: usize,
    /// Threads a search uses; 0 picks the number of cores (at most 12, as ripgrep does).
    pub threads: usize,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            max_file_bytes: 1024 * 1024,
            default_grep_results: 50,
            max_grep_results: 1_000,
            default_glob_results: 100,
            max_glob_results: 5_000,
            max_line_chars: 500,
            max_context: 10,
            max_output_chars: 100_000,
            regex_size_limit: 10 * 1024 * 1024,
            dfa_size_limit: 64 * 1024 * 1024,
            max_files_scanned: 2_000_000,
            threads: 0,
        }
    }
}

impl SearchConfig {
    /// The host's configuration, or the defaults.
    pub fn of(ctx: &ToolContext) -> Arc<SearchConfig> {
        ctx.service_or_default()
    }

    /// The number of threads a search uses.
    pub fn thread_count(&self) -> usize {
        if self.threads > 0 {
            return self.threads;
        }
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(12)
    }
}
