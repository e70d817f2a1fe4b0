//! An allow-list of hosts while the network is off: commands reach a listed host through the
//! sandbox's proxy (plain HTTP and a `CONNECT` tunnel), are answered `403` for a host not on
//! the list (which is never reached), and cannot go around the proxy: a direct connection to
//! the listed host and a UDP socket are refused. Two loopback servers stand for the hosts.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tool_std::shell::ShellConfig;

use crate::support::sandbox::{Escape, have};

/// A loopback HTTP server answering `hello from PORT` to every request; its port and how
/// many connections it accepted.
fn server() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            seen.fetch_add(1, Ordering::SeqCst);
            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            let body = format!("hello from {port}");
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (port, count)
}

fn fetch(port: u16) -> String {
    format!(
        "python3 -c \"import urllib.request; \
         print(urllib.request.urlopen('http://127.0.0.1:{port}/x', timeout=5).read().decode())\""
    )
}

#[tokio::test]
async fn listed_hosts_are_reached_through_the_proxy_and_nothing_else() {
    if !have("python3") {
        return;
    }
    let (allowed, allowed_count) = server();
    let (other, other_count) = server();
    let mut config = ShellConfig::default();
    config.sandbox.network_hosts = vec![format!("127.0.0.1:{allowed}")];
    let e = Escape::with(config);

    // Through the proxy, the listed host answers (both ways of confining: two connections).
    let out = e.attempt("fetch a listed host", &fetch(allowed)).await;
    assert_eq!(
        out["output"].as_str().unwrap().trim(),
        format!("hello from {allowed}"),
        "{out}"
    );
    assert_eq!(allowed_count.load(Ordering::SeqCst), 2);

    // A host not on the list is refused by the proxy, naming the list, and never reached.
    let out = e.attempt("fetch another host", &fetch(other)).await;
    let error = out["error"].as_str().unwrap();
    assert!(error.contains("403"), "{out}");
    assert_eq!(other_count.load(Ordering::SeqCst), 0);

    // Around the proxy: a direct connection (even to the listed host), bash's /dev/tcp,
    // and UDP (a DNS query of its own) are refused by the kernel.
    let attempts = [
        (
            "connect directly to the listed host",
            format!(
                "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {allowed}), 2)\""
            ),
        ),
        (
            "bash /dev/tcp to the other host",
            format!("echo hi > /dev/tcp/127.0.0.1/{other}"),
        ),
        (
            "a UDP socket",
            "python3 -c \"import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); \
             s.sendto(b'x', ('127.0.0.1', 53))\""
                .to_owned(),
        ),
        // Stream sockets of other protocols, which Landlock's TCP port rule does not govern.
        (
            "an MPTCP socket",
            format!(
                "python3 -c \"import socket; s = socket.socket(socket.AF_INET, \
                 socket.SOCK_STREAM, 262); s.connect(('127.0.0.1', {allowed}))\""
            ),
        ),
        (
            "an SCTP socket",
            "python3 -c \"import socket; socket.socket(socket.AF_INET6, socket.SOCK_STREAM, 132)\""
                .to_owned(),
        ),
    ];
    for (name, command) in &attempts {
        let out = e.attempt(name, command).await;
        assert_ne!(out["return_code"], 0, "{name} succeeded: {out}");
        let error = out["error"].as_str().unwrap();
        assert!(
            error.contains("Permission denied") || error.contains("not permitted"),
            "{name}: {out}"
        );
    }
    assert_eq!(allowed_count.load(Ordering::SeqCst), 2, "reached directly");
    assert_eq!(other_count.load(Ordering::SeqCst), 0, "reached directly");

    // A CONNECT tunnel (what HTTPS clients use) to the listed host, and to the other one.
    if have("curl") {
        let tunnel = |port: u16| format!("curl -s -S -m 5 -p http://127.0.0.1:{port}/");
        let out = e
            .attempt("tunnel to the listed host", &tunnel(allowed))
            .await;
        assert_eq!(out["output"], format!("hello from {allowed}"), "{out}");
        assert_eq!(allowed_count.load(Ordering::SeqCst), 4);
        let out = e.attempt("tunnel to another host", &tunnel(other)).await;
        assert_ne!(out["return_code"], 0, "{out}");
        assert_eq!(other_count.load(Ordering::SeqCst), 0);
    }
}

#[test]
fn bad_host_entries_are_refused_with_what_to_write() {
    let mut config = ShellConfig::default();
    config.sandbox.network_hosts = vec!["crates.io".into(), "::1".into()];
    let error = config.sandbox.check_network_hosts().unwrap_err();
    assert!(
        error.contains("`::1`") && error.contains("brackets"),
        "{error}"
    );
    config.sandbox.network_hosts = vec!["*.github.com".into(), "[::1]:8080".into()];
    config.sandbox.check_network_hosts().unwrap();
}
