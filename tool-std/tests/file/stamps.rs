//! A ranged read of a large file hashes the file once per change of it: the workspace keeps
//! the stamp (version, size, lines) taken while the file had gone unmodified for
//! `STAMP_SETTLE`, and a later read of a file with the same modification time, size and inode
//! takes it without reading past its range. Any change moves one of the three, and the next
//! read stamps the file again, so the version stays exact.

use std::time::{Duration, SystemTime};

use serde_json::json;
use tool_std::workspace::{STAMP_SETTLE, Version};

use crate::support::file::Fixture;

/// Sets `rel`'s modification time `age` in the past.
fn age(f: &Fixture, rel: &str, age: Duration) {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(f.ws.join(rel))
        .unwrap();
    file.set_modified(SystemTime::now() - age).unwrap();
}

fn big(lines: usize, tag: &str) -> String {
    (1..=lines).map(|i| format!("{tag} line {i}\n")).collect()
}

/// The stamp the workspace holds for `rel` without reading it, if any.
fn held(f: &Fixture, rel: &str) -> Option<tool_std::workspace::Stamp> {
    let p = f.workspace.resolve(rel).unwrap();
    let info = f.workspace.metadata(&p).unwrap().unwrap();
    f.workspace.settled_stamp(&p, &info)
}

#[tokio::test]
async fn a_settled_file_is_stamped_once_and_read_by_ranges_after() {
    let f = Fixture::new();
    let text = big(20_000, "old");
    f.write("big.txt", &text);
    age(&f, "big.txt", STAMP_SETTLE * 3);
    assert!(held(&f, "big.txt").is_none(), "nothing read yet");

    let first = f
        .call("read_file", json!({"paths": ["big.txt:100-104"]}))
        .await;
    let version = Version::of(text.as_bytes()).to_string();
    assert_eq!(first["files"][0]["version"], version, "{first}");
    assert_eq!(first["files"][0]["total_lines"], 20_000);
    let stamp = held(&f, "big.txt").expect("a settled file's stamp is kept");
    assert_eq!(
        (stamp.version.to_string(), stamp.lines),
        (version.clone(), 20_000)
    );

    // Later ranges take the kept stamp: the same version and line count, the range's text.
    for (range, want) in [
        ("big.txt:5000-5001", "old line 5000\nold line 5001\n"),
        ("big.txt:19999-", "old line 19999\nold line 20000\n"),
    ] {
        let r = f.call("read_file", json!({"paths": [range]})).await;
        assert_eq!(r["files"][0]["version"], version, "{r}");
        assert_eq!(r["files"][0]["total_lines"], 20_000, "{r}");
        assert_eq!(r["files"][0]["content"], want, "{r}");
    }
    // A range that ends on the last line reads as the whole rest: nothing is left unread.
    let r = f
        .call("read_file", json!({"paths": ["big.txt:19999-20000"]}))
        .await;
    assert_eq!(r["files"][0]["truncated"], false, "{r}");
}

#[tokio::test]
async fn any_change_is_stamped_again_so_the_version_stays_exact() {
    let f = Fixture::new();
    f.write("big.txt", big(5_000, "old"));
    age(&f, "big.txt", STAMP_SETTLE * 3);
    f.call("read_file", json!({"paths": ["big.txt:1-2"]})).await;
    assert!(held(&f, "big.txt").is_some());

    // The same size, new content (an editor's save): the modification time moves.
    let changed = big(5_000, "new");
    assert_eq!(changed.len(), big(5_000, "old").len());
    f.write("big.txt", &changed);
    assert!(
        held(&f, "big.txt").is_none(),
        "a changed file's kept stamp is not used"
    );
    let r = f.call("read_file", json!({"paths": ["big.txt:3-3"]})).await;
    assert_eq!(r["files"][0]["content"], "new line 3\n");
    assert_eq!(
        r["files"][0]["version"],
        Version::of(changed.as_bytes()).to_string(),
        "{r}"
    );
    // Written just now: its stamp is not trusted past this read (a second write within the
    // filesystem's time granularity could keep the time).
    assert!(held(&f, "big.txt").is_none());

    // Replaced by another file (another inode) with the same size and an old time.
    let other = big(5_000, "nov");
    std::fs::write(f.ws.join("next.txt"), &other).unwrap();
    age(&f, "next.txt", STAMP_SETTLE * 3);
    let old = std::fs::metadata(f.ws.join("big.txt"))
        .unwrap()
        .modified()
        .unwrap();
    std::fs::File::options()
        .write(true)
        .open(f.ws.join("next.txt"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    age(&f, "big.txt", STAMP_SETTLE * 3);
    f.call("read_file", json!({"paths": ["big.txt:1-1"]})).await;
    assert!(held(&f, "big.txt").is_some());
    std::fs::rename(f.ws.join("next.txt"), f.ws.join("big.txt")).unwrap();
    let r = f.call("read_file", json!({"paths": ["big.txt:1-1"]})).await;
    assert_eq!(r["files"][0]["content"], "nov line 1\n");
    assert_eq!(
        r["files"][0]["version"],
        Version::of(other.as_bytes()).to_string(),
        "{r}"
    );
}
