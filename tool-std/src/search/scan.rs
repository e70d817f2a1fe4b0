//! The search proper: every candidate file read beneath its root's handle and searched with
//! ripgrep's searcher, on all cores, counting matches; stopping once the files before some
//! point (in path order) hold everything the call will return.
//!
//! Files are taken in path order by a shared counter, so the first files finish first; a
//! file's count goes into its slot, and the count of the longest finished prefix grows as
//! slots fill. When that prefix holds `need` results, no later file is started, and the files
//! of the prefix are exactly the ones a sequential search would have reported first: the
//! answer is the same on every run and every machine, and the total it gives is then a lower
//! bound (the prefix's), said as such.

use std::io::Read;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::fs::{Dir, OpenOptions};
use grep_matcher::Matcher;
use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};

use super::matcher::{Stop, Stoppable};
use super::walk::Candidate;

/// What to count per file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    /// Matching lines (in multiline mode, matches): `content` and `count` output.
    Matches,
    /// Files with at least one match: `files_with_matches` output (a file's search stops at
    /// its first match).
    Files,
    /// Files with at least one match, each with all its matches counted: `count` output.
    CountedFiles,
}

/// How a file read went.
pub(crate) enum Loaded {
    /// Its bytes are in the buffer.
    Text,
    /// Larger than the limit.
    TooLarge,
    /// Binary (a NUL byte).
    Binary,
    /// Could not be opened or read (gone, not a regular file, no permission).
    Unreadable,
}

/// Whether the buffer starts with a UTF-16 byte-order mark: the searcher transcodes such a
/// file before looking for NUL bytes, as ripgrep does.
fn utf16_bom(buf: &[u8]) -> bool {
    buf.starts_with(&[0xFF, 0xFE]) || buf.starts_with(&[0xFE, 0xFF])
}

/// Reads a file beneath the root's handle (no link followed at its end; none leading out
/// anywhere) into `buf`, unless it is larger than `max` bytes or binary.
pub(crate) fn load(root: &Dir, rel: &Path, max: u64, buf: &mut Vec<u8>) -> Loaded {
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No).nonblock(true);
    let Ok(file) = root.open_with(rel, &options) else {
        return Loaded::Unreadable;
    };
    let Ok(meta) = file.metadata() else {
        return Loaded::Unreadable;
    };
    if !meta.is_file() {
        return Loaded::Unreadable;
    }
    if meta.len() > max {
        return Loaded::TooLarge;
    }
    buf.clear();
    let want = usize::try_from(meta.len()).unwrap_or(0).saturating_add(1);
    if buf.capacity() < want {
        buf.reserve(want);
    }
    if file.into_std().take(max + 1).read_to_end(buf).is_err() {
        return Loaded::Unreadable;
    }
    if buf.len() as u64 > max {
        return Loaded::TooLarge;
    }
    if !utf16_bom(buf) && memchr::memchr(0, buf).is_some() {
        return Loaded::Binary;
    }
    Loaded::Text
}

/// A searcher as ripgrep sets one up for files found by a walk: binary files quit (only
/// reached for transcoded files; others are checked before), line numbers when asked.
pub(crate) fn searcher(multiline: bool, line_numbers: bool) -> Searcher {
    SearcherBuilder::new()
        .multi_line(multiline)
        .line_number(line_numbers)
        .binary_detection(BinaryDetection::quit(b'\0'))
        .build()
}

/// Up to this size a buffer is searched as one slice (the fastest path); a larger one goes
/// through the searcher's reader path, which hands the matcher at most this much at a time,
/// so a stop is seen within one such step even in a large file.
const SLICE_BYTES: usize = 64 * 1024;

/// Searches a loaded buffer (see [`SLICE_BYTES`]). A multiline search needs the whole buffer
/// at once; a UTF-16 file is transcoded by the reader path.
pub(crate) fn search_buffer<S: Sink>(
    searcher: &mut Searcher,
    matcher: &Stoppable<'_>,
    buf: &[u8],
    sink: S,
) -> Result<(), S::Error> {
    if utf16_bom(buf) || (buf.len() > SLICE_BYTES && !searcher.multi_line()) {
        searcher.search_reader(matcher, buf, sink)
    } else {
        searcher.search_slice(matcher, buf, sink)
    }
}

/// Counts a file's matches.
struct CountSink<'a> {
    matcher: &'a RegexMatcher,
    multiline: bool,
    first_only: bool,
    count: u64,
    binary: bool,
}

impl Sink for CountSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        if self.multiline {
            // One region may hold several matches; count each, as `rg --count` does in
            // multiline mode.
            let mut n = 0u64;
            let _ = self.matcher.find_iter(m.bytes(), |_| {
                n += 1;
                true
            });
            self.count += n.max(1);
        } else {
            self.count += 1;
        }
        Ok(!self.first_only)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, std::io::Error> {
        self.binary = true;
        Ok(false)
    }
}

/// What the scan found.
#[derive(Debug, Default)]
pub(crate) struct Scanned {
    /// `(index into the candidates, matches)` of each file with matches, in path order.
    pub(crate) hits: Vec<(usize, u64)>,
    /// Whether every file was searched (else the totals are lower bounds).
    pub(crate) complete: bool,
    /// Files searched.
    pub(crate) searched: usize,
    /// Files skipped as binary.
    pub(crate) binary: usize,
    /// Files skipped as too large.
    pub(crate) too_large: usize,
    /// Files that could not be read.
    pub(crate) unreadable: usize,
}

#[derive(Default)]
struct Progress {
    /// Per candidate: `None` until searched, then its count (0 when skipped).
    counts: Vec<Option<u64>>,
    /// The first candidate not yet finished.
    prefix: usize,
    /// Units in the finished prefix.
    units: u64,
    /// The last file of the answer, once the prefix holds what the call needs.
    cut: Option<usize>,
    searched: usize,
    binary: usize,
    too_large: usize,
    unreadable: usize,
}

/// What a scan needs.
pub(crate) struct ScanSpec<'a> {
    pub(crate) root: &'a Dir,
    pub(crate) files: &'a [Candidate],
    pub(crate) matcher: &'a RegexMatcher,
    pub(crate) multiline: bool,
    pub(crate) unit: Unit,
    /// Stop once the finished prefix holds this many units.
    pub(crate) need: u64,
    pub(crate) max_file_bytes: u64,
    pub(crate) threads: usize,
    pub(crate) stop: &'a Stop,
    /// Told each file with matches as it is searched.
    pub(crate) found: super::matcher::Found<'a>,
}

/// Searches the files (see the [module documentation](self)).
pub(crate) fn scan(spec: &ScanSpec<'_>) -> Scanned {
    let n = spec.files.len();
    let progress = Mutex::new(Progress {
        counts: vec![None; n],
        ..Progress::default()
    });
    let next = AtomicUsize::new(0);
    // The last index worth starting (inclusive); lowered once the prefix holds `need`.
    let last = AtomicUsize::new(n.saturating_sub(1));
    let threads = spec.threads.clamp(1, n.max(1));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| worker(spec, &progress, &next, &last));
        }
    });
    let p = progress.into_inner().unwrap_or_else(|e| e.into_inner());
    let interrupted = spec.stop.interrupted();
    let end = match p.cut {
        Some(cut) if !interrupted => cut + 1,
        _ => n,
    };
    let hits: Vec<(usize, u64)> = p.counts[..end]
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.filter(|&c| c > 0).map(|c| (i, c)))
        .collect();
    Scanned {
        hits,
        complete: !interrupted && p.prefix >= n,
        searched: p.searched,
        binary: p.binary,
        too_large: p.too_large,
        unreadable: p.unreadable,
    }
}

fn worker(spec: &ScanSpec<'_>, progress: &Mutex<Progress>, next: &AtomicUsize, last: &AtomicUsize) {
    let mut searcher = searcher(spec.multiline, false);
    let matcher = Stoppable {
        inner: spec.matcher,
        stop: spec.stop,
    };
    let mut buf = Vec::new();
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= spec.files.len() || i > last.load(Ordering::Relaxed) || spec.stop.is_set() {
            return;
        }
        let loaded = load(spec.root, &spec.files[i].rel, spec.max_file_bytes, &mut buf);
        let mut count = 0;
        let mut skipped = loaded;
        if let Loaded::Text = skipped {
            let mut sink = CountSink {
                matcher: spec.matcher,
                multiline: spec.multiline,
                first_only: spec.unit == Unit::Files,
                count: 0,
                binary: false,
            };
            skipped = match search_buffer(&mut searcher, &matcher, &buf, &mut sink) {
                Ok(()) if sink.binary => Loaded::Binary,
                Ok(()) => {
                    count = sink.count;
                    Loaded::Text
                }
                Err(_) => Loaded::Unreadable,
            };
        }
        if count > 0 {
            (spec.found)(&spec.files[i].rel, count);
        }
        // A file interrupted mid-search keeps what it counted; the scan says it is partial.
        let mut p = progress.lock().unwrap_or_else(|e| e.into_inner());
        match skipped {
            Loaded::Text => p.searched += 1,
            Loaded::Binary => p.binary += 1,
            Loaded::TooLarge => p.too_large += 1,
            Loaded::Unreadable => p.unreadable += 1,
        }
        spec.stop.searched.fetch_add(1, Ordering::Relaxed);
        p.counts[i] = Some(count);
        while p.cut.is_none() && p.prefix < spec.files.len() {
            let Some(c) = p.counts[p.prefix] else { break };
            p.units += match spec.unit {
                Unit::Matches => c,
                Unit::Files | Unit::CountedFiles => u64::from(c > 0),
            };
            p.prefix += 1;
            if p.units >= spec.need {
                p.cut = Some(p.prefix - 1);
                last.fetch_min(p.prefix - 1, Ordering::Relaxed);
            }
        }
    }
}
