//! Background processes through `toolsmith serve` on stdio: `bash` with `run_in_background`
//! answers at once with an id; `process` reads the output since the last read, writes to a
//! process's stdin, kills its whole group; a stopped server leaves none of them (checked by
//! pid in `/proc`).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::stdio::{StdioServe, Version, text_of};
use crate::support::{process_gone, processes_gone};

fn call(server: &mut StdioServe, id: u64, tool: &str, arguments: Value) -> Value {
    server.ask(Version::V2026.request(
        &json!(id),
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    ))
}

/// Starts `command` in the background: its process id and pid, read from the answer's text
/// ("... as process ID (pid N)").
fn start(server: &mut StdioServe, id: u64, command: &str) -> (String, u32) {
    let answer = call(
        server,
        id,
        "bash",
        json!({"command": command, "run_in_background": true}),
    );
    let text = text_of(&answer);
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let rest = text
        .split("as process ")
        .nth(1)
        .unwrap_or_else(|| panic!("an id in: {text}"));
    let (process, rest) = rest.split_once(" (pid ").expect("a pid");
    let pid = rest
        .split(')')
        .next()
        .expect("pid")
        .parse()
        .expect("a number");
    (process.to_owned(), pid)
}

/// The pids of the processes whose process group is `group`, from `/proc`.
fn group_members(group: u32) -> Vec<u32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // After the command's `)`: state, ppid, pgrp.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, s)| s)
            .unwrap_or("")
            .split_whitespace()
            .collect();
        if fields.first() != Some(&"Z") && fields.get(2) == Some(&group.to_string().as_str()) {
            members.push(pid);
        }
    }
    members
}

/// Reads `process`'s output until `want` shows up (at most 10 s); the texts of every read.
fn read_until(server: &mut StdioServe, next: &mut u64, process: &str, want: &str) -> Vec<String> {
    let until = Instant::now() + Duration::from_secs(10);
    let mut reads = Vec::new();
    loop {
        *next += 1;
        let answer = call(
            server,
            *next,
            "process",
            json!({"action": "output", "id": process}),
        );
        let text = text_of(&answer);
        let done = text.contains(want);
        reads.push(text);
        if done {
            return reads;
        }
        assert!(Instant::now() < until, "`{want}` never came: {reads:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn output_is_read_in_parts_input_is_written_and_a_kill_ends_the_group() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start(dir.path(), &["--root", root, "--approve"]);
    let mut next = 100;

    // Read twice: the second read has only what came after the first.
    let (printer, _) = start(
        &mut server,
        1,
        "printf 'al%s\\n' pha; sleep 1; printf 'be%s\\n' ta; sleep 30",
    );
    let reads = read_until(&mut server, &mut next, &printer, "alpha");
    assert!(!reads.last().expect("a read").contains("beta"), "{reads:?}");
    let later = read_until(&mut server, &mut next, &printer, "beta");
    for text in &later {
        assert!(!text.contains("alpha"), "only the new lines: {later:?}");
    }
    assert!(
        later.last().expect("a read").contains("running (pid"),
        "{later:?}"
    );

    // A line written to `cat` comes back.
    let (cat, _) = start(&mut server, 2, "cat");
    let written = call(
        &mut server,
        3,
        "process",
        json!({"action": "write", "id": cat, "input": "hello from the model\n"}),
    );
    // The write returns what came within its wait; a slow echo is read after it.
    if !text_of(&written).contains("hello from the model") {
        read_until(&mut server, &mut next, &cat, "hello from the model");
    }

    // A kill ends the whole group: the shell and both of its children.
    let (group, pgid) = start(&mut server, 4, "sleep 100 & sleep 100 & wait");
    let until = Instant::now() + Duration::from_secs(5);
    while group_members(pgid).len() < 3 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let members = group_members(pgid);
    assert_eq!(members.len(), 3, "the shell and two sleeps: {members:?}");
    let killed = call(
        &mut server,
        5,
        "process",
        json!({"action": "kill", "id": group}),
    );
    let text = text_of(&killed);
    assert!(text.contains("killed after"), "{text}");
    assert!(
        processes_gone(&members, Duration::from_secs(5)),
        "{members:?}"
    );
    assert!(group_members(pgid).is_empty());

    // The list shows each with its state; an id this server does not hold is said plainly.
    let list = text_of(&call(&mut server, 6, "process", json!({"action": "list"})));
    assert!(list.contains(&format!("{group}  killed")), "{list}");
    assert!(list.contains(&format!("{printer}  running")), "{list}");
    let unknown = call(
        &mut server,
        7,
        "process",
        json!({"action": "output", "id": "zzzz-1"}),
    );
    let text = text_of(&unknown);
    assert!(
        text.contains("holds no background process `zzzz-1`")
            && text.contains("live on the server that started them"),
        "{text}"
    );
    assert!(server.close(Duration::from_secs(10)));
}

#[test]
fn a_stopped_server_leaves_no_background_process() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().to_str().expect("utf-8");
    let mut server = StdioServe::start(dir.path(), &["--root", root, "--approve"]);
    let (_, a) = start(&mut server, 1, "sleep 300");
    let (_, b) = start(&mut server, 2, "sleep 300 & sleep 300 & wait");
    let until = Instant::now() + Duration::from_secs(5);
    while group_members(b).len() < 3 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut pids = group_members(a);
    pids.extend(group_members(b));
    assert_eq!(pids.len(), 4, "{pids:?}");
    server.signal("TERM");
    assert!(server.wait_exit(Duration::from_secs(15)).is_some());
    assert!(processes_gone(&pids, Duration::from_secs(5)), "{pids:?}");
    assert!(pids.iter().all(|&p| process_gone(p)));
}
