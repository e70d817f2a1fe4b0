//! Images and PDFs through `read_file` over `toolsmith serve` on stdio: a PNG comes back as
//! MCP `image` content beside a text that says what it is; an image past the edge limit is
//! scaled down, as the docs say; a 3-page PDF is read by page range.

use std::io::Cursor;

use base64::Engine as _;
use serde_json::{Value, json};

use crate::support::stdio::{StdioServe, Version, text_of};

fn read(server: &mut StdioServe, id: u64, arguments: Value) -> Value {
    server.ask(Version::V2026.request(
        &json!(id),
        "tools/call",
        json!({"name": "read_file", "arguments": arguments}),
    ))
}

/// A PNG of `width` x `height` pixels in a gradient.
fn png(width: u32, height: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 128])
    });
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)
        .expect("png");
    out.into_inner()
}

/// A PDF whose pages hold `texts`, one each, in a standard font.
fn pdf(texts: &[&str]) -> Vec<u8> {
    use lopdf::content::{Content, Operation};
    use lopdf::{Document, Object, Stream, dictionary};
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Courier",
    });
    let resources_id = doc.add_object(dictionary! {"Font" => dictionary! {"F1" => font_id}});
    let mut kids: Vec<Object> = Vec::new();
    for text in texts {
        let content = Content {
            operations: vec![
                Operation::new("BT", vec![]),
                Operation::new("Tf", vec!["F1".into(), 24.into()]),
                Operation::new("Td", vec![72.into(), 700.into()]),
                Operation::new("Tj", vec![Object::string_literal(*text)]),
                Operation::new("ET", vec![]),
            ],
        };
        let stream = Stream::new(dictionary! {}, content.encode().expect("content"));
        let content_id = doc.add_object(stream);
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
        });
        kids.push(page_id.into());
    }
    let count = i64::try_from(kids.len()).expect("count");
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => kids, "Count" => count,
            "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        }),
    );
    let catalog_id = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages_id});
    doc.trailer.set("Root", catalog_id);
    let mut out = Vec::new();
    doc.save_to(&mut out).expect("save");
    out
}

fn image_of(answer: &Value) -> (String, Vec<u8>) {
    let content = answer["result"]["content"].as_array().expect("content");
    assert_eq!(content.len(), 2, "a text and an image: {answer}");
    assert_eq!(content[1]["type"], "image", "{answer}");
    let data = base64::engine::general_purpose::STANDARD
        .decode(content[1]["data"].as_str().expect("data"))
        .expect("base64");
    (
        content[1]["mimeType"].as_str().expect("type").to_owned(),
        data,
    )
}

#[test]
fn images_come_back_as_images_and_pdfs_by_page() {
    let dir = tempfile::tempdir().expect("dir");
    let small = png(40, 30);
    std::fs::write(dir.path().join("shot.png"), &small).expect("write");
    std::fs::write(dir.path().join("wide.png"), png(3000, 200)).expect("write");
    std::fs::write(
        dir.path().join("spec.pdf"),
        pdf(&["Alpha page one", "Bravo page two", "Charlie page three"]),
    )
    .expect("write");
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start(dir.path(), &["--root", root]);

    let answer = read(&mut server, 1, json!({"paths": ["shot.png"]}));
    let text = text_of(&answer);
    assert!(
        text.contains(">>>>> IMAGE: shot.png (image/png, 40x30"),
        "the text says what was read: {text}"
    );
    let (mime, data) = image_of(&answer);
    assert_eq!((mime.as_str(), data), ("image/png", small), "sent as it is");
    let info = &answer["result"]["structuredContent"]["files"][0];
    assert_eq!(info["media_type"], "image/png", "{answer}");
    assert_eq!(info["image"]["width"], 40);

    // Past the edge limit (1,568 px), scaled down to it, as the docs say.
    let answer = read(&mut server, 2, json!({"file_path": "wide.png"}));
    let text = text_of(&answer);
    assert!(text.contains("scaled down from 3000x200"), "{text}");
    let (_, data) = image_of(&answer);
    let scaled = image::load_from_memory(&data).expect("an image");
    assert_eq!((scaled.width(), scaled.height()), (1568, 105));

    let answer = read(
        &mut server,
        3,
        json!({"paths": ["spec.pdf"], "pages": "2-3"}),
    );
    let text = text_of(&answer);
    assert!(text.contains("(PDF, pages 2-3 of 3"), "{text}");
    assert!(
        text.contains("Bravo page two") && text.contains("Charlie page three"),
        "{text}"
    );
    assert!(!text.contains("Alpha"), "{text}");
    let file = &answer["result"]["structuredContent"]["files"][0];
    assert_eq!(
        (file["pages"].clone(), file["total_pages"].clone()),
        (json!("2-3"), json!(3))
    );

    let answer = read(&mut server, 4, json!({"paths": ["spec.pdf"], "pages": "2"}));
    let text = text_of(&answer);
    assert!(
        text.contains("Bravo") && !text.contains("Charlie"),
        "{text}"
    );
    assert!(text.contains("read on with pages=\"3-3\""), "{text}");

    let answer = read(&mut server, 5, json!({"paths": ["spec.pdf"], "pages": "7"}));
    assert!(
        text_of(&answer).contains("has 3 page(s); page 7 is past its end"),
        "{answer}"
    );
    assert!(server.close(std::time::Duration::from_secs(10)));
}
