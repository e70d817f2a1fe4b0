//! `read_file`'s images and PDFs against the limits: a file over the size limit refused
//! unread, an image past the edge scaled down to it, damaged files answered as damaged (the
//! PDF extractor's panics caught), `pages` refused for a text file.

use std::io::Cursor;

use tool_core::{ErrorKind, Render};
use tool_std::file::{FileConfig, ReadOptions, read_file::read_files_with};
use tool_std::workspace::Workspace;

fn png(width: u32, height: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 7])
    });
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)
        .expect("png");
    out.into_inner()
}

#[test]
fn images_and_pdfs_within_the_limits() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("big.png"), png(300, 100)).expect("write");
    std::fs::write(
        dir.path().join("broken.png"),
        b"\x89PNG\r\n\x1a\nnot really",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("broken.pdf"),
        b"%PDF-1.7\n1 0 obj << /Kids [",
    )
    .expect("write");
    std::fs::write(dir.path().join("a.txt"), "text\n").expect("write");
    let ws = Workspace::builder()
        .root("app", dir.path())
        .build()
        .expect("workspace");
    let read = |config: &FileConfig, path: &str, pages: Option<&str>| {
        let mut options = ReadOptions::default();
        options.pages = pages.map(str::to_owned);
        read_files_with(&ws, config, &[path.to_owned()], &options)
    };

    let mut config = FileConfig::default();
    config.max_image_edge = 30;
    let out = read(&config, "big.png", None).expect("read");
    let image = &out.files[0].image.clone().expect("an image");
    assert_eq!(
        (image.width, image.height, image.scaled_from),
        (30, 10, Some([300, 100]))
    );
    let sent = out.images();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].media_type(), "image/png");
    let decoded = image::load_from_memory(sent[0].bytes()).expect("decodes");
    assert_eq!((decoded.width(), decoded.height()), (30, 10));

    config.max_image_file_bytes = 100;
    let e = read(&config, "big.png", None).expect_err("too large");
    assert_eq!(e.kind(), ErrorKind::UserError);
    assert!(
        e.message().contains("read_file reads at most 100"),
        "{}",
        e.message()
    );

    let e = read(&FileConfig::default(), "broken.png", None).expect_err("damaged");
    assert!(
        e.message().contains("could not be read as an image"),
        "{}",
        e.message()
    );
    let e = read(&FileConfig::default(), "broken.pdf", None).expect_err("damaged");
    assert!(
        e.message().contains("could not be read as a PDF"),
        "{}",
        e.message()
    );
    let e = read(&FileConfig::default(), "a.txt", Some("2")).expect_err("not a PDF");
    assert_eq!(e.kind(), ErrorKind::ValidationError);
    let e = read(&FileConfig::default(), "big.png", Some("x")).expect_err("not a range");
    assert_eq!(e.kind(), ErrorKind::ValidationError);
}
