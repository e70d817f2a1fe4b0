//! [`FileConfig`]: the limits of the file tools, a host service.
//!
//! Every number here bounds something a model could otherwise make unbounded: lines and
//! characters returned by a read, entries listed, the size of a file an edit loads, the size of
//! a diff. A host that wants other limits puts its own `FileConfig` in the runtime's services;
//! without one the tools use [`FileConfig::default`], whose values follow seeds 003 and 004
//! (2,000 lines of at most 2,000 characters per read).

use std::sync::Arc;

use tool_core::ToolContext;

/// The limits of the file tools. Put one in the runtime's services to change them.
///
/// ```
/// use std::sync::Arc;
/// use tool_std::file::FileConfig;
///
/// let mut config = FileConfig::default();
/// config.max_output_chars = 20_000;
/// let registry = tool_core::Registry::builder().with_inventory().build()?;
/// let _runtime = tool_core::Runtime::builder(registry).service(Arc::new(config)).build();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileConfig {
    /// Lines one file read returns when the call gives no `limit` (seed 004: 2,000).
    pub default_read_lines: usize,
    /// The largest `limit` a call may ask for.
    pub max_read_lines: usize,
    /// Characters of one line shown; longer lines are cut with a note (2,000).
    pub max_line_chars: usize,
    /// Characters of file content one call returns in all (every file of a read, every entry
    /// of a listing, a diff). Past it the output stops and says how to read on.
    pub max_output_chars: usize,
    /// Paths one `read_file` call may name.
    pub max_files_per_read: usize,
    /// Bytes sniffed at the start of a file to tell binary from text.
    pub binary_sniff_bytes: usize,
    /// The largest file an edit (`replace_in_file`, `edit_lines`, `append_file`, the
    /// line-ending check of `update_file`) loads whole; also the largest file `read_file`
    /// gives a version for (and `delete_file` checks one against).
    pub max_edit_bytes: u64,
    /// The largest `content` a write accepts (the runtime's limit on a call's arguments,
    /// 4 MiB of JSON, applies first).
    pub max_write_bytes: usize,
    /// Characters of a diff returned with an edit.
    pub max_diff_chars: usize,
    /// `list_directory`'s depth when the call gives none (1: the directory's own entries).
    pub default_list_depth: usize,
    /// The deepest `depth` a listing may ask for.
    pub max_list_depth: usize,
    /// Entries a listing returns when the call gives no `limit`.
    pub default_list_limit: usize,
    /// The largest `limit` a listing may ask for.
    pub max_list_limit: usize,
    /// Entries a listing looks at in all (shown or counted as "N more") before it stops
    /// counting.
    pub max_list_scan: usize,
    /// Paths one `delete_file` call may name.
    pub max_files_per_delete: usize,
    /// Matches one `replace_in_file` reports line numbers for in an ambiguity error.
    pub max_reported_matches: usize,
    /// The largest image file `read_file` reads (default 20 MiB); a larger one is refused.
    pub max_image_file_bytes: u64,
    /// The longest edge, in pixels, of an image sent as it is (default 1,568, the size past
    /// which Anthropic's models scale images down themselves); a larger image is scaled down
    /// to it.
    pub max_image_edge: u32,
    /// The most bytes of one image sent (default 3,750,000, which base64 makes 5 MB: the
    /// most Anthropic's API takes); a larger image is scaled down until it fits.
    pub max_image_send_bytes: usize,
    /// The largest PDF `read_file` reads (default 32 MiB).
    pub max_pdf_bytes: u64,
    /// The most PDF pages one call reads (default 20).
    pub max_pdf_pages: usize,
}

impl Default for FileConfig {
    fn default() -> Self {
        FileConfig {
            default_read_lines: 2_000,
            max_read_lines: 10_000,
            max_line_chars: 2_000,
            max_output_chars: 100_000,
            max_files_per_read: 50,
            binary_sniff_bytes: 8_192,
            max_edit_bytes: 64 * 1024 * 1024,
            max_write_bytes: 4 * 1024 * 1024,
            max_diff_chars: 20_000,
            default_list_depth: 1,
            max_list_depth: 10,
            default_list_limit: 500,
            max_list_limit: 5_000,
            max_list_scan: 100_000,
            max_files_per_delete: 100,
            max_reported_matches: 100,
            max_image_file_bytes: 20 * 1024 * 1024,
            max_image_edge: 1_568,
            max_image_send_bytes: 3_750_000,
            max_pdf_bytes: 32 * 1024 * 1024,
            max_pdf_pages: 20,
        }
    }
}

impl FileConfig {
    /// The host's configuration, or the defaults.
    pub fn of(ctx: &ToolContext) -> Arc<FileConfig> {
        ctx.service_or_default()
    }
}
