//! `read_file` (aliases `read`, `read_files`): one or many files, numbered like `cat -n`.
//!
//! A path may carry a line range (`src/main.rs:10-20`, `src/main.rs:10-`, seed 001), or the call
//! gives `offset` (first line, 1-based) and `limit` (lines) for every path (seed 004). Without
//! either a file is read from line 1, at most [`FileConfig::default_read_lines`] lines of at
//! most [`FileConfig::max_line_chars`] characters, and whatever is left out is stated with the
//! call that reads on. One call returns at most [`FileConfig::max_output_chars`] characters of
//! file content in all. Binary files are refused; a path that fails is reported beside the
//! others. The content of a file already shown in the conversation is not repeated (the
//! [`ResourcesTracker`]).
//!
//! Every file comes with its [`Version`](crate::workspace::Version), the hash of its whole
//! content whatever range was read, which the edit tools take back as `expected_version`
//! (files larger than [`FileConfig::max_edit_bytes`], which no edit tool loads, have none:
//! hashing them would cost a read of the whole file for every range). Every read is also
//! recorded in the workspace, for the check of edits that carry no version.
//!
//! A file's content is text by nature; the tool still declares an output schema, because a
//! program needs the range, the line count, the version and the failures as fields, and the
//! structured form costs less than the text: the text numbers every line like `cat -n`, the
//! structured `content` gives the lines bare with `start_line` (on the token benchmark's
//! fixtures, 765 `o200k_base` tokens against 869 for an 80-line range, 3,432 against 4,210 for
//! a 352-line file).

use std::io::{Read, Seek};

use serde::{Deserialize, Serialize};
use tool_core::{Image, Render, ResourcesTracker, ToolContext, ToolError, ToolResult};
use tool_macros::tool;

use super::config::FileConfig;
use super::edit::blocking;
pub use super::media::ImageInfo;
use super::media::{self, Media};
use super::reader::{Excerpt, LineRange, ReadLimits, Stop, numbered, read_lines};
use crate::workspace::{StampingReader, Workspace};

/// One file read.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FileContent {
    /// The path as shown to the model.
    pub path: String,
    /// The lines as they are in the file (each ending in a newline; a line longer than the
    /// limit cut with a note), from `start_line` on. The text content numbers them like
    /// `cat -n`; here they are bare, so a program gets the file's own text and the answer
    /// costs no more than the text.
    pub content: String,
    /// The first line returned (1-based).
    pub start_line: usize,
    /// The last line returned (`start_line - 1` when none was).
    pub end_line: usize,
    /// The file's line count, when known (a huge file read in part leaves it unknown).
    pub total_lines: Option<usize>,
    /// The version of the whole file (the first 12 hex digits of the SHA-256 of its content):
    /// pass it as `expected_version` to an edit. `null` for a file too large to edit.
    pub version: Option<String>,
    /// Whether lines of the file were left out (after the range, or by a cap).
    pub truncated: bool,
    /// An estimate of the tokens of `content` (characters / 4).
    pub tokens: usize,
    /// What was left out and how to read on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// For an image or a PDF, its media type (`image/png`, `application/pdf`); absent for
    /// text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// For an image, what was sent (the image itself goes beside the text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageInfo>,
    /// For a PDF, the pages read (`"2-3"`); `content` holds their text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<String>,
    /// For a PDF, its number of pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_pages: Option<usize>,
    /// The resource this excerpt is, for de-duplication ([`resource_id`]); made again from
    /// the fields above when read back from JSON.
    #[serde(skip)]
    resource: String,
    #[serde(skip)]
    capped: bool,
    #[serde(skip)]
    shown_len: usize,
}

/// A path that could not be read.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FailedRead {
    /// The path as given.
    pub path: String,
    /// The error's kind (`not_found`, `security_error`, `user_error`...).
    pub error_type: String,
    /// What went wrong.
    pub error: String,
}

/// The answer of `read_file`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FilesRead {
    /// Always `files_read`.
    pub r#type: &'static str,
    /// How many files were read.
    pub files_read: usize,
    /// The files read, in the order asked.
    pub files: Vec<FileContent>,
    /// The paths that failed; the others were still read.
    pub failed: Vec<FailedRead>,
    /// The images read, sent beside the text ([`Render::images`]); not part of the JSON.
    #[serde(skip)]
    images: Vec<Image>,
}

impl FilesRead {
    /// Reads a `files_read` answer back from its JSON (as a host stored it: the structured
    /// result, or an activity record's `data`), with each file's resource id made again, so
    /// that it renders as it did ([`ResourcesTracker::render_history`]).
    ///
    /// # Errors
    ///
    /// The JSON is not a `files_read` answer.
    pub fn from_json(value: &serde_json::Value) -> Result<FilesRead, serde_json::Error> {
        #[derive(Deserialize)]
        struct Stored {
            r#type: String,
            files_read: usize,
            files: Vec<FileContent>,
            #[serde(default)]
            failed: Vec<FailedRead>,
        }
        let stored = Stored::deserialize(value)?;
        if stored.r#type != "files_read" {
            return Err(serde::de::Error::custom(format!(
                "a `{}` answer, not `files_read`",
                stored.r#type
            )));
        }
        let mut files = stored.files;
        for f in &mut files {
            f.resource = resource_id(&f.path, f.start_line, f.end_line, &f.content);
        }
        Ok(FilesRead {
            r#type: "files_read",
            files_read: stored.files_read,
            files,
            failed: stored.failed,
            images: Vec::new(),
        })
    }
}

/// The resource an excerpt is: the path as shown (which names its project unless it is the
/// first one), the lines and a hash of their text; made from the answer's own fields, so the
/// same id comes back from stored JSON.
fn resource_id(shown: &str, first: usize, last: usize, content: &str) -> String {
    ResourcesTracker::file_id("", &format!("{shown}:{first}-{last}"), content)
}

impl Render for FilesRead {
    fn status(&self) -> Option<String> {
        Some(if self.failed.is_empty() {
            format!("Successfully loaded {} file(s)", self.files_read)
        } else {
            format!(
                "Loaded {} file(s), failed to load {} file(s)",
                self.files_read,
                self.failed.len()
            )
        })
    }

    fn render(&self, tracker: &mut ResourcesTracker) -> Option<String> {
        let mut out = String::new();
        for f in &self.failed {
            out.push_str(&format!("Failed to load `{}`: {}\n", f.path, f.error));
        }
        for f in &self.files {
            if let Some(image) = &f.image {
                let scaled = image
                    .scaled_from
                    .map(|[w, h]| format!("; scaled down from {w}x{h}"))
                    .unwrap_or_default();
                out.push_str(&format!(
                    ">>>>> IMAGE: {} ({}, {}x{}, {} bytes{scaled}; the image follows this text)\n",
                    f.path,
                    f.media_type.as_deref().unwrap_or("image"),
                    image.width,
                    image.height,
                    image.bytes
                ));
                continue;
            }
            if let (Some(pages), Some(total)) = (&f.pages, f.total_pages) {
                out.push_str(&format!(
                    ">>>>> FILE: {} (PDF, pages {pages} of {total}, ~{} tokens)\n{}<<<<< END FILE\n",
                    f.path, f.tokens, f.content
                ));
                if let Some(note) = &f.note {
                    out.push_str(note);
                    out.push('\n');
                }
                continue;
            }
            let lines = match f.total_lines {
                Some(total) => format!("lines {}-{} of {total}", f.start_line, f.end_line),
                None => format!("lines {}-{}", f.start_line, f.end_line),
            };
            let version = f
                .version
                .as_ref()
                .map(|v| format!(", version: {v}"))
                .unwrap_or_default();
            if tracker.show(f.resource.clone()) {
                out.push_str(&format!(
                    ">>>>> FILE: {} ({lines}, ~{} tokens{version})\n{}<<<<< END FILE\n",
                    f.path,
                    f.tokens,
                    numbered(&f.content, f.start_line)
                ));
            } else {
                out.push_str(&format!(
                    ">>>>> FILE: {} ({lines}{version}; content shown in another tool invocation)\n<<<<< END FILE\n",
                    f.path
                ));
            }
            if let Some(note) = &f.note {
                out.push_str(note);
                out.push('\n');
            }
        }
        Some(out)
    }

    fn is_success(&self) -> bool {
        self.files_read > 0 || self.failed.is_empty()
    }

    fn images(&self) -> Vec<Image> {
        self.images.clone()
    }
}

/// A path with an optional `:A-B` line range.
pub(crate) fn split_range(spec: &str) -> (&str, Option<(usize, Option<usize>)>) {
    let Some((path, range)) = spec.rsplit_once(':') else {
        return (spec, None);
    };
    let (a, b) = match range.split_once('-') {
        Some((a, b)) => (a, Some(b)),
        None => (range, None),
    };
    let Ok(start) = a.trim().parse::<usize>() else {
        return (spec, None);
    };
    let end = match b.map(str::trim) {
        None => Some(start),
        Some("") => None,
        Some(b) => match b.parse::<usize>() {
            Ok(e) => Some(e),
            Err(_) => return (spec, None),
        },
    };
    (path, Some((start.max(1), end)))
}

/// Reads one path of the call.
fn read_one(
    ws: &Workspace,
    config: &FileConfig,
    spec: &str,
    options: &ReadOptions,
    budget: usize,
) -> Result<(FileContent, Option<Image>), ToolError> {
    let (offset, limit) = (options.offset, options.limit);
    let (path, range) = split_range(spec);
    let p = ws.resolve(path)?;
    let opened = ws.open_file(&p)?;
    let shown = p.to_string();
    if let Some(found) = sniffed(&opened.file, &shown)? {
        return read_media(config, opened, shown, found, options);
    }
    if options.pages.is_some() {
        return Err(ToolError::validation(format!(
            "pages is for PDF files, and `{shown}` is none; read a text file's lines with \
             offset and limit"
        )));
    }
    let cap_lines = |n: usize| n.clamp(1, config.max_read_lines);
    let range = match range {
        Some((start, Some(end))) => {
            if end < start {
                return Err(ToolError::validation(format!(
                    "line range {start}-{end} of `{shown}` ends before it starts"
                )));
            }
            LineRange {
                start,
                max_lines: cap_lines(end - start + 1),
            }
        }
        Some((start, None)) => LineRange {
            start,
            max_lines: cap_lines(config.default_read_lines),
        },
        None => LineRange {
            start: offset.unwrap_or(1).max(1),
            max_lines: match limit {
                Some(0) | None => cap_lines(config.default_read_lines),
                Some(n) => cap_lines(n),
            },
        },
    };
    // A file unchanged since it was stamped keeps its stamp: nothing past the range is read.
    let known = ws.settled_stamp(&opened.path, &opened.info);
    let limits = ReadLimits {
        max_line_chars: config.max_line_chars,
        budget,
        sniff: config.binary_sniff_bytes,
        count_rest_up_to: 8 * 1024 * 1024,
        known_lines: known.map(|s| s.lines),
    };
    // Else the version hashes every byte as the range is read, then the rest of the file.
    let (excerpt, stamp) = if let Some(stamp) = known {
        let excerpt = read_lines(&shown, &opened.file, opened.info.len, range, limits)?;
        (excerpt, Some(stamp))
    } else if opened.info.len <= config.max_edit_bytes {
        let mut reader = StampingReader::new(&opened.file);
        let excerpt = read_lines(&shown, &mut reader, opened.info.len, range, limits)?;
        let stamp = reader
            .finish_within(config.max_edit_bytes)
            .map_err(|e| ToolError::system(format!("reading `{shown}` failed: {e}")))?;
        (excerpt, stamp)
    } else {
        let excerpt = read_lines(&shown, &opened.file, opened.info.len, range, limits)?;
        (excerpt, None)
    };
    ws.record_seen(&opened.path, &opened.info, stamp);
    let note = note(&shown, config, &excerpt, range);
    let resource = resource_id(&shown, excerpt.first, excerpt.last, &excerpt.content);
    let file = FileContent {
        path: shown,
        truncated: excerpt.stop != Stop::End || excerpt.long_lines > 0,
        start_line: excerpt.first,
        end_line: excerpt.last,
        total_lines: excerpt.total_lines,
        version: stamp.map(|s| s.version.to_string()),
        tokens: excerpt.tokens,
        shown_len: excerpt.shown_len,
        content: excerpt.content,
        note,
        media_type: None,
        image: None,
        pages: None,
        total_pages: None,
        resource,
        capped: excerpt.stop == Stop::Cap,
    };
    Ok((file, None))
}

/// What the file's first bytes say it is, if an image or a PDF; the file is read from its
/// start again after.
fn sniffed(file: &std::fs::File, shown: &str) -> Result<Option<Media>, ToolError> {
    let io = |e: std::io::Error| ToolError::system(format!("reading `{shown}` failed: {e}"));
    let mut head = Vec::with_capacity(media::SNIFF_BYTES);
    let mut f = file;
    f.take(media::SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    f.rewind().map_err(io)?;
    Ok(media::sniff(&head))
}

/// Reads an image or a PDF ([`media`]).
fn read_media(
    config: &FileConfig,
    opened: crate::workspace::OpenFile,
    shown: String,
    found: Media,
    options: &ReadOptions,
) -> Result<(FileContent, Option<Image>), ToolError> {
    let max = match found {
        Media::Image(_) => config.max_image_file_bytes,
        Media::Pdf => config.max_pdf_bytes,
    };
    let kind = media::media_type_of(found);
    if opened.info.len > max {
        return Err(ToolError::user(format!(
            "`{shown}` is a {kind} file of {} bytes; read_file reads at most {max}",
            opened.info.len
        ))
        .with_field("max_bytes", max));
    }
    let mut bytes = Vec::new();
    (&opened.file)
        .take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::system(format!("reading `{shown}` failed: {e}")))?;
    let mut file = FileContent {
        path: shown.clone(),
        content: String::new(),
        start_line: 1,
        end_line: 0,
        total_lines: None,
        version: None,
        truncated: false,
        tokens: 0,
        note: None,
        media_type: Some(kind.to_owned()),
        image: None,
        pages: None,
        total_pages: None,
        resource: String::new(),
        capped: false,
        shown_len: 0,
    };
    match found {
        Media::Image(format) => {
            if options.pages.is_some() {
                return Err(ToolError::validation(format!(
                    "pages is for PDF files, and `{shown}` is an image"
                )));
            }
            let (info, image) = media::image(&shown, bytes, format, config)?;
            file.image = Some(info);
            Ok((file, Some(image)))
        }
        Media::Pdf => {
            let range = options
                .pages
                .as_deref()
                .map(media::parse_pages)
                .transpose()?;
            let read = media::pdf(&shown, &bytes, range, config)?;
            let pages = if read.first == read.last {
                read.first.to_string()
            } else {
                format!("{}-{}", read.first, read.last)
            };
            if read.last < read.total {
                let next = read.last + 1;
                let cap = if read.cut {
                    format!(" (at most {} pages per call)", config.max_pdf_pages)
                } else {
                    String::new()
                };
                file.note = Some(format!(
                    "Read pages {pages} of {}{cap}; read on with pages=\"{next}-{}\".",
                    read.total,
                    (next + config.max_pdf_pages - 1).min(read.total)
                ));
            }
            file.truncated = read.last < read.total;
            file.end_line = read.text.lines().count();
            file.tokens = read.text.chars().count() / 4;
            file.shown_len = read.text.len();
            file.resource = resource_id(&shown, read.first, read.last, &read.text);
            file.content = read.text;
            file.pages = Some(pages);
            file.total_pages = Some(read.total);
            Ok((file, None))
        }
    }
}

/// What a read left out and the call that reads on.
fn note(shown: &str, config: &FileConfig, e: &Excerpt, range: LineRange) -> Option<String> {
    let mut notes = Vec::new();
    let next = e.last + 1;
    let of_total = e
        .total_lines
        .map(|t| format!(" of {t}"))
        .unwrap_or_default();
    match e.stop {
        Stop::End if e.last < e.first && e.first > 1 => notes.push(format!(
            "The file has {} lines; line {} is past its end.",
            e.first - 1,
            range.start
        )),
        Stop::End if e.last < e.first => notes.push("(empty file)".to_owned()),
        Stop::End => {}
        Stop::Lines => notes.push(format!(
            "Showing lines {}-{}{of_total}; more lines follow. Read on with offset={next} (or `{shown}:{next}-`).",
            e.first, e.last
        )),
        Stop::Cap => notes.push(format!(
            "Output cap of {} characters per call reached after line {}{of_total}. Read on with offset={next} and a smaller limit (or `{shown}:{next}-{}`).",
            config.max_output_chars,
            e.last,
            next + 199
        )),
    }
    if e.long_lines > 0 {
        notes.push(format!(
            "{} line(s) longer than {} characters were cut; see them whole with the bash tool (`cut -c`, `fold`).",
            e.long_lines, config.max_line_chars
        ));
    }
    (!notes.is_empty()).then(|| notes.join(" "))
}

/// How [`read_files_with`] reads: the tool's parameters besides the paths.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ReadOptions {
    /// The first line of every text file (1-based).
    pub offset: Option<usize>,
    /// Lines per text file.
    pub limit: Option<usize>,
    /// The pages of every PDF: `"3"` or `"2-5"`.
    pub pages: Option<String>,
}

/// Reads every path of a call (see the [module documentation](self)); PDFs from their
/// first page.
pub fn read_files(
    ws: &Workspace,
    config: &FileConfig,
    paths: &[String],
    offset: Option<usize>,
    limit: Option<usize>,
) -> Result<FilesRead, ToolError> {
    let options = ReadOptions {
        offset,
        limit,
        pages: None,
    };
    read_files_with(ws, config, paths, &options)
}

/// Reads every path of a call with all of the tool's options.
pub fn read_files_with(
    ws: &Workspace,
    config: &FileConfig,
    paths: &[String],
    options: &ReadOptions,
) -> Result<FilesRead, ToolError> {
    if paths.is_empty() {
        return Err(
            ToolError::validation("paths is empty; name at least one file")
                .with_suggestion(r#"Example: read_file(paths=["src/main.rs", "README.md:1-40"])"#),
        );
    }
    if paths.len() > config.max_files_per_read {
        return Err(ToolError::validation(format!(
            "{} paths given; one call reads at most {}",
            paths.len(),
            config.max_files_per_read
        ))
        .with_suggestion("Split the paths over several calls."));
    }
    let mut budget = config.max_output_chars;
    let mut files = Vec::new();
    let mut images = Vec::new();
    let mut failed = Vec::new();
    let mut first_error = None;
    for spec in paths {
        if budget == 0 {
            failed.push(FailedRead {
                path: spec.clone(),
                error_type: "user_error".to_owned(),
                error: format!(
                    "not read: this call's output cap of {} characters was reached; read it in another call",
                    config.max_output_chars
                ),
            });
            continue;
        }
        match read_one(ws, config, spec, options, budget) {
            Ok((f, image)) => {
                images.extend(image);
                budget = if f.capped {
                    0
                } else {
                    budget.saturating_sub(f.shown_len)
                };
                files.push(f);
            }
            Err(e) => {
                failed.push(FailedRead {
                    path: spec.clone(),
                    error_type: e.kind().as_str().to_owned(),
                    error: e.message().to_owned(),
                });
                first_error.get_or_insert(e);
            }
        }
    }
    if let (true, 1, Some(e)) = (files.is_empty(), failed.len(), first_error) {
        // One path, one failure: answer with the error itself (its kind and suggestion).
        return Err(e);
    }
    Ok(FilesRead {
        r#type: "files_read",
        files_read: files.len(),
        files,
        failed,
        images,
    })
}

/// Read one or more text files, with line numbers.
#[tool(
    name = "read_file",
    description = "Read files; text numbered like `cat -n`, by default at most 2,000 lines of 2,000 characters per file (the answer says how to read on), with a version that edits take as expected_version. Images are shown; PDFs give their text.",
    category = "file_reading",
    toolsets(file),
    permissions(read_files),
    read_only,
    aliases(read, read_files)
)]
pub async fn read_file(
    ctx: &ToolContext,
    /// Each may name a line range: `path:10-20`, `path:100-`.
    #[param(alias = "file_paths", alias = "file_path")]
    paths: Vec<String>,
    /// First line, 1-based.
    offset: Option<usize>,
    /// Lines per file (default 2,000).
    limit: Option<usize>,
    /// PDF pages, e.g. "2-3".
    pages: Option<String>,
) -> ToolResult<FilesRead> {
    if limit == Some(0) {
        return Err(ToolError::validation(
            "limit is 0, which would read no line; give the lines to read per file (at least \
             1), or leave limit out to read up to 2,000",
        )
        .with_field("limit", 0)
        .with_suggestion("Leave limit out, or give a number of lines such as 200."));
    }
    let ws = ctx.require_service::<Workspace>()?;
    let config = FileConfig::of(ctx);
    let options = ReadOptions {
        offset,
        limit,
        pages,
    };
    blocking(move || read_files_with(&ws, &config, &paths, &options)).await
}

#[cfg(test)]
mod tests {
    use super::split_range;

    #[test]
    fn ranges() {
        assert_eq!(split_range("a.rs:10-20"), ("a.rs", Some((10, Some(20)))));
        assert_eq!(split_range("a.rs:10-"), ("a.rs", Some((10, None))));
        assert_eq!(split_range("a.rs:7"), ("a.rs", Some((7, Some(7)))));
        assert_eq!(
            split_range("docs:a.rs:1-2"),
            ("docs:a.rs", Some((1, Some(2))))
        );
        assert_eq!(split_range("docs:a.rs"), ("docs:a.rs", None));
        assert_eq!(split_range("a.rs:x-1"), ("a.rs:x-1", None));
    }
}
