//! The plan of one sandboxed call, made by the server: which paths the command may read and
//! write (the Landlock rules), what is mounted over what (protected and denied paths inside
//! read-write roots), whether it may use the network; and the call's private directory.
//!
//! The helper applies the plan as it is; every decision is taken here, where it can be tested.

use std::collections::{BTreeSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

use super::{MAX_BINDS, MAX_PROTECTED_DEPTH, MAX_PROTECTED_WALK, MAX_READ_RULES};

/// Device files every command may write.
const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full"];

/// What the helper applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Plan {
    /// The directory the shell runs in (entered again after the mounts, so that the paths it
    /// resolves go through them).
    pub(crate) cwd: PathBuf,
    /// Paths granted read access (directories: everything beneath).
    pub(crate) read: Vec<PathBuf>,
    /// The denied paths outside the read-write roots, which [`read`](Self::read) leaves out
    /// (canonical, existing). Landlock needs only the grants; Seatbelt, which can deny
    /// beneath a grant, reads these.
    #[serde(default)]
    pub(crate) deny_read: Vec<PathBuf>,
    /// Paths granted every access.
    pub(crate) write: Vec<PathBuf>,
    /// Mounts, in order (outer directories first).
    pub(crate) binds: Vec<Bind>,
    /// Whether `AF_INET`/`AF_INET6` sockets are allowed.
    pub(crate) network: bool,
    /// With the network off: the port of the proxy on `127.0.0.1` that TCP connections may
    /// go to (and nowhere else).
    #[serde(default)]
    pub(crate) proxy_port: Option<u16>,
    /// Whether `socket(AF_UNIX)` is allowed.
    #[serde(default)]
    pub(crate) unix_sockets: bool,
}

#[cfg(target_os = "linux")]
impl Plan {
    /// The sockets the command may make.
    pub(crate) fn sockets(&self) -> super::seccomp::Sockets {
        use super::seccomp::Net;
        let net = match (self.network, self.proxy_port) {
            (true, _) => Net::On,
            (false, Some(_)) => Net::Proxy,
            (false, None) => Net::Off,
        };
        super::seccomp::Sockets {
            net,
            unix: self.unix_sockets,
        }
    }
}

/// One mount of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Bind {
    pub(crate) path: PathBuf,
    pub(crate) kind: BindKind,
}

/// What is mounted at a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum BindKind {
    /// The directory onto itself, writable: it becomes a mount point, which cannot be renamed
    /// or removed.
    Pin,
    /// The path onto itself, read-only.
    ReadOnly,
    /// An empty read-only file or directory (`source`) over the path.
    Mask { source: PathBuf },
}

/// What the plan is made from.
#[derive(Debug, Clone)]
pub(crate) struct PlanOptions<'a> {
    pub(crate) cwd: &'a Path,
    /// The read-write roots (canonical).
    pub(crate) writable: &'a [PathBuf],
    pub(crate) denied: &'a [PathBuf],
    pub(crate) protected: &'a [String],
    pub(crate) network: bool,
    pub(crate) proxy_port: Option<u16>,
    pub(crate) unix_sockets: bool,
}

/// A made plan: what the helper applies, the protected paths that existed, and notes for the
/// answer.
#[derive(Debug)]
pub(crate) struct Made {
    pub(crate) plan: Plan,
    pub(crate) protected_before: BTreeSet<PathBuf>,
    pub(crate) notes: Vec<String>,
}

/// Makes the plan of a call whose private directory is `dir`.
pub(crate) fn build(options: &PlanOptions<'_>, dir: &CallDir) -> Result<Made, String> {
    let patterns = protected_set(options.protected)?;
    let mut notes = Vec::new();
    // Most denied paths do not exist: one `lstat` each says so, before the full resolution.
    let mut denied: Vec<PathBuf> = Vec::new();
    let sorted: BTreeSet<PathBuf> = options
        .denied
        .iter()
        .filter(|p| fs::symlink_metadata(p).is_ok())
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    // A path beneath another denied path is denied with it (and could not be mounted over
    // once its directory is masked). Sorted, a directory comes before what it holds.
    for path in sorted {
        if !denied.iter().any(|d| path.starts_with(d)) {
            denied.push(path);
        }
    }
    let inside_writable = |p: &Path| options.writable.iter().any(|r| p.starts_with(r));

    // Denied paths outside the read-write roots: left out of the read grants. Inside: masked.
    let (masked, outside): (Vec<PathBuf>, Vec<PathBuf>) =
        denied.into_iter().partition(|p| inside_writable(p));
    let read = read_rules(&outside)?;

    let mut write: Vec<PathBuf> = options.writable.to_vec();
    write.push(dir.tmp());
    write.extend(DEVICES.iter().map(PathBuf::from).filter(|d| d.exists()));

    let mut binds: Vec<Bind> = Vec::new();
    let mut protected_before = BTreeSet::new();
    for root in options.writable {
        let walk = find_protected(root, &patterns);
        if walk.truncated {
            notes.push(format!(
                "Protected paths were looked for in the first {MAX_PROTECTED_WALK} entries of \
                 {} only.",
                root.display()
            ));
        }
        let nested = options
            .writable
            .iter()
            .any(|other| other != root && root.starts_with(other));
        for found in walk.found {
            if nested {
                binds.push(Bind {
                    path: root.clone(),
                    kind: BindKind::Pin,
                });
            }
            let mut between = found.parent();
            let mut dirs = Vec::new();
            while let Some(d) = between {
                if d == root.as_path() || !d.starts_with(root) {
                    break;
                }
                dirs.push(d.to_path_buf());
                between = d.parent();
            }
            binds.extend(dirs.into_iter().map(|path| Bind {
                path,
                kind: BindKind::Pin,
            }));
            binds.push(Bind {
                path: found.clone(),
                kind: BindKind::ReadOnly,
            });
            protected_before.insert(found);
        }
    }
    for path in masked {
        let source = if path.is_dir() {
            dir.empty_dir()
        } else {
            dir.empty_file()
        }
        .map_err(|e| format!("cannot make the empty file or directory masks are made of: {e}"))?;
        binds.push(Bind {
            path,
            kind: BindKind::Mask { source },
        });
    }
    // Outer paths first (a mount on a directory made after one beneath it would hide it);
    // each path once, the strongest kind kept.
    binds.sort_by(|a, b| {
        depth(&a.path)
            .cmp(&depth(&b.path))
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| rank(&b.kind).cmp(&rank(&a.kind)))
    });
    binds.dedup_by(|later, earlier| later.path == earlier.path);
    if binds.len() > MAX_BINDS {
        return Err(format!(
            "the read-write roots hold more than {MAX_BINDS} protected or denied paths to mount \
             over; protect fewer paths or split the roots"
        ));
    }
    Ok(Made {
        plan: Plan {
            cwd: options.cwd.to_path_buf(),
            read,
            deny_read: outside,
            write,
            binds,
            network: options.network,
            proxy_port: options.proxy_port,
            unix_sockets: options.unix_sockets,
        },
        protected_before,
        notes,
    })
}

fn rank(kind: &BindKind) -> u8 {
    match kind {
        BindKind::Pin => 0,
        BindKind::ReadOnly => 1,
        BindKind::Mask { .. } => 2,
    }
}

fn depth(p: &Path) -> usize {
    p.components().count()
}

/// The read grants that leave the `denied` paths (canonical, existing) out: `/` when nothing
/// is denied, else each ancestor of a denied path is granted child by child.
pub(crate) fn read_rules(denied: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    grant(Path::new("/"), denied, &mut out)?;
    Ok(out)
}

fn grant(path: &Path, denied: &[PathBuf], out: &mut Vec<PathBuf>) -> Result<(), String> {
    if denied.iter().any(|d| d == path) {
        return Ok(());
    }
    if !denied.iter().any(|d| d.starts_with(path)) {
        if out.len() >= MAX_READ_RULES {
            return Err(format!(
                "the deny list needs more than {MAX_READ_RULES} read rules (a directory \
                 holding a denied path has too many entries); deny fewer paths"
            ));
        }
        out.push(path.to_path_buf());
        return Ok(());
    }
    // An ancestor of a denied path: its entries one by one. One that cannot be listed is not
    // granted at all.
    let Ok(entries) = fs::read_dir(path) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        // A link is never granted: what it points at is judged on its own path.
        if entry.file_type().is_ok_and(|t| t.is_symlink()) {
            continue;
        }
        grant(&entry.path(), denied, out)?;
    }
    Ok(())
}

/// The protected patterns, compiled. Every call of a server has the same list, so the last
/// list's compiled set is kept: compiling is most of what planning a call costs.
fn protected_set(patterns: &[String]) -> Result<Arc<GlobSet>, String> {
    static LAST: Mutex<Option<(Vec<String>, Arc<GlobSet>)>> = Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((list, set)) = &*last
        && list.as_slice() == patterns
    {
        return Ok(set.clone());
    }
    let set = Arc::new(compile_protected(patterns)?);
    *last = Some((patterns.to_vec(), set.clone()));
    Ok(set)
}

fn compile_protected(patterns: &[String]) -> Result<GlobSet, String> {
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        for variant in [pattern.clone(), format!("**/{pattern}")] {
            let glob = GlobBuilder::new(&variant)
                .literal_separator(true)
                .case_insensitive(crate::workspace::CASE_INSENSITIVE_NAMES)
                .build()
                .map_err(|e| format!("protected pattern `{pattern}`: {}", e.kind()))?;
            set.add(glob);
        }
    }
    set.build().map_err(|e| e.to_string())
}

/// Protected paths found beneath a root.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub(crate) found: Vec<PathBuf>,
    pub(crate) truncated: bool,
}

/// Looks for the paths matching `patterns` beneath `root`, breadth-first, without following
/// links, within [`MAX_PROTECTED_WALK`] entries and [`MAX_PROTECTED_DEPTH`] levels; inside a
/// `.git` directory only its own entries are looked at. A match is not descended into.
pub(crate) fn find_protected(root: &Path, patterns: &GlobSet) -> Found {
    let mut out = Found::default();
    let mut queue: VecDeque<(PathBuf, usize, bool)> = VecDeque::new();
    queue.push_back((root.to_path_buf(), 0, false));
    let mut seen = 0usize;
    while let Some((dir, level, in_git)) = queue.pop_front() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_PROTECTED_WALK {
                out.truncated = true;
                return out;
            }
            let path = entry.path();
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if patterns.is_match(rel) {
                if !kind.is_symlink() {
                    out.found.push(path);
                }
                continue;
            }
            if kind.is_dir() && !in_git && level + 1 < MAX_PROTECTED_DEPTH {
                let is_git = entry.file_name() == ".git";
                queue.push_back((path, level + 1, is_git));
            }
        }
    }
    out
}

/// The protected paths beneath the roots now that were not there before the call (`before`):
/// what the command created where nothing could be mounted.
pub(crate) fn created_protected(
    writable: &[PathBuf],
    protected: &[String],
    before: &BTreeSet<PathBuf>,
) -> Vec<PathBuf> {
    let Ok(patterns) = protected_set(protected) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for root in writable {
        for p in find_protected(root, &patterns).found {
            if !before.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// The call's private directory, the command's `TMPDIR`, removed with what the command left
/// in it on drop; and, made only for a call that masks a denied path, a directory beside it
/// holding an empty file and an empty directory (the masks' sources).
#[derive(Debug)]
pub(crate) struct CallDir {
    path: PathBuf,
    masks: Mutex<Option<PathBuf>>,
}

impl CallDir {
    /// Makes a new directory under the system's temporary directory, readable by this user
    /// only.
    pub(crate) fn new() -> std::io::Result<CallDir> {
        let path = unique_dir(&std::env::temp_dir(), "toolsmith-bash")?;
        Ok(CallDir {
            path,
            masks: Mutex::new(None),
        })
    }

    /// The command's `TMPDIR`.
    pub(crate) fn tmp(&self) -> PathBuf {
        self.path.clone()
    }

    /// The empty directory masks of directories are made from.
    fn empty_dir(&self) -> std::io::Result<PathBuf> {
        Ok(self.masks()?.join("empty.d"))
    }

    /// The empty file masks of files are made from.
    fn empty_file(&self) -> std::io::Result<PathBuf> {
        Ok(self.masks()?.join("empty"))
    }

    fn masks(&self) -> std::io::Result<PathBuf> {
        let mut masks = self.masks.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(dir) = &*masks {
            return Ok(dir.clone());
        }
        let dir = unique_dir(&std::env::temp_dir(), "toolsmith-masks")?;
        *masks = Some(dir.clone());
        #[cfg_attr(not(unix), allow(unused_mut))]
        let mut builder = fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o500);
        builder.create(dir.join("empty.d"))?;
        fs::write(dir.join("empty"), b"")?;
        make_read_only(&dir.join("empty"), 0o400)?;
        Ok(dir)
    }
}

/// Makes a new directory named `{prefix}-{pid}-{n}-{nanos}` in `base`, readable by this user
/// only.
fn unique_dir(base: &Path, prefix: &str) -> std::io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut tries = 0;
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let candidate = base.join(format!("{prefix}-{}-{n}-{nanos:08x}", std::process::id()));
        // `mkdir` fails on anything already there, a planted link included.
        #[cfg_attr(not(unix), allow(unused_mut))]
        let mut builder = fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        match builder.create(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 16 => tries += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Makes `path` read-only: the Unix `mode`, or the read-only bit elsewhere.
fn make_read_only(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    let permissions = std::os::unix::fs::PermissionsExt::from_mode(mode);
    #[cfg(not(unix))]
    let permissions = {
        let _ = mode;
        let mut permissions = fs::metadata(path)?.permissions();
        permissions.set_readonly(true);
        permissions
    };
    fs::set_permissions(path, permissions)
}

impl Drop for CallDir {
    fn drop(&mut self) {
        // Mostly the command left nothing: one `rmdir`.
        if fs::remove_dir(&self.path).is_err() {
            let _ = fs::remove_dir_all(&self.path);
        }
        let masks = self.masks.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(dir) = masks.take() {
            // The empty directory is not writable; make it removable first.
            #[cfg(unix)]
            let _ = fs::set_permissions(
                dir.join("empty.d"),
                std::os::unix::fs::PermissionsExt::from_mode(0o700),
            );
            let _ = fs::remove_dir_all(&dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Vec<String> {
        super::super::DEFAULT_PROTECTED
            .iter()
            .map(|s| (*s).to_owned())
            .collect()
    }

    fn tree(base: &Path, paths: &[&str]) {
        for p in paths {
            let full = base.join(p);
            if let Some(d) = p.strip_suffix('/') {
                fs::create_dir_all(base.join(d)).unwrap();
            } else {
                fs::create_dir_all(full.parent().unwrap()).unwrap();
                fs::write(full, "x").unwrap();
            }
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_denied_path_is_left_out_child_by_child() {
        let dir = std::env::temp_dir().join(format!("plan-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        tree(
            &dir,
            &["home/.ssh/id", "home/.bashrc", "home/proj/", "other/x"],
        );
        std::os::unix::fs::symlink(dir.join("home/.ssh"), dir.join("home/link")).unwrap();
        let dir = dir.canonicalize().unwrap();
        let rules = read_rules(std::slice::from_ref(&dir.join("home/.ssh"))).unwrap();
        assert!(rules.contains(&dir.join("home/.bashrc")), "{rules:?}");
        assert!(rules.contains(&dir.join("home/proj")));
        assert!(rules.contains(&dir.join("other")));
        assert!(!rules.iter().any(|r| r.starts_with(dir.join("home/.ssh"))));
        assert!(
            !rules.contains(&dir.join("home/link")),
            "links are never granted"
        );
        assert!(
            !rules.contains(&dir.join("home")),
            "an ancestor is split, not granted"
        );
        assert!(!rules.contains(&PathBuf::from("/")));
        assert_eq!(read_rules(&[]).unwrap(), vec![PathBuf::from("/")]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn protected_paths_are_found_at_any_depth_but_not_inside_git() {
        let dir = std::env::temp_dir().join(format!("plan-walk-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        tree(
            &dir,
            &[
                ".git/config",
                ".git/hooks/pre-commit",
                ".git/objects/ab/cd",
                ".git/modules/x/.env",
                ".env",
                ".env.local",
                "a/b/.env",
                "a/b/c.txt",
                "src/main.rs",
            ],
        );
        let patterns = protected_set(&defaults()).unwrap();
        let mut found = find_protected(&dir, &patterns).found;
        found.sort();
        let rel: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap().to_str().unwrap())
            .collect();
        assert_eq!(
            rel,
            [
                ".env",
                ".env.local",
                ".git/config",
                ".git/hooks",
                "a/b/.env"
            ]
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A denied file inside a denied directory is denied with it: one mask, over the
    /// directory (the file could not be mounted over once its directory is masked).
    #[test]
    fn a_path_beneath_a_denied_directory_is_not_masked_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        tree(&root, &[".toolsmith/activity.db", "src/lib.rs"]);
        let call = CallDir::new().unwrap();
        let made = build(
            &PlanOptions {
                cwd: &root,
                writable: std::slice::from_ref(&root),
                denied: &[
                    root.join(".toolsmith/activity.db"),
                    root.join(".toolsmith"),
                    root.join(".toolsmith/activity.db-wal"),
                ],
                protected: &[],
                network: false,
                proxy_port: None,
                unix_sockets: false,
            },
            &call,
        )
        .unwrap();
        let masked: Vec<&Path> = made
            .plan
            .binds
            .iter()
            .filter(|b| matches!(b.kind, BindKind::Mask { .. }))
            .map(|b| b.path.as_path())
            .collect();
        assert_eq!(masked, [root.join(".toolsmith").as_path()]);
    }

    #[test]
    fn binds_pin_the_directories_above_a_protected_path_outer_first() {
        let dir = std::env::temp_dir().join(format!("plan-binds-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        tree(&dir, &[".git/config", "a/b/.env", ".toolsmith/agents.db"]);
        let root = dir.canonicalize().unwrap();
        let call = CallDir::new().unwrap();
        let made = build(
            &PlanOptions {
                cwd: &root,
                writable: std::slice::from_ref(&root),
                denied: &[root.join(".toolsmith")],
                protected: &defaults(),
                network: false,
                proxy_port: None,
                unix_sockets: false,
            },
            &call,
        )
        .unwrap();
        let binds: Vec<(String, u8)> = made
            .plan
            .binds
            .iter()
            .map(|b| {
                let rel = b
                    .path
                    .strip_prefix(&root)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_owned();
                (rel, rank(&b.kind))
            })
            .collect();
        assert_eq!(
            binds,
            [
                (".git".to_owned(), 0),
                (".toolsmith".to_owned(), 2),
                ("a".to_owned(), 0),
                (".git/config".to_owned(), 1),
                ("a/b".to_owned(), 0),
                ("a/b/.env".to_owned(), 1),
            ]
        );
        assert!(made.plan.write.contains(&call.tmp()));
        assert_eq!(made.plan.read, vec![PathBuf::from("/")]);
        let path = call.path.clone();
        let masks = call.masks.lock().unwrap().clone().expect("a mask was made");
        assert!(masks.join("empty").is_file() && masks.join("empty.d").is_dir());
        fs::write(path.join("left-behind"), "x").unwrap();
        drop(call);
        assert!(!path.exists(), "the call's directory is removed");
        assert!(!masks.exists(), "the masks' directory is removed");
        fs::remove_dir_all(&dir).unwrap();
    }
}
