//! Workspace paths: what a model writes (`src/main.rs`, `docs:guide.md`, `/abs/in/a/root`),
//! parsed and normalized without touching the file system.
//!
//! Parsing is lexical on purpose. It decides *which root* a path belongs to and refuses what can
//! be refused from the text alone (NUL bytes, `..` climbing above the root, absolute paths outside
//! every root, a sibling prefix such as `/ws-evil` for a root at `/ws`, a home directory written
//! as a shell would expand it: `~`, `~/x`, `~user/x`, `$HOME/x`, `${HOME}/x`). Everything that depends
//! on the file system (symbolic links, races) is settled later, on directory handles, by
//! [`super::access`].

use std::fmt;
use std::path::{Component, Path, PathBuf};

use tool_core::ToolError;

use super::Workspace;

/// The most bytes a path given by a model may have.
pub const MAX_PATH_BYTES: usize = 4096;

/// A path inside one of the workspace's roots: the root's index and a normalized relative path
/// (no `.`, no `..`, no leading `/`; empty for the root itself).
///
/// A `WsPath` says nothing about what is on disk: symbolic links in it are resolved only when it
/// is opened. Its [`Display`](fmt::Display) form is what tools show the model: the relative path
/// with one root, `name:relative` with several, `.` (or `name:.`) for a root itself.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WsPath {
    pub(crate) root: usize,
    pub(crate) rel: PathBuf,
    /// The root's name when the workspace has more than one root (for display).
    pub(crate) qualifier: Option<std::sync::Arc<str>>,
}

impl WsPath {
    /// The index of the root in [`Workspace::roots`].
    pub fn root(&self) -> usize {
        self.root
    }

    /// The path relative to its root (empty for the root itself).
    pub fn relative(&self) -> &Path {
        &self.rel
    }

    /// Whether this is the root itself.
    pub fn is_root(&self) -> bool {
        self.rel.as_os_str().is_empty()
    }

    /// The last component, if this is not a root and it is valid UTF-8.
    pub fn file_name(&self) -> Option<&str> {
        self.rel.file_name().and_then(|n| n.to_str())
    }

    /// The parent directory, `None` for a root.
    pub fn parent(&self) -> Option<WsPath> {
        if self.is_root() {
            return None;
        }
        Some(WsPath {
            root: self.root,
            rel: self.rel.parent().map(Path::to_path_buf).unwrap_or_default(),
            qualifier: self.qualifier.clone(),
        })
    }

    /// This path joined with one more component or a relative path. `..` may not climb above
    /// the root, and the same checks as [`Workspace::resolve`] apply.
    pub fn join(&self, name: &str) -> Result<WsPath, ToolError> {
        let mut rel = self.rel.clone();
        push_normalized(&mut rel, name, name)?;
        Ok(WsPath {
            root: self.root,
            rel,
            qualifier: self.qualifier.clone(),
        })
    }

    /// Components of the relative path, as strings (they are always valid UTF-8: paths come
    /// from JSON strings or from [`Workspace::from_host_path`], which refuses other names).
    pub(crate) fn components(&self) -> impl Iterator<Item = &std::ffi::OsStr> {
        self.rel.components().map(|c| c.as_os_str())
    }

    pub(crate) fn with_rel(&self, rel: PathBuf) -> WsPath {
        WsPath {
            root: self.root,
            rel,
            qualifier: self.qualifier.clone(),
        }
    }
}

impl fmt::Display for WsPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rel = if self.is_root() {
            ".".into()
        } else {
            self.rel.to_string_lossy()
        };
        match &self.qualifier {
            Some(name) => write!(f, "{name}:{rel}"),
            None => f.write_str(&rel),
        }
    }
}

/// Appends `text`'s components to `rel`, normalizing `.` and `..` lexically. `original` is the
/// whole path the model gave, for the error.
fn push_normalized(rel: &mut PathBuf, text: &str, original: &str) -> Result<(), ToolError> {
    for component in Path::new(text).components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !rel.pop() {
                    return Err(escape_error(original, "`..` climbs above the root"));
                }
            }
            Component::Normal(part) => {
                #[cfg(windows)]
                if let Err(why) = super::windows::check_name(&part.to_string_lossy()) {
                    return Err(escape_error(original, &why));
                }
                rel.push(part);
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(escape_error(original, "it is absolute"));
            }
        }
    }
    Ok(())
}

/// What a shell would expand to a home directory at the start of `path`: a first component
/// `~` or `~user`, or `$HOME` / `${HOME}`. Nothing expands them here, and taken literally they
/// would name a directory `~` inside a root, so they are refused. Further down a path
/// (`src/~backup`) a `~` is an ordinary character.
fn home_prefix(path: &str) -> Option<&str> {
    let first = path.split('/').next().unwrap_or_default();
    if first.starts_with('~') {
        Some("~")
    } else if first == "$HOME" || first == "${HOME}" {
        Some(first)
    } else {
        None
    }
}

fn escape_error(path: &str, why: &str) -> ToolError {
    ToolError::security(format!("path `{}` is not allowed: {why}", shown(path)))
}

/// A path as quoted in an error: control characters escaped, cut to a readable length.
pub(crate) fn shown(path: &str) -> String {
    let mut out: String = path
        .chars()
        .take(200)
        .flat_map(char::escape_debug)
        .collect();
    if path.chars().count() > 200 {
        out.push('…');
    }
    out
}

impl Workspace {
    /// Parses a path a model gave: `name:relative` (a root by name), `relative` (the first
    /// root), or an absolute path inside a root.
    ///
    /// This is lexical: nothing is opened. Refused with a `security_error` naming the roots:
    /// NUL bytes, `..` climbing above the root, absolute paths outside every root (a sibling
    /// such as `/ws-evil` of a root `/ws` included), and a leading `~`, `~user`, `$HOME` or
    /// `${HOME}` (paths are relative to a root, not to a home directory; a file whose name
    /// starts with `~` at the top of a root is `./~name`). An empty path or `.` is the first
    /// root. A `name:` prefix that names no root is read as part of a relative path (file
    /// names may hold colons).
    pub fn resolve(&self, path: &str) -> Result<WsPath, ToolError> {
        if path.contains('\0') {
            return Err(self.refusal(path, "it contains a NUL byte"));
        }
        if path.len() > MAX_PATH_BYTES {
            return Err(ToolError::validation(format!(
                "path is {} bytes long; at most {MAX_PATH_BYTES} are allowed",
                path.len()
            )));
        }
        let trimmed = path.trim();
        #[cfg(windows)]
        match super::windows::split(trimmed) {
            // `C:\...`, `\\server\share\...`, `\\?\...`: an absolute path (a drive letter
            // wins over a root named by one letter).
            Ok(split) if split.prefix.is_some() => return self.absolute_windows(split, path),
            Ok(_) => {}
            // `C:notes.txt` is a root named `C` if there is one, else refused.
            Err(why) => {
                let names_a_root = trimmed
                    .split_once(':')
                    .is_some_and(|(name, _)| self.root_index(name).is_some());
                if !names_a_root {
                    return Err(self.refusal(path, &why));
                }
            }
        }
        if let Some((name, rest)) = trimmed.split_once(':')
            && let Some(index) = self.root_index(name)
        {
            if let Some(home) = home_prefix(rest) {
                return Err(self.home_refusal(path, home));
            }
            return self.relative_to(index, rest, path);
        }
        if let Some(home) = home_prefix(trimmed) {
            return Err(self.home_refusal(path, home));
        }
        let as_path = Path::new(trimmed);
        if as_path.is_absolute() {
            return self.absolute(as_path, path);
        }
        self.relative_to(0, trimmed, path)
    }

    fn home_refusal(&self, original: &str, home: &str) -> ToolError {
        self.refusal(
            original,
            &format!(
                "`{home}` is not expanded: paths are relative to a project root, not to a home directory"
            ),
        )
        .with_suggestion(
            "Write the path relative to a project root (`notes/todo.txt`) or as `name:path`; call \
             list_projects to see the roots. A file whose name starts with `~` is written `./~name`.",
        )
    }

    fn relative_to(&self, root: usize, rest: &str, original: &str) -> Result<WsPath, ToolError> {
        if Path::new(rest).is_absolute() {
            // `name:/abs` — only if the absolute path lies in that very root.
            let p = self.absolute(Path::new(rest), original)?;
            if p.root != root {
                return Err(self.refusal(original, "it lies outside the root it names"));
            }
            return Ok(p);
        }
        let mut rel = PathBuf::new();
        push_normalized(&mut rel, rest, original)
            .map_err(|_| self.refusal(original, "`..` climbs above the root"))?;
        Ok(self.make(root, rel))
    }

    #[cfg(windows)]
    fn absolute(&self, path: &Path, original: &str) -> Result<WsPath, ToolError> {
        match path.to_str().map(super::windows::split) {
            Some(Ok(split)) if split.prefix.is_some() => self.absolute_windows(split, original),
            Some(Err(why)) => Err(self.refusal(original, &why)),
            _ => Err(self.refusal(original, "it is outside every workspace root")),
        }
    }

    #[cfg(not(windows))]
    fn absolute(&self, path: &Path, original: &str) -> Result<WsPath, ToolError> {
        // Normalize lexically first, so `/ws/a/../b` is `/ws/b` and `/ws/../etc` is `/etc`.
        let mut normal = PathBuf::from("/");
        for component in path.components() {
            match component {
                Component::ParentDir => {
                    normal.pop();
                }
                Component::Normal(part) => normal.push(part),
                Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
            }
        }
        // The deepest root containing it wins (roots may nest). `strip_prefix` compares whole
        // components, so `/ws-evil` is not inside `/ws`.
        let mut best: Option<(usize, PathBuf, usize)> = None;
        for (index, root) in self.roots().iter().enumerate() {
            for base in [root.path(), root.given_path()] {
                if let Ok(rest) = normal.strip_prefix(base) {
                    let depth = base.components().count();
                    if best.as_ref().is_none_or(|(_, _, d)| depth > *d) {
                        best = Some((index, rest.to_path_buf(), depth));
                    }
                }
            }
        }
        match best {
            Some((index, rel, _)) => Ok(self.make(index, rel)),
            None => Err(self.refusal(original, "it is outside every workspace root")),
        }
    }

    /// Windows: an absolute path (drive, UNC share, verbatim prefix) inside a root, compared
    /// as Windows compares names (case-insensitively, the verbatim prefix dropped).
    #[cfg(windows)]
    fn absolute_windows(
        &self,
        path: super::windows::WindowsPath,
        original: &str,
    ) -> Result<WsPath, ToolError> {
        use super::windows::{beneath, check_name, split};
        let path = path.normalized();
        let mut best: Option<(usize, Vec<String>, usize)> = None;
        for (index, root) in self.roots().iter().enumerate() {
            for base in [root.path(), root.given_path()] {
                let Some(base) = base.to_str().and_then(|b| split(b).ok()) else {
                    continue;
                };
                let base = base.normalized();
                if let Some(rest) = beneath(&path, &base) {
                    let depth = base.parts.len();
                    if best.as_ref().is_none_or(|(_, _, d)| depth > *d) {
                        best = Some((index, rest, depth));
                    }
                }
            }
        }
        let Some((index, rest, _)) = best else {
            return Err(self.refusal(original, "it is outside every workspace root"));
        };
        for part in &rest {
            check_name(part).map_err(|why| self.refusal(original, &why))?;
        }
        Ok(self.make(index, rest.iter().collect()))
    }

    /// Maps a host path (one a directory walker yielded, say) back into the workspace: `None`
    /// when it lies in no root or has a component that is not UTF-8.
    pub fn from_host_path(&self, host: &Path) -> Option<WsPath> {
        let text = host.to_str()?;
        if !host.is_absolute() {
            return None;
        }
        self.absolute(host, text).ok()
    }

    /// The host path of `p`: for display, or as a child process's working directory.
    ///
    /// Never open files by it: a host path is checked once and used later, and a link swapped
    /// in between would be followed. Open through [`Workspace::open_file`] and the other
    /// methods, which resolve beneath directory handles.
    pub fn host_path(&self, p: &WsPath) -> PathBuf {
        self.roots()[p.root].path().join(&p.rel)
    }

    pub(crate) fn make(&self, root: usize, rel: PathBuf) -> WsPath {
        WsPath {
            root,
            rel,
            qualifier: (self.roots().len() > 1).then(|| self.roots()[root].name_arc()),
        }
    }

    fn root_index(&self, name: &str) -> Option<usize> {
        self.roots().iter().position(|r| r.name() == name)
    }
}
