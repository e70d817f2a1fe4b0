//! Rendering tool output for the model and for people: [`Render`], [`ResourcesTracker`] and
//! result previews.
//!
//! A tool's output is structured data (its JSON form is what providers and UIs get) plus two
//! renderings: a one-line *status* for an activity list, and the *model text* put into the
//! conversation. Model text may include resources (a file's content); the
//! [`ResourcesTracker`] makes sure one resource is shown once per conversation, and when a
//! whole history is re-rendered ([`ResourcesTracker::render_history`]) the newest occurrence
//! keeps the content while older ones point to it.

use std::collections::HashSet;

/// The most resource ids one tracker remembers; past it the oldest are forgotten (a resource
/// may then be shown again, which is safe).
pub const MAX_TRACKED_RESOURCES: usize = 100_000;

/// How a tool's output is shown. Every method has a default, so `impl Render for MyOutput {}`
/// is enough to get a JSON rendering.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as a tool's output: it does not implement `Render`",
    label = "the output type must implement `Render`",
    note = "add `impl Render for {Self} {{}}` to render it as JSON, or implement `status` and `render` for custom text"
)]
pub trait Render {
    /// A short status line for an activity list, e.g. `"Loaded 2 file(s)"`. `None` uses
    /// `"<tool> succeeded"`.
    fn status(&self) -> Option<String> {
        None
    }

    /// The text the model reads. `None` uses the output's compact JSON. Use `tracker` to show
    /// a resource once: see [`ResourcesTracker::show`].
    fn render(&self, tracker: &mut ResourcesTracker) -> Option<String> {
        let _ = tracker;
        None
    }

    /// Whether this output reports success (an output may carry a soft failure, like a
    /// command that exited non-zero). Defaults to `true`.
    fn is_success(&self) -> bool {
        true
    }

    /// For an output that reports a failure ([`is_success`](Self::is_success) is `false`),
    /// what went wrong, in a line or a few: the activity record's `error` (a command's exit
    /// code and the end of its stderr). `None` (the default) uses the status line.
    fn failure(&self) -> Option<String> {
        None
    }

    /// Images that go to the model beside the text ([`Image`]): a picture the tool read.
    /// The text should still say what they are, for providers whose tool results carry no
    /// images (OpenAI Chat Completions, the XML form). Default none.
    fn images(&self) -> Vec<Image> {
        Vec::new()
    }

    /// For the output of a polymorphic tool (made by `#[tool]` on an `impl`), the chosen
    /// action's own output, so that [`ToolOutput::downcast_ref`](crate::ToolOutput::downcast_ref)
    /// reaches it. Not for hand-written outputs.
    #[doc(hidden)]
    fn action_output(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// An image a tool's result carries to the model ([`Render::images`]): MCP `image` content,
/// an Anthropic `image` block, an OpenAI Responses `input_image`, a Gemini `inlineData` part.
#[derive(Clone, PartialEq, Eq)]
pub struct Image {
    media_type: String,
    data: std::sync::Arc<[u8]>,
}

impl Image {
    /// An image of `media_type` (`image/png`, `image/jpeg`, `image/gif`, `image/webp`) made
    /// of the encoded `bytes`.
    pub fn new(media_type: impl Into<String>, bytes: impl Into<std::sync::Arc<[u8]>>) -> Image {
        Image {
            media_type: media_type.into(),
            data: bytes.into(),
        }
    }

    /// The media type.
    pub fn media_type(&self) -> &str {
        &self.media_type
    }

    /// The encoded bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }

    /// The bytes in standard base64, as every provider takes them.
    pub fn base64(&self) -> String {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(&self.data)
    }

    /// A `data:` URL of the image (OpenAI's `image_url`).
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.media_type, self.base64())
    }
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("media_type", &self.media_type)
            .field("bytes", &self.data.len())
            .finish()
    }
}

impl Render for serde_json::Value {}
impl Render for String {
    fn render(&self, _: &mut ResourcesTracker) -> Option<String> {
        Some(self.clone())
    }
}
impl Render for () {}

/// A stable 64-bit FNV-1a hash, for resource ids that must not change between builds.
pub(crate) fn content_hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Tracks which resources the conversation has already shown, so each is shown once.
#[derive(Debug, Default, Clone)]
pub struct ResourcesTracker {
    rendered: HashSet<String>,
    order: std::collections::VecDeque<String>,
}

impl ResourcesTracker {
    /// An empty tracker.
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of a file resource: project, path and a hash of the content, so a changed file
    /// is shown again.
    pub fn file_id(project: &str, path: &str, content: &str) -> String {
        format!(
            "file:{project}:{path}:{:016x}",
            content_hash(content.as_bytes())
        )
    }

    /// Whether the resource was already shown.
    pub fn is_rendered(&self, id: &str) -> bool {
        self.rendered.contains(id)
    }

    /// Marks the resource as shown.
    pub fn mark_rendered(&mut self, id: impl Into<String>) {
        let id = id.into();
        if self.rendered.insert(id.clone()) {
            self.order.push_back(id);
            while self.order.len() > MAX_TRACKED_RESOURCES {
                if let Some(old) = self.order.pop_front() {
                    self.rendered.remove(&old);
                }
            }
        }
    }

    /// Returns `true` (and marks it) the first time a resource is seen; `false` after.
    pub fn show(&mut self, id: impl Into<String>) -> bool {
        let id = id.into();
        if self.is_rendered(&id) {
            false
        } else {
            self.mark_rendered(id);
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_once() {
        let mut t = ResourcesTracker::new();
        let id = ResourcesTracker::file_id("p", "a.rs", "fn main() {}");
        assert!(t.show(id.clone()));
        assert!(!t.show(id));
        let changed = ResourcesTracker::file_id("p", "a.rs", "fn main() { }");
        assert!(t.show(changed));
    }

    #[test]
    fn content_hash_is_fnv_1a_64() {
        // Stable across builds: resource ids carry it.
        assert_eq!(content_hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(content_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
