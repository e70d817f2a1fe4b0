//! The regex matcher: ripgrep's [`RegexMatcher`] built from a call's options, with size
//! limits and errors a model can fix, and [`Stoppable`], which ends a search mid-file when the
//! call's deadline passes or the call is cancelled.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use grep_matcher::{ByteSet, LineMatchKind, LineTerminator, Match, Matcher, NoError};
use grep_regex::{RegexCaptures, RegexMatcher, RegexMatcherBuilder};
use tool_core::ToolError;

use super::config::SearchConfig;

/// How letter case is matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Case {
    /// Exactly.
    Sensitive,
    /// Ignoring case (the tools' default, seed 003).
    Insensitive,
    /// Ignoring case unless the pattern has an upper-case letter (ripgrep's `--smart-case`).
    Smart,
}

impl Case {
    /// The case mode of a call: `smart_case` wins, then `case_sensitive`.
    pub(crate) fn of(case_sensitive: bool, smart_case: bool) -> Case {
        if smart_case {
            Case::Smart
        } else if case_sensitive {
            Case::Sensitive
        } else {
            Case::Insensitive
        }
    }
}

/// What a call asks the matcher to find.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    /// The pattern as given.
    pub(crate) text: String,
    /// Literal text rather than a regex (the `search` tool).
    pub(crate) literal: bool,
    /// Letter case.
    pub(crate) case: Case,
    /// Matches may span lines.
    pub(crate) multiline: bool,
}

/// Builds the matcher as ripgrep does (`multi_line(true)` so `^`/`$` match at line ends, a
/// `\n` line terminator unless multiline, NUL banned), within the configured size limits.
pub(crate) fn build(p: &Pattern, config: &SearchConfig) -> Result<RegexMatcher, ToolError> {
    if p.text.is_empty() {
        return Err(
            ToolError::validation("the pattern is empty").with_suggestion(example(p.literal))
        );
    }
    let mut b = RegexMatcherBuilder::new();
    b.multi_line(true)
        .unicode(true)
        .octal(false)
        .fixed_strings(p.literal)
        .size_limit(config.regex_size_limit)
        .dfa_size_limit(config.dfa_size_limit)
        .ban_byte(Some(b'\0'));
    match p.case {
        Case::Sensitive => b.case_insensitive(false),
        Case::Insensitive => b.case_insensitive(true),
        Case::Smart => b.case_smart(true),
    };
    if p.multiline {
        b.dot_matches_new_line(false);
    } else {
        b.line_terminator(Some(b'\n')).dot_matches_new_line(false);
    }
    b.build(&p.text).map_err(|e| regex_error(p, &e))
}

fn example(literal: bool) -> &'static str {
    if literal {
        r#"Example: {"query": "TODO"}"#
    } else {
        r#"Example: {"pattern": "fn\\s+main", "path": "src"}; escape special characters with a backslash for literal text (`foo\(`), or use the search tool, which takes literal text."#
    }
}

fn regex_error(p: &Pattern, e: &grep_regex::Error) -> ToolError {
    let message = e.to_string();
    let (what, suggestion) = match e.kind() {
        grep_regex::ErrorKind::NotAllowed(_) => (
            "the pattern matches a line break",
            "Pass multiline: true to let a match span lines, or remove the \\n.".to_owned(),
        ),
        grep_regex::ErrorKind::Banned(_) => (
            "the pattern matches a NUL byte",
            "Binary files are skipped, so a NUL byte can never match; remove it.".to_owned(),
        ),
        _ if message.contains("size limit") => (
            "the regex is too large",
            "Simplify it: fewer or smaller counted repetitions ({1000}), fewer alternatives, or \\w / \\d in place of large Unicode classes (or (?-u) for ASCII).".to_owned(),
        ),
        _ => ("invalid regex", example(p.literal).to_owned()),
    };
    ToolError::validation(format!("{what} `{}`: {message}", p.text))
        .with_field("regex_error", message)
        .with_suggestion(suggestion)
}

/// Where a search says what it finds as it finds it (see [`stream`](super::stream)): a file,
/// relative to its root, and its count of matches (0 for a file found by its name).
pub(crate) type Found<'a> = &'a (dyn Fn(&std::path::Path, u64) + Sync);

/// Tells every search thread to stop: set by a watchdog when the call is cancelled or its
/// (soft) deadline passes, read by [`Stoppable`] before every search step.
#[derive(Debug, Default)]
pub(crate) struct Stop {
    flag: AtomicBool,
    deadline_hit: AtomicBool,
    /// Files the walk has listed, for progress reports.
    pub(crate) listed: AtomicU64,
    /// Files the scan has searched, for progress reports.
    pub(crate) searched: AtomicU64,
}

impl Stop {
    /// Whether to stop now.
    #[inline]
    pub(crate) fn is_set(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    /// Whether the stop came from the deadline or a cancellation (rather than nothing).
    pub(crate) fn interrupted(&self) -> bool {
        self.deadline_hit.load(Ordering::Relaxed)
    }

    fn interrupt(&self) {
        self.deadline_hit.store(true, Ordering::Relaxed);
        self.flag.store(true, Ordering::Relaxed);
    }
}

/// The instant the search stops to answer with what it has: before the call's deadline by a
/// tenth of the time left (at least 50 ms, at most 2 s), so the partial results reach the model
/// instead of a timeout error.
pub(crate) fn soft_deadline(deadline: Option<Instant>) -> Option<Instant> {
    let deadline = deadline?;
    let left = deadline.saturating_duration_since(Instant::now());
    let margin = (left / 10).clamp(Duration::from_millis(50), Duration::from_secs(2));
    Some(deadline.checked_sub(margin).unwrap_or(deadline))
}

/// Sees a long search's progress: files listed, files searched.
pub(crate) type Report<'a> = &'a (dyn Fn(u64, u64) + Sync);

/// A search's first progress report comes after this long; shorter ones send none.
const PROGRESS_AFTER: Duration = Duration::from_secs(1);
/// Then at most one report this often, when the counts moved.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// Runs `f` with a watchdog thread that sets `stop` once `cancelled()` says so or `until`
/// passes, reports its counts to `report` on a long search, and ends with `f`.
pub(crate) fn watched<T>(
    stop: &Stop,
    cancelled: &(dyn Fn() -> bool + Sync),
    until: Option<Instant>,
    report: Report<'_>,
    f: impl FnOnce() -> T,
) -> T {
    let done = AtomicBool::new(false);
    thread::scope(|s| {
        let watchdog = s.spawn(|| {
            let (started, mut last, mut reported) = (Instant::now(), None::<Instant>, (0, 0));
            while !done.load(Ordering::Acquire) {
                if cancelled() || until.is_some_and(|t| Instant::now() >= t) {
                    stop.interrupt();
                    return;
                }
                let counts = (
                    stop.listed.load(Ordering::Relaxed),
                    stop.searched.load(Ordering::Relaxed),
                );
                if started.elapsed() >= PROGRESS_AFTER
                    && last.is_none_or(|t| t.elapsed() >= PROGRESS_EVERY)
                    && counts != reported
                {
                    report(counts.0, counts.1);
                    (last, reported) = (Some(Instant::now()), counts);
                }
                let nap = until
                    .map(|t| t.saturating_duration_since(Instant::now()))
                    .unwrap_or(Duration::MAX)
                    .min(Duration::from_millis(20));
                thread::park_timeout(nap);
            }
        });
        let out = f();
        done.store(true, Ordering::Release);
        watchdog.thread().unpark();
        out
    })
}

/// A matcher that finds nothing more once [`Stop`] is set, so a slow pattern on a large file
/// ends within one search step of the deadline. Everything else is the inner matcher's, its
/// fast paths (candidate lines, line terminator, non-matching bytes) included.
#[derive(Debug)]
pub(crate) struct Stoppable<'a> {
    pub(crate) inner: &'a RegexMatcher,
    pub(crate) stop: &'a Stop,
}

impl Matcher for Stoppable<'_> {
    type Captures = RegexCaptures;
    type Error = NoError;

    #[inline]
    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, NoError> {
        if self.stop.is_set() {
            return Ok(None);
        }
        self.inner.find_at(haystack, at)
    }

    #[inline]
    fn new_captures(&self) -> Result<RegexCaptures, NoError> {
        self.inner.new_captures()
    }

    #[inline]
    fn capture_count(&self) -> usize {
        self.inner.capture_count()
    }

    #[inline]
    fn capture_index(&self, name: &str) -> Option<usize> {
        self.inner.capture_index(name)
    }

    #[inline]
    fn try_find_iter<F, E>(&self, haystack: &[u8], mut matched: F) -> Result<Result<(), E>, NoError>
    where
        F: FnMut(Match) -> Result<bool, E>,
    {
        if self.stop.is_set() {
            return Ok(Ok(()));
        }
        self.inner.try_find_iter(haystack, |m| {
            if self.stop.is_set() {
                return Ok(false);
            }
            matched(m)
        })
    }

    #[inline]
    fn captures_at(
        &self,
        haystack: &[u8],
        at: usize,
        caps: &mut RegexCaptures,
    ) -> Result<bool, NoError> {
        if self.stop.is_set() {
            return Ok(false);
        }
        self.inner.captures_at(haystack, at, caps)
    }

    #[inline]
    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, NoError> {
        if self.stop.is_set() {
            return Ok(None);
        }
        self.inner.shortest_match_at(haystack, at)
    }

    #[inline]
    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        self.inner.non_matching_bytes()
    }

    #[inline]
    fn line_terminator(&self) -> Option<LineTerminator> {
        self.inner.line_terminator()
    }

    #[inline]
    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, NoError> {
        if self.stop.is_set() {
            return Ok(None);
        }
        self.inner.find_candidate_line(haystack)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(text: &str) -> Pattern {
        Pattern {
            text: text.into(),
            literal: false,
            case: Case::Insensitive,
            multiline: false,
        }
    }

    #[test]
    fn invalid_regex_quotes_the_error_and_an_example() {
        let e = build(&pattern("foo("), &SearchConfig::default()).unwrap_err();
        assert_eq!(e.kind(), tool_core::ErrorKind::ValidationError);
        assert!(e.message().contains("invalid regex `foo(`"), "{e:?}");
        assert!(e.message().contains("unclosed group"), "{e:?}");
        assert!(e.suggestion().unwrap().contains("Example"), "{e:?}");
    }

    #[test]
    fn oversized_regex_is_refused() {
        let e = build(&pattern("(a{1000}){1000}"), &SearchConfig::default()).unwrap_err();
        assert!(e.message().contains("too large"), "{e:?}");
        let e = build(&pattern(r"foo\nbar"), &SearchConfig::default()).unwrap_err();
        assert!(e.suggestion().unwrap().contains("multiline"), "{e:?}");
    }

    // A search longer than a second reports its counts as they move; a short one reports
    // nothing.
    #[test]
    fn a_long_search_reports_its_progress_and_a_short_one_does_not() {
        let reports = std::sync::Mutex::new(Vec::new());
        let report = |l, s| reports.lock().unwrap().push((l, s));
        let stop = Stop::default();
        watched(&stop, &|| false, None, &report, || {
            stop.listed.store(10, Ordering::Relaxed);
        });
        assert!(reports.lock().unwrap().is_empty());
        watched(&stop, &|| false, None, &report, || {
            for i in 1..=18u64 {
                stop.searched.store(i, Ordering::Relaxed);
                thread::sleep(Duration::from_millis(100));
            }
        });
        let seen = reports.into_inner().unwrap();
        assert!(!seen.is_empty() && seen.len() <= 3, "{seen:?}");
        assert!(seen.iter().all(|&(l, s)| l == 10 && s >= 9), "{seen:?}");
    }

    #[test]
    fn stoppable_finds_nothing_once_stopped() {
        let m = build(&pattern("x"), &SearchConfig::default()).unwrap();
        let stop = Stop::default();
        let s = Stoppable {
            inner: &m,
            stop: &stop,
        };
        assert!(s.find(b"axb").unwrap().is_some());
        stop.interrupt();
        assert!(s.find(b"axb").unwrap().is_none());
        assert!(stop.interrupted());
    }
}
