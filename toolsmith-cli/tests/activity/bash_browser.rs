//! The activity page of `toolsmith serve --http` in a real browser, watching the standard
//! tools: headless Chromium opens `/activity?token=`, an MCP client calls `read_file` (one
//! success, one validation error, one file holding `<script>`) and a `bash` command printing a
//! line every 100 ms through `/mcp`, and the test reads the page's DOM: one cell per call with
//! its name and status, the bash cell showing its first line and its description before the
//! command ends, the error's text, the markup shown as text. A screenshot goes to the build
//! output (`target/tmp/activity-serve-bash.png`).
//!
//! Skips, saying why, where Chromium is not installed (`.ci/run` installs it).

use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;

use crate::support::browser::{Browser, chromium, find, mcp_call as call};
use crate::support::mcp::*;

const TOKEN: &str = "bash-page-token";
const HOSTILE: &str = "<script>window.__pwned=1</script><img src=x onerror=alert(1)>";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_a_bash_call_streaming_through_toolsmith_serve() {
    let Some(chrome_bin) = chromium() else {
        eprintln!(
            "skipped: no chromium on PATH (set CHROMIUM=/path/to/chromium, or apt-get install chromium)"
        );
        return;
    };
    init_tls();
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("a.txt"), "alpha\n").expect("write");
    std::fs::write(dir.path().join("hostile.html"), HOSTILE).expect("write");
    let server = ServeProcess::http(dir.path(), &["--token", TOKEN, "--approve"]);
    let addr = server
        .url
        .strip_prefix("http://")
        .and_then(|r| r.split_once('/'))
        .expect("endpoint")
        .0
        .to_owned();

    let mut chrome = Browser::start(&chrome_bin).await;
    chrome
        .open_activity(&format!("http://{addr}/activity?token={TOKEN}"))
        .await;
    let cdp = &mut chrome.cdp;

    let client = ()
        .serve(StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(server.url.as_str()).auth_header(TOKEN),
        ))
        .await
        .expect("an MCP session");
    let peer = client.peer().clone();

    let (ok, is_error) = call(&peer, "read_file", json!({"paths": ["a.txt"]})).await;
    assert!(!is_error, "{ok}");
    let (bad, is_error) = call(&peer, "read_file", json!({"paths": 5})).await;
    assert!(is_error, "{bad}");
    let (hostile, is_error) = call(&peer, "read_file", json!({"paths": ["hostile.html"]})).await;
    assert!(!is_error, "{hostile}");
    let bash = {
        let peer = peer.clone();
        tokio::spawn(async move {
            call(
                &peer,
                "bash",
                json!({
                    "command": "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do echo line $i; sleep 0.1; done",
                    "description": "Print fifteen numbered lines slowly",
                    "timeout": 30
                }),
            )
            .await
        })
    };

    // The bash cell shows its first line, and its description, while the command runs.
    let cells = cdp
        .wait_cells("the bash call's first line", |c| {
            find(c, "bash").is_some_and(|s| s["output"].as_str().unwrap_or("").contains("line 1\n"))
        })
        .await;
    let running = find(&cells, "bash").expect("bash cell");
    assert_eq!(running["status"], "in_progress", "{running}");
    assert_eq!(running["message"], "Print fifteen numbered lines slowly");
    assert!(
        !running["output"].as_str().unwrap_or("").contains("line 15"),
        "the first line showed before the last was printed: {running}"
    );
    assert!(
        !bash.is_finished(),
        "the call had not ended when its line showed"
    );

    let (done, is_error) = bash.await.expect("join");
    assert!(!is_error, "{done}");
    let cells = cdp
        .wait_cells("the bash call's end", |c| {
            find(c, "bash").is_some_and(|s| s["status"] == "success")
        })
        .await;
    let order: Vec<&str> = cells.iter().filter_map(|c| c["tool"].as_str()).collect();
    assert_eq!(order, ["bash", "read_file", "read_file", "read_file"]);
    let bash_cell = &cells[0];
    assert!(
        bash_cell["output"]
            .as_str()
            .unwrap_or("")
            .contains("line 15\n"),
        "{bash_cell}"
    );
    let (hostile_cell, failed, succeeded) = (&cells[1], &cells[2], &cells[3]);
    assert_eq!(succeeded["status"], "success");
    assert!(succeeded["result"].as_str().unwrap_or("").contains("alpha"));
    assert_eq!(failed["status"], "failure");
    let shown = failed["error"].as_str().unwrap_or("");
    let text = bad["error"].as_str().expect("error text");
    assert!(
        shown.starts_with("validation_error: ")
            && text.contains(shown.trim_start_matches("validation_error: ")),
        "the page shows the error's text: {shown:?} vs {text:?}"
    );
    assert_eq!(hostile_cell["status"], "success");
    assert!(
        hostile_cell["result"]
            .as_str()
            .unwrap_or("")
            .contains("<script>window.__pwned=1</script>"),
        "{hostile_cell}"
    );
    assert_eq!(
        hostile_cell["elements"], 0,
        "no element was made from tool output"
    );
    assert_eq!(cdp.eval("typeof window.__pwned").await, "undefined");

    // A tool that answers at once runs without the spinner (seed 004's
    // suppressExecutionAnimation); a running bash call spins.
    let (_, is_error) = call(&peer, "list_projects", json!({})).await;
    assert!(!is_error);
    let cells = cdp
        .wait_cells("the list_projects cell", |c| {
            find(c, "list_projects").is_some()
        })
        .await;
    let quiet = find(&cells, "list_projects").expect("cell");
    assert_eq!(quiet["quiet"], true, "{quiet}");
    assert!(
        cells
            .iter()
            .filter(|c| c["tool"] != "list_projects")
            .all(|c| c["quiet"] == false),
        "only the tool that asks for it"
    );

    // A plan is shown as its checklist.
    let (_, is_error) = call(
        &peer,
        "update_plan",
        json!({"plan": [
            {"step": "Read the test", "status": "completed"},
            {"step": "Fix the bug", "status": "in_progress"},
            {"step": "Run the suite", "status": "pending"},
        ]}),
    )
    .await;
    assert!(!is_error);
    let cells = cdp
        .wait_cells("the plan's checklist", |c| {
            find(c, "update_plan").is_some_and(|s| s["status"] == "success")
        })
        .await;
    let plan = find(&cells, "update_plan").expect("plan cell");
    assert_eq!(
        plan["preview"], "\u{2611} Read the test\n\u{25B6} Fix the bug\n\u{2610} Run the suite",
        "{plan}"
    );

    // A command that fails: its cell shows the exit code and the end of stderr as its error,
    // and keeps its output.
    let (failed_bash, is_error) = call(
        &peer,
        "bash",
        json!({"command": "echo kept; echo oops >&2; exit 3"}),
    )
    .await;
    assert!(is_error, "{failed_bash}");
    let cells = cdp
        .wait_cells("the failed command's end", |c| {
            c.iter()
                .any(|s| s["tool"] == "bash" && s["status"] == "failure")
        })
        .await;
    let failed_cell = cells
        .iter()
        .find(|s| s["tool"] == "bash" && s["status"] == "failure")
        .expect("the failed bash cell");
    let shown = failed_cell["error"].as_str().unwrap_or("");
    assert!(shown.starts_with("Exit code 3"), "{failed_cell}");
    assert!(shown.contains("oops"), "{failed_cell}");
    assert!(
        failed_cell["result"]
            .as_str()
            .unwrap_or("")
            .contains("kept"),
        "{failed_cell}"
    );

    // A preview keeps its lines.
    let (_, is_error) = call(&peer, "bash", json!({"command": "printf 'one\\ntwo\\n'"})).await;
    assert!(!is_error);
    let cells = cdp
        .wait_cells("the two-line command's end", |c| {
            c.iter().any(|s| {
                s["tool"] == "bash"
                    && s["subject"] == "$ printf 'one\\ntwo\\n'"
                    && s["status"] == "success"
            })
        })
        .await;
    let two = cells
        .iter()
        .find(|s| s["subject"] == "$ printf 'one\\ntwo\\n'")
        .expect("the two-line cell");
    assert!(
        two["preview"].as_str().unwrap_or("").contains("one\ntwo"),
        "{two}"
    );

    // Read again from the store (the page reloaded): the finished cards keep what the calls
    // worked on, the failed command its output, and their result's fields.
    cdp.reload().await;
    let cells = cdp
        .wait_cells("the cards read from the store", |c| {
            c.iter().any(|s| {
                s["tool"] == "bash"
                    && s["status"] == "failure"
                    && !s["output"].as_str().unwrap_or("").is_empty()
            })
        })
        .await;
    let failed_cell = cells
        .iter()
        .find(|s| s["tool"] == "bash" && s["status"] == "failure")
        .expect("the failed bash cell");
    assert_eq!(
        failed_cell["subject"], "$ echo kept; echo oops >&2; exit 3",
        "{failed_cell}"
    );
    assert!(
        failed_cell["output"]
            .as_str()
            .unwrap_or("")
            .contains("kept"),
        "{failed_cell}"
    );
    assert_eq!(failed_cell["data"]["return_code"], "3", "{failed_cell}");
    // Each read keeps the file it read.
    let subjects: Vec<&str> = cells
        .iter()
        .filter(|s| s["tool"] == "read_file" && s["status"] == "success")
        .map(|s| s["subject"].as_str().unwrap_or(""))
        .collect();
    assert!(
        subjects.contains(&"a.txt") && subjects.contains(&"hostile.html"),
        "{subjects:?}"
    );

    cdp.eval(
        "document.querySelectorAll('.cell[data-status=failure] .result').forEach(d => \
         d.querySelector('summary').click())",
    )
    .await;
    let shot = cdp
        .screenshot(1280, 900, false, "activity-serve-bash.png")
        .await;
    eprintln!("screenshot: {}", shot.display());
    let _ = client.cancel().await;
    let _ = chrome.child.kill().await;
}
