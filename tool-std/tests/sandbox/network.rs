//! The network is off for commands by default: a listener the test opens on 127.0.0.1 and
//! ::1 is never reached (by bash's `/dev/tcp`, python, curl), while UNIX sockets still work.
//! With `SandboxConfig::network` the same connection goes through and VSOCK stays refused.

use std::net::TcpListener;
use std::time::Duration;

use tool_std::shell::ShellConfig;

use crate::support::sandbox::{Escape, have};

/// Whether `listener` has a connection waiting (within a short wait).
fn reached(listener: &TcpListener) -> bool {
    listener.set_nonblocking(true).unwrap();
    let end = std::time::Instant::now() + Duration::from_millis(300);
    while std::time::Instant::now() < end {
        if listener.accept().is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[tokio::test]
async fn loopback_listeners_are_not_reached_with_the_network_off() {
    let e = Escape::new();
    let v4 = TcpListener::bind("127.0.0.1:0").unwrap();
    let v6 = TcpListener::bind("[::1]:0").ok();
    let p4 = v4.local_addr().unwrap().port();
    let mut attempts = vec![
        (
            "bash /dev/tcp",
            format!("echo hi > /dev/tcp/127.0.0.1/{p4}"),
        ),
        (
            "python connect",
            format!(
                "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {p4}), 2)\""
            ),
        ),
    ];
    if have("curl") {
        attempts.push(("curl", format!("curl -s -m 2 http://127.0.0.1:{p4}/")));
    }
    if let Some(v6) = &v6 {
        let p6 = v6.local_addr().unwrap().port();
        attempts.push(("bash /dev/tcp ::1", format!("echo hi > /dev/tcp/::1/{p6}")));
    }
    for (name, command) in &attempts {
        let out = e.attempt(name, command).await;
        assert!(!reached(&v4), "{name} reached 127.0.0.1: {out}");
        if let Some(v6) = &v6 {
            assert!(!reached(v6), "{name} reached ::1: {out}");
        }
    }
    // UNIX sockets (pipes between tools, local daemons) still work.
    let out = e
        .run(
            "python3 -c \"import socket; a, b = socket.socketpair(); a.send(b'unix'); \
             print(b.recv(4).decode())\"",
        )
        .await;
    assert_eq!(out["output"], "unix\n", "{out}");
}

#[tokio::test]
async fn the_network_flag_lets_commands_connect() {
    let mut config = ShellConfig::default();
    config.sandbox.network = true;
    let e = Escape::with(config);
    let v4 = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = v4.local_addr().unwrap().port();
    let out = e
        .run(&format!(
            "echo hi > /dev/tcp/127.0.0.1/{port} && echo sent; \
             python3 -c \"import socket; socket.socket(40, socket.SOCK_STREAM)\" 2>&1 | tail -1"
        ))
        .await;
    assert!(
        out["output"].as_str().unwrap().starts_with("sent\n"),
        "{out}"
    );
    assert!(reached(&v4), "{out}");
    assert!(
        out["output"]
            .as_str()
            .unwrap()
            .contains("Operation not permitted"),
        "VSOCK: {out}"
    );
}

#[tokio::test]
async fn commands_matching_network_for_get_the_network_and_others_do_not() {
    let mut config = ShellConfig::default();
    config.sandbox.network_for = vec!["python3 *".to_owned()];
    let e = Escape::with(config);
    let v4 = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = v4.local_addr().unwrap().port();
    let connect =
        format!("python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 2)\"");
    // Every part is python3: it connects.
    let out = e.run(&connect).await;
    assert_eq!(out["return_code"], 0, "{out}");
    assert!(reached(&v4), "{out}");
    // Another program, alone or beside python3: no network for the whole line.
    for command in [
        format!("echo hi > /dev/tcp/127.0.0.1/{port}"),
        format!("true && {connect}"),
        format!("{connect}; echo hi > /dev/tcp/127.0.0.1/{port}"),
    ] {
        let out = e.attempt(&command, &command).await;
        assert!(!reached(&v4), "{command}: {out}");
    }
}
