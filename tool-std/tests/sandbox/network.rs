//! The network is off for commands by default: a listener the test opens on 127.0.0.1 and
//! ::1 is never reached (by bash's `/dev/tcp`, python, curl), while connected pairs of UNIX
//! sockets still work. A UNIX socket the test listens on outside the roots (as the user's
//! systemd manager, D-Bus or Docker listen) is never reached, by path or abstract name,
//! unless `SandboxConfig::unix_sockets` allows it. With `SandboxConfig::network` the TCP
//! connection goes through and VSOCK stays refused.

use std::net::TcpListener;
use std::time::Duration;

use tool_std::shell::ShellConfig;

use crate::support::sandbox::{Escape, have};

/// A listener the tests watch: TCP or UNIX.
trait Listener {
    /// Takes a waiting connection, without waiting; whether there was one.
    fn take(&self) -> bool;
}

impl Listener for TcpListener {
    fn take(&self) -> bool {
        self.set_nonblocking(true).unwrap();
        self.accept().is_ok()
    }
}

impl Listener for std::os::unix::net::UnixListener {
    fn take(&self) -> bool {
        self.set_nonblocking(true).unwrap();
        self.accept().is_ok()
    }
}

/// Whether `listener` has a connection waiting (within a short wait).
fn reached(listener: &impl Listener) -> bool {
    let end = std::time::Instant::now() + Duration::from_millis(300);
    while std::time::Instant::now() < end {
        if listener.take() {
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
    // Connected pairs of UNIX sockets (between a tool's processes) still work.
    let out = e
        .run(
            "python3 -c \"import socket; a, b = socket.socketpair(); a.send(b'unix'); \
             print(b.recv(4).decode())\"",
        )
        .await;
    assert_eq!(out["output"], "unix\n", "{out}");
}

#[tokio::test]
async fn unix_sockets_of_the_host_are_not_reached() {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener};
    if !have("python3") {
        return;
    }
    let e = Escape::new();
    // A service of the host on a named socket outside the roots, and on an abstract one.
    let path = e.outside.join("service.sock");
    let named = UnixListener::bind(&path).unwrap();
    let name = format!("toolsmith-test-{}", std::process::id());
    let abstract_listener =
        UnixListener::bind_addr(&SocketAddr::from_abstract_name(&name).unwrap()).unwrap();
    let p = path.display();
    let connect = |target: &str| {
        format!(
            "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); \
             s.connect({target}); print('connected')\""
        )
    };
    let attempts = [
        ("connect to a named socket", connect(&format!("'{p}'"))),
        (
            "connect to an abstract socket",
            connect(&format!("'\\0{name}'")),
        ),
        (
            "send a datagram to a named socket",
            format!(
                "python3 -c \"import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b'x', '{p}')\""
            ),
        ),
    ];
    for (what, command) in &attempts {
        let out = e.attempt(what, command).await;
        assert!(
            !out["output"].as_str().unwrap().contains("connected"),
            "{what}: {out}"
        );
        assert!(
            out["error"].as_str().unwrap().contains("not permitted"),
            "{what}: {out}"
        );
        assert!(!reached(&named), "{what} reached the named socket: {out}");
        assert!(
            !reached(&abstract_listener),
            "{what} reached the abstract socket: {out}"
        );
    }

    // Allowed by the host, the same connection goes through: the test above could fail.
    let mut config = ShellConfig::default();
    config.sandbox.unix_sockets = true;
    let mut e2 = Escape::new();
    e2.configure(config);
    let path2 = e2.outside.join("service.sock");
    let named2 = UnixListener::bind(&path2).unwrap();
    let out = e2.run(&connect(&format!("'{}'", path2.display()))).await;
    assert_eq!(out["output"], "connected\n", "{out}");
    assert!(reached(&named2));
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
