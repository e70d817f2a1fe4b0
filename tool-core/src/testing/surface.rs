//! Tool-surface snapshots: what the models and hosts calling a crate's tools see, one file per
//! tool per export format, held against the tools as they are now.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::compat::{self, Break, Side};
use crate::provider::{self, Format};
use crate::registry::Registry;
use crate::spec::ToolSpec;

/// The environment variable that makes [`Surface::check`] rewrite every snapshot (`1` or
/// `true`), to accept the tools as they are now.
pub const UPDATE_SNAPSHOTS: &str = "TOOLSMITH_UPDATE_SNAPSHOTS";

/// The formats a surface is snapshotted in unless [`Surface::formats`] says otherwise: what
/// MCP hosts, OpenAI (strict), Anthropic and Gemini are given.
pub const DEFAULT_FORMATS: &[Format] = &[
    Format::Mcp,
    Format::OpenaiStrict,
    Format::Anthropic,
    Format::Gemini,
];

/// How closely the tools must match their snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SnapshotMode {
    /// Any change fails, a description's wording included.
    Strict,
    /// Any change but to a description's text fails.
    Structural,
    /// Only a change a caller notices fails: a parameter removed or renamed, one newly
    /// required, a type, an enum or a bound narrowed, an output field removed, retyped or no
    /// longer always there, a tool removed or no longer exportable. Additions pass (a new
    /// optional parameter, a new action or enum value, a new output field, a new tool), and
    /// so do descriptions. The text of [`Format::Xml`] is held as [`Structural`](Self::Structural)
    /// holds it.
    #[default]
    Compatible,
}

/// One difference that fails a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SurfaceChange {
    /// The tool.
    pub tool: String,
    /// The export format.
    pub format: Format,
    /// Where, as a JSON pointer into the exported entry (`/inputSchema/properties/limit`), or
    /// `line N` of a text format.
    pub path: String,
    /// Why it fails, in a sentence (for [`SnapshotMode::Compatible`], why it breaks callers).
    pub why: String,
}

impl fmt::Display for SurfaceChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool `{}`, format `{}`, at `{}`: {}",
            self.tool, self.format, self.path, self.why
        )
    }
}

/// What a check found: the changes that fail it, and what it wrote or let pass.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SurfaceReport {
    /// The changes that fail the check.
    pub failures: Vec<SurfaceChange>,
    /// Snapshots written (new tools, a first run, or every one when updating).
    pub written: Vec<PathBuf>,
    /// Snapshots that differ in a way the mode lets pass (kept as they were).
    pub passed_changes: Vec<PathBuf>,
}

impl SurfaceReport {
    /// Whether nothing failed.
    pub fn is_ok(&self) -> bool {
        self.failures.is_empty()
    }
}

impl fmt::Display for SurfaceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.failures.is_empty() {
            return write!(
                f,
                "the tools match their snapshots ({} written, {} changed compatibly)",
                self.written.len(),
                self.passed_changes.len()
            );
        }
        writeln!(
            f,
            "{} change(s) to the tools' surface fail their snapshots:",
            self.failures.len()
        )?;
        for change in &self.failures {
            writeln!(f, "- {change}")?;
        }
        write!(
            f,
            "Review them: a caller built against the snapshot breaks. To accept the tools as they \
             are, run again with {UPDATE_SNAPSHOTS}=1 and commit the snapshots."
        )
    }
}

/// The tools' surface, checked against the snapshots in a directory.
///
/// ```no_run
/// # fn registry() -> tool_core::Registry { unimplemented!() }
/// use tool_core::testing::{SnapshotMode, Surface};
/// // tests/snapshots/tools/<tool>.<format>.json, written on the first run.
/// Surface::of(&registry()).mode(SnapshotMode::Compatible).assert();
/// ```
#[derive(Debug, Clone)]
pub struct Surface {
    specs: Vec<ToolSpec>,
    formats: Vec<Format>,
    dir: PathBuf,
    mode: SnapshotMode,
}

impl Surface {
    /// Every tool of `registry`, in [`DEFAULT_FORMATS`], against `tests/snapshots/tools/` of
    /// the crate under test (`CARGO_MANIFEST_DIR`, which cargo sets for a test), compared
    /// [`Compatible`](SnapshotMode::Compatible)ly.
    pub fn of(registry: &Registry) -> Surface {
        Self::from_specs(registry.iter().map(|e| (**e.spec()).clone()))
    }

    /// The tools `specs` (see [`of`](Self::of)).
    pub fn from_specs(specs: impl IntoIterator<Item = ToolSpec>) -> Surface {
        let crate_dir =
            std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(PathBuf::new, PathBuf::from);
        Surface {
            specs: specs.into_iter().collect(),
            formats: DEFAULT_FORMATS.to_vec(),
            dir: crate_dir.join("tests").join("snapshots").join("tools"),
            mode: SnapshotMode::default(),
        }
    }

    /// The formats to snapshot in.
    pub fn formats(mut self, formats: &[Format]) -> Surface {
        self.formats = formats.to_vec();
        self
    }

    /// The directory of the snapshots.
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Surface {
        self.dir = dir.into();
        self
    }

    /// How closely the tools must match.
    pub fn mode(mut self, mode: SnapshotMode) -> Surface {
        self.mode = mode;
        self
    }

    /// Checks every tool in every format against its snapshot; writes the snapshots that are
    /// missing (and every one when [`UPDATE_SNAPSHOTS`] is set, removing those of tools that
    /// are gone). An error only when the directory cannot be read or written.
    pub fn check(&self) -> std::io::Result<SurfaceReport> {
        let updating = std::env::var(UPDATE_SNAPSHOTS).is_ok_and(|v| v == "1" || v == "true");
        std::fs::create_dir_all(&self.dir)?;
        let mut report = SurfaceReport::default();
        let mut seen = BTreeSet::new();
        for spec in &self.specs {
            for &format in &self.formats {
                let file = self.dir.join(file_name(&spec.name, format));
                seen.insert(file.clone());
                let now = exported(spec, format);
                let before = match std::fs::read_to_string(&file) {
                    Ok(text) if !updating => text,
                    Ok(_) | Err(_) => {
                        std::fs::write(&file, &now)?;
                        report.written.push(file);
                        continue;
                    }
                };
                if before == now {
                    continue;
                }
                let found = differences(&spec.name, format, &before, &now, self.mode);
                if found.is_empty() {
                    report.passed_changes.push(file);
                } else {
                    report.failures.extend(found);
                }
            }
        }
        // Snapshots of tools that are gone.
        for entry in std::fs::read_dir(&self.dir)? {
            let path = entry?.path();
            let Some((tool, format)) = parse_file_name(&path, &self.formats) else {
                continue;
            };
            if seen.contains(&path) {
                continue;
            }
            if updating {
                std::fs::remove_file(&path)?;
            } else {
                report.failures.push(SurfaceChange {
                    tool,
                    format,
                    path: "/".into(),
                    why: "the tool was removed (or renamed): calls to it are refused".into(),
                });
            }
        }
        Ok(report)
    }

    /// [`check`](Self::check), panicking with every failure (for a test).
    pub fn assert(&self) {
        match self.check() {
            Ok(report) if report.is_ok() => {
                if !report.passed_changes.is_empty() {
                    eprintln!(
                        "{} snapshot(s) changed compatibly; run with {UPDATE_SNAPSHOTS}=1 to record \
                         them",
                        report.passed_changes.len()
                    );
                }
            }
            Ok(report) => panic!("{report}"),
            Err(e) => panic!(
                "the snapshots in {} cannot be read or written: {e}",
                self.dir.display()
            ),
        }
    }
}

/// `<tool>.<format>.json` (`.md` for the XML prompt block).
fn file_name(tool: &str, format: Format) -> String {
    let ext = if format == Format::Xml { "md" } else { "json" };
    format!("{tool}.{}.{ext}", format.as_str())
}

/// The tool and format of a snapshot file of one of `formats`.
fn parse_file_name(path: &Path, formats: &[Format]) -> Option<(String, Format)> {
    let name = path.file_name()?.to_str()?;
    formats.iter().find_map(|&format| {
        let tail = file_name("", format);
        let tool = name.strip_suffix(&tail)?;
        (!tool.is_empty()).then(|| (tool.to_owned(), format))
    })
}

/// A tool's entry in `format` as a snapshot holds it; a tool the format cannot state holds
/// the error (`{"export_error": "..."}`).
fn exported(spec: &ToolSpec, format: Format) -> String {
    let mut text = match provider::export(spec, format) {
        Ok(e) => e.to_pretty(),
        Err(e) => serde_json::to_string_pretty(&serde_json::json!({"export_error": e.to_string()}))
            .unwrap_or_default(),
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// What fails between two snapshots of one tool in one format, in `mode`.
fn differences(
    tool: &str,
    format: Format,
    before: &str,
    now: &str,
    mode: SnapshotMode,
) -> Vec<SurfaceChange> {
    let change = |path: String, why: String| SurfaceChange {
        tool: tool.to_owned(),
        format,
        path,
        why,
    };
    let (Ok(old), Ok(new)) = (
        serde_json::from_str::<Value>(before),
        serde_json::from_str::<Value>(now),
    ) else {
        // Text (the XML prompt block): line by line.
        return match text_difference(before, now) {
            Some((line, why)) => vec![change(format!("line {line}"), why)],
            None => Vec::new(),
        };
    };
    match mode {
        SnapshotMode::Strict => match first_difference(&old, &new, String::new()) {
            Some((path, why)) => vec![change(path, why)],
            None => match text_difference(before, now) {
                Some((line, why)) => vec![change(format!("line {line}"), why)],
                None => Vec::new(),
            },
        },
        SnapshotMode::Structural => {
            let (old, new) = (without_descriptions(&old), without_descriptions(&new));
            first_difference(&old, &new, String::new())
                .map(|(path, why)| vec![change(path, why)])
                .unwrap_or_default()
        }
        SnapshotMode::Compatible => compatible(&old, &new)
            .into_iter()
            .map(|b| change(b.path, b.why))
            .collect(),
    }
}

/// Where a format keeps a tool's input and output schemas.
const INPUT_AT: &[&str] = &[
    "/inputSchema",
    "/input_schema",
    "/function/parameters",
    "/parameters",
];
const OUTPUT_AT: &[&str] = &["/outputSchema", "/output_schema", "/response"];

/// The breaking changes from the entry `old` to `new`.
fn compatible(old: &Value, new: &Value) -> Vec<Break> {
    let old_error = old.get("export_error");
    if let Some(error) = new.get("export_error") {
        return match old_error {
            Some(_) => Vec::new(),
            None => vec![Break {
                path: "/".into(),
                why: format!("the tool can no longer be exported in this format: {error}"),
            }],
        };
    }
    if old_error.is_some() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (pointers, side) in [(INPUT_AT, Side::Input), (OUTPUT_AT, Side::Output)] {
        let found_at = pointers
            .iter()
            .find_map(|p| old.pointer(p).map(|s| (*p, s)));
        let Some((at, old_schema)) = found_at else {
            continue;
        };
        match new.pointer(at) {
            Some(new_schema) => found.extend(
                compat::breaks(old_schema, new_schema, side)
                    .into_iter()
                    .map(|b| Break {
                        path: format!("{at}{}", if b.path == "/" { "" } else { &b.path }),
                        why: b.why,
                    }),
            ),
            None if side == Side::Output => found.push(Break {
                path: at.to_owned(),
                why: "the output schema was removed: callers can no longer rely on the answer's \
                      shape"
                    .into(),
            }),
            None => {}
        }
    }
    found
}

/// `v` with every string-valued `description` removed.
fn without_descriptions(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, v)| !(k.as_str() == "description" && v.is_string()))
                .map(|(k, v)| (k.clone(), without_descriptions(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_descriptions).collect()),
        other => other.clone(),
    }
}

/// The first place where `old` and `new` differ, and what differs there.
fn first_difference(old: &Value, new: &Value, path: String) -> Option<(String, String)> {
    let at = |p: &str| {
        if p.is_empty() {
            "/".to_owned()
        } else {
            p.to_owned()
        }
    };
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => {
            for (k, ov) in o {
                let child = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
                match n.get(k) {
                    None => return Some((child, "removed".into())),
                    Some(nv) => {
                        if let Some(d) = first_difference(ov, nv, child) {
                            return Some(d);
                        }
                    }
                }
            }
            n.keys()
                .find(|k| !o.contains_key(*k))
                .map(|k| (format!("{path}/{k}"), "added".into()))
        }
        (Value::Array(o), Value::Array(n)) => {
            for (i, (ov, nv)) in o.iter().zip(n).enumerate() {
                if let Some(d) = first_difference(ov, nv, format!("{path}/{i}")) {
                    return Some(d);
                }
            }
            (o.len() != n.len()).then(|| (at(&path), format!("{} items, was {}", n.len(), o.len())))
        }
        _ if old == new => None,
        _ => Some((at(&path), format!("changed from {old} to {new}"))),
    }
}

/// The first line where two texts differ.
fn text_difference(before: &str, now: &str) -> Option<(usize, String)> {
    if before == now {
        return None;
    }
    let (mut old, mut new) = (before.lines(), now.lines());
    let mut line = 0;
    loop {
        line += 1;
        match (old.next(), new.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (a, b) => {
                return Some((
                    line,
                    format!(
                        "was {:?}, is {:?}",
                        a.unwrap_or("(end)"),
                        b.unwrap_or("(end)")
                    ),
                ));
            }
        }
    }
}
