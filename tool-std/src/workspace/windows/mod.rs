//! Paths as Windows reads them, decided from the text alone: the forms an absolute path takes
//! (a drive, a UNC share, a verbatim `\\?\` prefix), the forms that are refused (a path relative
//! to a drive's current directory, `\\.\` devices), and the names Windows gives a meaning of its
//! own (reserved device names, trailing dots and spaces, alternate data streams, 8.3 short
//! names). Compiled and tested on every platform; the workspace applies it on Windows.
//!
//! Why refuse the names: Windows opens `CON` or `nul.txt` as a device in any directory, drops a
//! trailing `.` or space (`.env.` *is* `.env`), reads `a.txt:secret` as a stream of `a.txt`, and
//! answers `GIT~1` for `.git` when short names are on. Each is a second spelling of a path the
//! protected patterns guard, or no file at all.

/// A path split as Windows reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WindowsPath {
    /// The prefix of an absolute path, folded for comparison: `c:` for a drive,
    /// `\\server\share` for a UNC share; `None` for a relative path.
    pub(crate) prefix: Option<String>,
    /// The components after the prefix, as written (`.` and `..` included).
    pub(crate) parts: Vec<String>,
}

/// The device names Windows reserves in every directory, with or without an extension
/// (`COM¹`-`COM³` and `LPT¹`-`LPT³` too).
const RESERVED: &[&str] = &[
    "con", "prn", "aux", "nul", "conin$", "conout$", "clock$", "com0", "com1", "com2", "com3",
    "com4", "com5", "com6", "com7", "com8", "com9", "com¹", "com²", "com³", "lpt0", "lpt1", "lpt2",
    "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9", "lpt¹", "lpt²", "lpt³",
];

/// Characters no Windows file name holds (`:` would name a stream).
const FORBIDDEN: &[char] = &['<', '>', ':', '"', '|', '?', '*'];

fn is_separator(c: char) -> bool {
    c == '\\' || c == '/'
}

/// Splits `text` as Windows would read it.
///
/// # Errors
///
/// Why the path is refused: a device path (`\\.\`, `\\?\` followed by no drive or share), a
/// path relative to a drive's current directory (`C:notes.txt`), a path rooted on the current
/// drive (`\notes.txt`), a UNC path without its share, or `.`/`..` in a verbatim path (which
/// Windows would not resolve).
pub(crate) fn split(text: &str) -> Result<WindowsPath, String> {
    let (rest, verbatim) = match text
        .strip_prefix(r"\\?\")
        .or_else(|| text.strip_prefix("//?/"))
    {
        Some(rest) => (rest, true),
        None => (text, false),
    };
    if !verbatim && (text.starts_with(r"\\.\") || text.starts_with("//./")) {
        return Err("it is a device path (`\\\\.\\`), not a file".to_owned());
    }
    let (prefix, tail) = if verbatim {
        verbatim_prefix(rest)?
    } else if let Some(unc) = rest.strip_prefix(r"\\").or_else(|| rest.strip_prefix("//")) {
        unc_prefix(unc)?
    } else if let Some((drive, after)) = drive_of(rest) {
        match after.chars().next() {
            Some(c) if is_separator(c) => (Some(drive), after),
            None => (Some(drive), after),
            Some(_) => {
                return Err(format!(
                    "`{}` is relative to the current directory of drive {}, which a server \
                     does not have",
                    rest,
                    drive.to_uppercase()
                ));
            }
        }
    } else if rest.starts_with(is_separator) {
        return Err(
            "it is rooted on whatever drive is current (`\\path`); write the drive (`C:\\path`) \
             or a path relative to a root"
                .to_owned(),
        );
    } else {
        (None, rest)
    };
    let parts: Vec<String> = tail
        .split(is_separator)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect();
    if verbatim && parts.iter().any(|p| p == "." || p == "..") {
        return Err(
            "a verbatim path (`\\\\?\\`) holds `.` or `..`, which Windows would take \
                    literally"
                .to_owned(),
        );
    }
    Ok(WindowsPath { prefix, parts })
}

impl WindowsPath {
    /// The path with `.` dropped and each `..` taking the component before it away (never
    /// above the prefix), as Windows normalizes a path that is not verbatim.
    pub(crate) fn normalized(mut self) -> WindowsPath {
        let mut out: Vec<String> = Vec::with_capacity(self.parts.len());
        for part in self.parts.drain(..) {
            match part.as_str() {
                "." => {}
                ".." => {
                    out.pop();
                }
                _ => out.push(part),
            }
        }
        self.parts = out;
        self
    }
}

/// `c:` for a path starting with a drive letter and a colon.
fn drive_of(text: &str) -> Option<(String, &str)> {
    let mut chars = text.chars();
    let letter = chars.next().filter(char::is_ascii_alphabetic)?;
    (chars.next() == Some(':')).then(|| (format!("{}:", letter.to_ascii_lowercase()), &text[2..]))
}

fn unc_prefix(unc: &str) -> Result<(Option<String>, &str), String> {
    let mut pieces = unc.splitn(3, is_separator);
    let server = pieces.next().unwrap_or_default();
    let share = pieces.next().unwrap_or_default();
    if server.is_empty() || share.is_empty() || server == "." || server == "?" {
        return Err("a UNC path names a server and a share (`\\\\server\\share\\path`)".to_owned());
    }
    let tail = pieces.next().unwrap_or_default();
    Ok((Some(format!(r"\\{}\{}", fold(server), fold(share))), tail))
}

fn verbatim_prefix(rest: &str) -> Result<(Option<String>, &str), String> {
    if let Some(unc) = rest
        .strip_prefix(r"UNC\")
        .or_else(|| rest.strip_prefix("unc\\"))
    {
        return unc_prefix(unc);
    }
    match drive_of(rest) {
        Some((drive, after)) if after.is_empty() || after.starts_with(is_separator) => {
            Ok((Some(drive), after))
        }
        _ => Err("a verbatim path (`\\\\?\\`) that names no drive or share is a device".to_owned()),
    }
}

/// `name` folded for comparison as Windows compares names (case-insensitively).
pub(crate) fn fold(name: &str) -> String {
    name.to_lowercase()
}

/// Checks one component of a path for the names Windows gives a meaning of its own.
///
/// # Errors
///
/// Why the name is refused.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    if name == "." || name == ".." {
        return Ok(());
    }
    if let Some(c) = name
        .chars()
        .find(|c| FORBIDDEN.contains(c) || c.is_control())
    {
        return Err(if c == ':' {
            format!("`{name}` names an alternate data stream (`:`), not a file")
        } else {
            format!(
                "`{name}` holds `{}`, which no Windows file name holds",
                c.escape_debug()
            )
        });
    }
    if name.ends_with('.') || name.ends_with(' ') {
        return Err(format!(
            "`{name}` ends with a dot or a space, which Windows drops: it would be another \
             file's name"
        ));
    }
    let stem = name.split('.').next().unwrap_or_default().trim_end();
    if RESERVED.contains(&fold(stem).as_str()) {
        return Err(format!(
            "`{name}` is a device Windows reserves in every directory, not a file"
        ));
    }
    if is_short_name(name) {
        return Err(format!(
            "`{name}` looks like an 8.3 short name (`NAME~1`), another spelling of a longer \
             name; write the long name"
        ));
    }
    Ok(())
}

/// Whether `name` has the shape of an 8.3 short name: up to six characters, `~`, digits,
/// then an optional extension of up to three.
fn is_short_name(name: &str) -> bool {
    let (base, ext) = name.split_once('.').unwrap_or((name, ""));
    let Some((head, digits)) = base.split_once('~') else {
        return false;
    };
    !digits.is_empty()
        && digits.len() <= 6
        && digits.chars().all(|c| c.is_ascii_digit())
        && head.chars().count() + 1 + digits.len() <= 8
        && ext.chars().count() <= 3
        && !ext.contains('.')
}

/// The components of `path` beneath `base` (both split by [`split`]), compared as Windows
/// compares names; `None` when `path` is not beneath `base`. Both must be absolute and
/// [normalized](WindowsPath::normalized).
pub(crate) fn beneath(path: &WindowsPath, base: &WindowsPath) -> Option<Vec<String>> {
    if path.prefix.is_none() || path.prefix != base.prefix {
        return None;
    }
    if path.parts.len() < base.parts.len() {
        return None;
    }
    let same = path
        .parts
        .iter()
        .zip(&base.parts)
        .all(|(a, b)| fold(a) == fold(b));
    same.then(|| path.parts[base.parts.len()..].to_vec())
}

#[cfg(test)]
mod tests;
