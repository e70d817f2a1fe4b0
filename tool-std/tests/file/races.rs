//! The file tools against a directory swapped for a link to outside while 200 reads run, and
//! against FIFOs and devices, which must be answered at once.

use std::fs;
use std::os::unix::fs::symlink;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;

use crate::support::file::{Fixture, SECRET, error_text, error_type};
use crate::support::{run, within};

#[test]
fn a_directory_swapped_for_a_link_during_200_reads_never_leaks() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let f = Fixture::new();
    // Same file name inside and outside: only the content tells them apart.
    fs::write(f.outside.join("file.txt"), SECRET).unwrap();
    f.write("swap/file.txt", "inside\n");
    let before = f.outside_snapshot();
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let swapper = {
        let (stop, swaps) = (stop.clone(), swaps.clone());
        let (ws, outside) = (f.ws.clone(), f.outside.clone());
        std::thread::spawn(move || {
            let (swap, parked) = (ws.join("swap"), ws.join("parked"));
            while !stop.load(Ordering::Relaxed) {
                fs::rename(&swap, &parked).unwrap();
                symlink(&outside, &swap).unwrap();
                std::thread::yield_now();
                fs::remove_file(&swap).unwrap();
                fs::rename(&parked, &swap).unwrap();
                swaps.fetch_add(1, Ordering::Relaxed);
                // Leave the real directory in place a moment, so reads also succeed.
                std::thread::sleep(Duration::from_micros(300));
            }
        })
    };
    let (mut ok, mut refused) = (0, 0);
    rt.block_on(async {
        for i in 0..200 {
            let args = if i % 2 == 0 {
                json!({"paths": ["swap/file.txt"]})
            } else {
                json!({"paths": ["swap/file.txt:1-1", "main:swap/file.txt"]})
            };
            let (answer, text) = f.call_text("read_file", args).await;
            assert!(
                !answer.to_string().contains(SECRET),
                "leak on read {i}: {answer}"
            );
            assert!(!text.contains(SECRET), "leak on read {i}: {text}");
            if answer["files_read"].as_u64().unwrap_or(0) > 0 {
                ok += 1;
            } else {
                refused += 1;
            }
            let listed = f.call("list_directory", json!({"path": "swap"})).await;
            assert!(!listed.to_string().contains(SECRET));
        }
    });
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    eprintln!(
        "200 reads during {} swaps: {ok} read the inside file, {refused} refused",
        swaps.load(Ordering::Relaxed)
    );
    assert!(swaps.load(Ordering::Relaxed) > 0, "the swap never happened");
    assert!(
        ok > 0,
        "no read succeeded: the race was not exercised on the read path"
    );
    assert_eq!(f.outside_snapshot(), before);
}

#[tokio::test]
async fn fifos_and_devices_are_answered_at_once() {
    let f = Fixture::new();
    assert!(
        run("mkfifo", &[f.ws.join("pipe").to_str().unwrap()]),
        "mkfifo failed"
    );
    let device = run(
        "mknod",
        &[f.ws.join("zero").to_str().unwrap(), "c", "1", "5"],
    );
    if !device {
        eprintln!("skipping the device node: mknod failed (it needs root)");
    }
    f.link("pipe", "to_pipe");
    let mut names = vec!["pipe", "to_pipe"];
    if device {
        names.push("zero");
    }
    let rt = tokio::runtime::Handle::current();
    for name in names {
        for (tool, args) in [
            ("read_file", json!({"paths": [name]})),
            ("read_file", json!({"paths": [format!("{name}:1-10")]})),
            ("update_file", json!({"path": name, "content": "x"})),
            ("append_file", json!({"path": name, "content": "x"})),
            (
                "replace_in_file",
                json!({"path": name, "find": "a", "replace": "b"}),
            ),
            (
                "edit_lines",
                json!({"path": name, "operation": "delete", "start_line": 1}),
            ),
            (
                "create_file",
                json!({"path": name, "content": "x", "overwrite": true}),
            ),
        ] {
            let session = f.session.clone();
            let handle = rt.clone();
            let call = tool_core::ToolCall::new("t", tool, args.to_string());
            let answer = tokio::task::spawn_blocking(move || {
                within(Duration::from_secs(20), move || {
                    handle.block_on(session.call(call)).to_json()
                })
            })
            .await
            .unwrap();
            assert_eq!(error_type(&answer), "user_error", "{tool} {name}: {answer}");
            assert!(
                error_text(&answer).contains("not a regular file")
                    || error_text(&answer).contains("not a file"),
                "{tool} {name}: {answer}"
            );
        }
    }
    let listed = f.call("list_directory", json!({"path": "."})).await;
    // Neither a file (no size) nor a directory (`/`) nor a link (`@`).
    assert_eq!(
        listed["entries"]["pipe"],
        serde_json::Value::Null,
        "{listed}"
    );
}
