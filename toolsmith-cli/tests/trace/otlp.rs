//! A real OTLP exchange: `toolsmith serve` with `OTEL_EXPORTER_OTLP_ENDPOINT` pointed at a
//! loopback OTLP/HTTP receiver written here (the protobuf decoded with `opentelemetry-proto`)
//! sends the spans of 100 calls, each named `execute_tool read_file` and the child of the
//! `traceparent` its request carried, whether the server ends because stdin closed or
//! because it was sent `SIGTERM` right after the calls.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::json;

use crate::support::stdio::{StdioServe, Version};

const CALLS: usize = 100;

/// What the receiver got: every span, with its resource's `service.name`.
type Received = Arc<Mutex<Vec<(String, Span)>>>;

/// An OTLP/HTTP receiver on loopback: `POST /v1/traces` with a protobuf body, answered 200;
/// its base URL.
fn receiver() -> (String, Received) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let received: Received = Arc::default();
    let sink = received.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let sink = sink.clone();
            std::thread::spawn(move || serve_connection(stream, &sink));
        }
    });
    (url, received)
}

/// Reads requests from one (kept-alive) connection until it closes.
fn serve_connection(stream: std::net::TcpStream, sink: &Received) {
    let mut writer = stream.try_clone().expect("clone");
    let mut reader = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':')
                && k.eq_ignore_ascii_case("content-length")
            {
                length = v.trim().parse().expect("a length");
            }
        }
        let mut body = vec![0u8; length];
        reader.read_exact(&mut body).expect("body");
        assert!(
            request_line.starts_with("POST /v1/traces "),
            "{request_line}"
        );
        let request = ExportTraceServiceRequest::decode(body.as_slice()).expect("protobuf");
        let mut got = sink.lock().expect("lock");
        for resource in request.resource_spans {
            let service = resource
                .resource
                .iter()
                .flat_map(|r| &r.attributes)
                .find(|kv| kv.key == "service.name")
                .and_then(|kv| kv.value.as_ref())
                .map(|v| format!("{:?}", v.value))
                .unwrap_or_default();
            for scope in resource.scope_spans {
                got.extend(scope.spans.into_iter().map(|s| (service.clone(), s)));
            }
        }
        drop(got);
        let answer =
            "HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n";
        if writer.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

/// `toolsmith serve` on stdio exporting to `endpoint`, sent 100 `read_file` calls each with a
/// `traceparent` of [`TRACE`], all answered.
fn serve_a_hundred_traced_calls(dir: &std::path::Path, endpoint: &str) -> StdioServe {
    std::fs::write(dir.join("a.txt"), "traced\n").expect("write");
    let root = dir.to_str().expect("utf-8");
    let env = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint),
        ("OTEL_SERVICE_NAME", "toolsmith-otlp-test"),
        ("OTEL_TRACES_SAMPLER", "always_on"),
    ];
    let mut server = StdioServe::start_with_env(dir, &["--root", root], &env);
    let frames: Vec<Vec<u8>> = (0..CALLS)
        .map(|n| {
            let mut request = Version::V2026.request(
                &json!(n),
                "tools/call",
                json!({"name": "read_file", "arguments": {"paths": ["a.txt"]}}),
            );
            request["params"]["_meta"]["traceparent"] =
                json!(format!("00-{TRACE}-{:016x}-01", n + 1));
            request.to_string().into_bytes()
        })
        .collect();
    server.send(frames);
    assert!(
        server.read_until(CALLS, Duration::from_secs(60)),
        "every call answered; stderr: {}",
        server.stderr()
    );
    let stderr = server.stderr();
    assert!(
        stderr.contains("exporting call spans over OTLP"),
        "{stderr}"
    );
    server
}

/// The trace every call's request names as its parent's.
const TRACE: &str = "5bf92f3577b34da6a3ce929d0e0e4736";

/// Checks the receiver got one span per call, each the child of its request's
/// `traceparent`.
fn check_the_spans(received: &Received) {
    let got = received.lock().expect("lock");
    let calls: Vec<&(String, Span)> = got
        .iter()
        .filter(|(_, s)| s.name == "execute_tool read_file")
        .collect();
    assert_eq!(
        calls.len(),
        CALLS,
        "{:#?}",
        got.iter().map(|(_, s)| &s.name).collect::<Vec<_>>()
    );
    let mut parents: Vec<String> = Vec::new();
    for (service, span) in calls {
        assert!(service.contains("toolsmith-otlp-test"), "{service}");
        assert_eq!(hex::encode(&span.trace_id), TRACE);
        parents.push(hex::encode(&span.parent_span_id));
        let names: Vec<&str> = span.attributes.iter().map(|kv| kv.key.as_str()).collect();
        for key in [
            "gen_ai.operation.name",
            "gen_ai.tool.name",
            "gen_ai.tool.call.id",
        ] {
            assert!(names.contains(&key), "{key} in {names:?}");
        }
    }
    parents.sort();
    let expected: Vec<String> = {
        let mut e: Vec<String> = (1..=CALLS).map(|n| format!("{n:016x}")).collect();
        e.sort();
        e
    };
    assert_eq!(
        parents, expected,
        "each call the child of its own request's traceparent"
    );
}

#[test]
fn serve_exports_the_spans_of_a_hundred_calls_over_otlp() {
    let (endpoint, received) = receiver();
    let dir = tempfile::tempdir().expect("dir");
    let server = serve_a_hundred_traced_calls(dir.path(), &endpoint);
    // Closing stdin ends the server, which sends what is still batched on its way out.
    assert!(server.close(Duration::from_secs(30)), "clean exit");
    check_the_spans(&received);
}

// A process manager stops a server with SIGTERM: sent at once after 100 calls (the batch
// timer has not fired), every span still reaches the receiver and every record the store.
#[test]
fn sigterm_right_after_a_hundred_calls_loses_no_span_and_no_record() {
    let (endpoint, received) = receiver();
    let dir = tempfile::tempdir().expect("dir");
    let mut server = serve_a_hundred_traced_calls(dir.path(), &endpoint);
    server.signal("TERM");
    let status = server
        .wait_exit(Duration::from_secs(10))
        .expect("exited within the bound");
    assert!(status.success(), "{status:?}: {}", server.stderr());
    check_the_spans(&received);

    let root = dir.path().to_str().expect("utf-8");
    let out = crate::support::cli::toolsmith_in(
        dir.path(),
        &["--root", root, "activity", "--json", "--limit", "500"],
    );
    let records: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(
        records.len(),
        CALLS,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        records.iter().all(|r| r["status"] == "success"),
        "{records:#?}"
    );
}
