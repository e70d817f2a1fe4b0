//! [`ExportCache`]: each tool's export per format computed once, kept with its compact text.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use super::error::ExportError;
use super::{Exported, Format, export_entry, xml};
use crate::spec::ToolSpec;

/// The most tools one cache keeps per format; past it the format's entries are dropped and
/// computed again on demand.
pub const MAX_CACHED_TOOLS: usize = 10_000;

/// One tool's export in one format, with its compact text (JSON, or the XML section).
#[derive(Debug, Clone, PartialEq)]
pub struct CachedExport {
    /// The export (for [`Format::Xml`], the tool's section of the block).
    pub value: Exported,
    /// Its compact text.
    pub text: String,
}

#[derive(Debug)]
struct Entry {
    spec: ToolSpec,
    result: Result<Arc<CachedExport>, ExportError>,
}

/// Whether a cached spec still describes `spec`: same texts and metadata, and the very same
/// schema values (schemas are shared `Arc`s, computed once at registration).
fn same(a: &ToolSpec, b: &ToolSpec) -> bool {
    std::sync::Arc::ptr_eq(&a.input_schema, &b.input_schema)
        && match (&a.output_schema, &b.output_schema) {
            (Some(x), Some(y)) => std::sync::Arc::ptr_eq(x, y),
            (None, None) => true,
            _ => false,
        }
        && a.name == b.name
        && a.title == b.title
        && a.description == b.description
        && a.category == b.category
        && a.annotations == b.annotations
        && a.actions == b.actions
}

/// A cache of exports keyed by tool name and format.
///
/// Exporting is pure, so a host that sends the same tool list with every request can keep
/// the exports: the first request computes them, the next ones only join cached text. An
/// entry is used only while the spec is the same (see the check in the source: same schema
/// `Arc`s, same texts); a changed spec is exported again. Thread-safe.
///
/// ```
/// use tool_core::ToolSpec;
/// use tool_core::provider::{ExportCache, Format};
/// let specs = vec![ToolSpec::new("ping", "Answer pong.")];
/// let cache = ExportCache::new();
/// let first = cache.export_all(&specs, Format::Anthropic)?;
/// let again = cache.export_all(&specs, Format::Anthropic)?; // from the cache
/// assert_eq!(first, again);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct ExportCache {
    entries: RwLock<HashMap<Format, HashMap<String, Entry>>>,
}

impl ExportCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// One tool's export in a format, computed on first use.
    pub fn export(
        &self,
        spec: &ToolSpec,
        format: Format,
    ) -> Result<Arc<CachedExport>, ExportError> {
        {
            let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
            if let Some(entry) = entries.get(&format).and_then(|m| m.get(spec.name.as_ref()))
                && same(&entry.spec, spec)
            {
                return entry.result.clone();
            }
        }
        let result = export_entry(spec, format).map(|value| {
            let text = value.to_compact();
            Arc::new(CachedExport { value, text })
        });
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        let map = entries.entry(format).or_default();
        if map.len() >= MAX_CACHED_TOOLS {
            map.clear();
        }
        map.insert(
            spec.name.to_string(),
            Entry {
                spec: spec.clone(),
                result: result.clone(),
            },
        );
        result
    }

    /// The export of a list of tools as text: a compact JSON array of the entries (the same
    /// text as `serde_json::to_string` of [`super::export_all`]'s value), or the XML block.
    /// [`Format::AnthropicStrict`] and [`Format::Typescript`] lists are exported whole each
    /// time (an entry depends on the others there).
    pub fn export_all<'a, I>(&self, specs: I, format: Format) -> Result<String, ExportError>
    where
        I: IntoIterator<Item = &'a ToolSpec>,
    {
        if matches!(format, Format::AnthropicStrict | Format::Typescript) {
            // What one entry says depends on the whole list here (a request's limits, the
            // declarations' alias names), so the list is exported as a whole.
            let specs: Vec<&ToolSpec> = specs.into_iter().collect();
            return super::export_all(specs, format).map(|e| e.to_compact());
        }
        if format == Format::Xml {
            let mut sections = Vec::new();
            for spec in specs {
                sections.push((spec, self.export(spec, format)?));
            }
            return Ok(xml::assemble(
                sections
                    .iter()
                    .map(|(spec, c)| (spec.category.as_deref(), c.text.as_str())),
            ));
        }
        let mut out = String::from("[");
        for (i, spec) in specs.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&self.export(spec, format)?.text);
        }
        out.push(']');
        Ok(out)
    }

    /// Forgets every entry.
    pub fn clear(&self) {
        self.entries
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// The number of cached entries, all formats together.
    pub fn len(&self) -> usize {
        self.entries
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .map(HashMap::len)
            .sum()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
