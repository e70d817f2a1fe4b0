//! What `read_file` reads besides text: images (PNG, JPEG, GIF, WebP), returned as images the
//! model sees, and PDFs, returned as the text of a range of pages.
//!
//! Both are recognised by their first bytes, not their names. An image is sent as it is
//! when its long edge is at most [`FileConfig::max_image_edge`] pixels and its bytes at most
//! [`FileConfig::max_image_send_bytes`]; otherwise it is scaled down to fit the edge (PNG, or
//! JPEG for a JPEG) and the answer says so. A file over [`FileConfig::max_image_file_bytes`]
//! is refused unread, and so is one whose pixels would not fit in the decoder's memory limit.
//! A PDF over [`FileConfig::max_pdf_bytes`] is refused; one call reads at most
//! [`FileConfig::max_pdf_pages`] pages (`pages: "2-3"`), and the answer gives the total.

use std::io::Cursor;

use image::{ImageFormat, ImageReader, Limits};
use serde::{Deserialize, Serialize};
use tool_core::{Image, ToolError};

use super::config::FileConfig;

/// Bytes the decoder may allocate for one image (its pixels).
const MAX_DECODE_ALLOC: u64 = 512 * 1024 * 1024;

/// What a file is, by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Media {
    Image(ImageFormat),
    Pdf,
}

/// Bytes [`sniff`] needs.
pub(crate) const SNIFF_BYTES: usize = 16;

/// Recognises an image or a PDF by its first bytes.
pub(crate) fn sniff(head: &[u8]) -> Option<Media> {
    if head.starts_with(b"%PDF-") {
        return Some(Media::Pdf);
    }
    let format = if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        ImageFormat::Png
    } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        ImageFormat::Jpeg
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        ImageFormat::Gif
    } else if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        ImageFormat::WebP
    } else {
        return None;
    };
    Some(Media::Image(format))
}

/// The image `read_file` returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ImageInfo {
    /// Width in pixels, as sent.
    pub width: u32,
    /// Height in pixels, as sent.
    pub height: u32,
    /// Bytes sent.
    pub bytes: usize,
    /// The file's own width and height, when it was scaled down to be sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaled_from: Option<[u32; 2]>,
}

/// Reads an image file's bytes into the image to send.
pub(crate) fn image(
    shown: &str,
    bytes: Vec<u8>,
    format: ImageFormat,
    config: &FileConfig,
) -> Result<(ImageInfo, Image), ToolError> {
    let fail = |e: image::ImageError| {
        ToolError::user(format!("`{shown}` could not be read as an image: {e}"))
            .with_suggestion("The file may be damaged or not what its first bytes say.")
    };
    let (width, height) = reader(&bytes, format).into_dimensions().map_err(fail)?;
    let edge = config.max_image_edge.max(1);
    if width.max(height) <= edge && bytes.len() <= config.max_image_send_bytes {
        let info = ImageInfo {
            width,
            height,
            bytes: bytes.len(),
            scaled_from: None,
        };
        return Ok((info, Image::new(media_type(format), bytes)));
    }
    let decoded = reader(&bytes, format).decode().map_err(fail)?;
    let out_format = if format == ImageFormat::Jpeg {
        ImageFormat::Jpeg
    } else {
        ImageFormat::Png
    };
    // Scaled to fit the edge, then by half again while the encoding is still too large.
    let mut fit = edge.min(width.max(height));
    loop {
        let mut scaled = decoded.resize(fit, fit, image::imageops::FilterType::Triangle);
        if out_format == ImageFormat::Jpeg {
            scaled = image::DynamicImage::ImageRgb8(scaled.to_rgb8());
        }
        let mut encoded = Cursor::new(Vec::new());
        scaled.write_to(&mut encoded, out_format).map_err(fail)?;
        let encoded = encoded.into_inner();
        if encoded.len() <= config.max_image_send_bytes {
            let info = ImageInfo {
                width: scaled.width(),
                height: scaled.height(),
                bytes: encoded.len(),
                scaled_from: Some([width, height]),
            };
            return Ok((info, Image::new(media_type(out_format), encoded)));
        }
        if fit <= 64 {
            return Err(ToolError::user(format!(
                "`{shown}` ({width}x{height}) could not be made small enough to send ({} \
                 bytes at most)",
                config.max_image_send_bytes
            )));
        }
        fit /= 2;
    }
}

/// A decoder reading `bytes` in place, its memory bounded.
fn reader(bytes: &[u8], format: ImageFormat) -> ImageReader<Cursor<&[u8]>> {
    let mut r = ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    r.limits(limits);
    r
}

fn media_type(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Png => "image/png",
        ImageFormat::Jpeg => "image/jpeg",
        ImageFormat::Gif => "image/gif",
        ImageFormat::WebP => "image/webp",
        _ => "application/octet-stream",
    }
}

/// The media type of what [`sniff`] found.
pub(crate) fn media_type_of(media: Media) -> &'static str {
    match media {
        Media::Image(f) => media_type(f),
        Media::Pdf => "application/pdf",
    }
}

/// A page range as `pages` gives it: `"3"` or `"2-5"` (1-based, inclusive).
pub(crate) fn parse_pages(spec: &str) -> Result<(usize, usize), ToolError> {
    let bad = || {
        ToolError::validation(format!(
            "pages `{spec}` is not a page or a range; give \"3\" or \"2-5\" (1-based)"
        ))
        .with_field("pages", spec)
    };
    let spec_t = spec.trim();
    let (a, b) = match spec_t.split_once('-') {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (spec_t, spec_t),
    };
    let a: usize = a.parse().map_err(|_| bad())?;
    let b: usize = b.parse().map_err(|_| bad())?;
    if a == 0 || b < a {
        return Err(bad());
    }
    Ok((a, b))
}

/// The text of a PDF's pages.
#[derive(Debug)]
pub(crate) struct PdfPages {
    /// The text, each page after a `--- page N ---` line.
    pub(crate) text: String,
    pub(crate) first: usize,
    pub(crate) last: usize,
    pub(crate) total: usize,
    /// Whether the range asked for was cut to the per-call limit.
    pub(crate) cut: bool,
}

/// Extracts the text of `pages` (default: from the first) of a PDF, at most
/// [`FileConfig::max_pdf_pages`] pages.
pub(crate) fn pdf(
    shown: &str,
    bytes: &[u8],
    pages: Option<(usize, usize)>,
    config: &FileConfig,
) -> Result<PdfPages, ToolError> {
    let unreadable = |why: String| {
        ToolError::user(format!("`{shown}` could not be read as a PDF: {why}"))
            .with_suggestion("The file may be damaged; a scanned PDF holds images, not text.")
    };
    // The extractor is not free of panics on damaged files: one is caught here and answered
    // as a damaged file.
    let extracted = std::panic::catch_unwind(|| -> Result<PdfPages, ToolError> {
        let doc = pdf_extract::Document::load_mem(bytes).map_err(|e| unreadable(e.to_string()))?;
        if doc.is_encrypted() {
            return Err(ToolError::user(format!(
                "`{shown}` is an encrypted PDF; its text cannot be read without its password"
            )));
        }
        let total = doc.get_pages().len();
        let max = config.max_pdf_pages.max(1);
        let (first, asked_last) = pages.unwrap_or((1, total.max(1)));
        if first > total {
            return Err(ToolError::validation(format!(
                "`{shown}` has {total} page(s); page {first} is past its end"
            ))
            .with_field("total_pages", total));
        }
        let last = asked_last.min(total).min(first + max - 1);
        let mut text = String::new();
        for page in first..=last {
            let mut page_text = String::new();
            {
                let mut out = pdf_extract::PlainTextOutput::new(&mut page_text);
                let number = u32::try_from(page).unwrap_or(u32::MAX);
                pdf_extract::output_doc_page(&doc, &mut out, number)
                    .map_err(|e| unreadable(format!("page {page}: {e}")))?;
            }
            text.push_str(&format!("--- page {page} ---\n"));
            text.push_str(page_text.trim_matches('\n'));
            text.push('\n');
        }
        Ok(PdfPages {
            text,
            first,
            last,
            total,
            cut: last < asked_last.min(total),
        })
    });
    extracted.unwrap_or_else(|_| Err(unreadable("its structure is damaged".to_owned())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_is_known_by_its_first_bytes() {
        assert_eq!(sniff(b"%PDF-1.7\n"), Some(Media::Pdf));
        assert_eq!(
            sniff(b"\x89PNG\r\n\x1a\n...."),
            Some(Media::Image(ImageFormat::Png))
        );
        assert_eq!(
            sniff(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some(Media::Image(ImageFormat::Jpeg))
        );
        assert_eq!(sniff(b"GIF89a.."), Some(Media::Image(ImageFormat::Gif)));
        assert_eq!(
            sniff(b"RIFF\0\0\0\0WEBPVP8 "),
            Some(Media::Image(ImageFormat::WebP))
        );
        assert_eq!(sniff(b"RIFF\0\0\0\0WAVEfmt "), None);
        assert_eq!(sniff(b"fn main() {}"), None);
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn page_ranges() {
        assert_eq!(parse_pages("2").unwrap(), (2, 2));
        assert_eq!(parse_pages("2-3").unwrap(), (2, 3));
        assert_eq!(parse_pages(" 4 - 9 ").unwrap(), (4, 9));
        for bad in ["0", "3-2", "x", "1-", "-2", ""] {
            assert!(parse_pages(bad).is_err(), "{bad}");
        }
    }
}
