//! System calls a sandboxed command may not make answer `EPERM`: `ptrace` and
//! `process_vm_readv` on the server, io_uring, `AF_VSOCK`, raw and packet sockets, a new user
//! namespace by `unshare` and by `clone`, `mount`, `bpf`, `keyctl`, `perf_event_open`, a
//! personality change; the server's memory, descriptors and signals are out of reach; a
//! set-user-ID program gains nothing. Each probe is a real call (python's ctypes with the
//! x86_64 numbers, or the usual tool) whose success would be an escape.

use std::os::unix::fs::PermissionsExt;

use crate::support::sandbox::{Escape, have};

/// A python program making each call in `calls` (name, then the python expression making
/// it) and printing `name errno` per line (`name ok` when it succeeded).
fn probe(calls: &[(&str, &str)]) -> String {
    let mut program = String::from(
        "import ctypes, os, socket\n\
         libc = ctypes.CDLL(None, use_errno=True)\n\
         libc.syscall.restype = ctypes.c_long\n\
         buf = ctypes.create_string_buffer(512)\n\
         def sys(*a):\n    \
             r = libc.syscall(*a)\n    \
             return ctypes.get_errno() if r == -1 else 'ok'\n\
         def sock(*a):\n    \
             try:\n        socket.socket(*a)\n        return 'ok'\n    \
             except OSError as e:\n        return e.errno\n",
    );
    for (name, call) in calls {
        program.push_str(&format!("print('{name}', {call}, flush=True)\n"));
    }
    program
}

#[tokio::test]
async fn forbidden_system_calls_answer_eperm() {
    if !cfg!(target_arch = "x86_64") || !have("python3") {
        return;
    }
    let e = Escape::new();
    let calls = [
        // PTRACE_ATTACH (16) to the shell's parent, then to the server.
        ("ptrace_parent", "sys(101, 16, os.getppid(), 0, 0)"),
        (
            "ptrace_server",
            &*format!("sys(101, 16, {}, 0, 0)", std::process::id()),
        ),
        (
            "process_vm_readv",
            &*format!("sys(310, {}, buf, 1, buf, 1, 0)", std::process::id()),
        ),
        ("io_uring_setup", "sys(425, 8, buf)"),
        ("io_uring_enter", "sys(426, 0, 0, 0, 0, 0, 0)"),
        ("io_uring_register", "sys(427, 0, 0, 0, 0)"),
        ("vsock", "sock(40, socket.SOCK_STREAM)"),
        (
            "raw_ip",
            "sock(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)",
        ),
        ("packet", "sock(17, socket.SOCK_RAW, 0)"),
        ("unshare_user", "sys(272, 0x10000000)"),
        ("unshare_mount", "sys(272, 0x00020000)"),
        ("setns", "sys(308, 0, 0)"),
        ("mount", "sys(165, b'none', buf, b'tmpfs', 0, 0)"),
        ("bpf", "sys(321, 0, buf, 64)"),
        ("keyctl", "sys(250, 0, -3, 0)"),
        ("add_key", "sys(248, b'user', b'k', b'v', 1, -3)"),
        ("perf_event_open", "sys(298, buf, 0, -1, -1, 0)"),
        ("personality", "sys(135, 0x0040000)"),
        ("kexec_load", "sys(246, 0, 0, 0, 0)"),
        (
            "chmod_setuid",
            "(open('f', 'w').close(), sys(90, b'f', 0o4755))[1]",
        ),
        // fchmodat2(AT_FDCWD, "f", 04755, 0), the newer chmod.
        ("fchmodat2_setuid", "sys(452, -100, b'f', 0o4755, 0)"),
        // mknodat(AT_FDCWD, "n", S_IFREG | 04755, 0): a set-user-ID file made by mknod.
        ("mknodat_setuid", "sys(259, -100, b'n', 0o104755, 0)"),
        // setxattrat(AT_FDCWD, "f", 0, args, size): extended attributes by the newer call.
        ("setxattrat", "sys(463, -100, b'f', 0, buf, 32)"),
        ("unix_socket", "sock(socket.AF_UNIX, socket.SOCK_STREAM)"),
    ];
    let program = probe(&calls);
    std::fs::write(e.ws.join("probe.py"), &program).unwrap();
    let out = e.attempt("system calls", "python3 probe.py").await;
    let text = out["output"].as_str().unwrap();
    for (name, _) in calls {
        assert!(
            text.lines().any(|l| l == format!("{name} 1")),
            "{name} was not answered EPERM: {out}"
        );
    }
}

#[tokio::test]
async fn device_files_cannot_be_made_and_no_capability_is_left() {
    if !cfg!(target_arch = "x86_64") || !have("python3") {
        return;
    }
    let e = Escape::new();
    // mknodat(AT_FDCWD, name, S_IFBLK or S_IFCHR | 0600, makedev(8, 0) or (1, 3)): the first
    // disk, and /dev/null's numbers, as nodes inside the read-write root.
    let calls = [
        ("block", "sys(259, -100, b'disk', 0o060600, 0x800)"),
        ("char", "sys(259, -100, b'null', 0o020600, 0x103)"),
    ];
    std::fs::write(e.ws.join("nodes.py"), probe(&calls)).unwrap();
    let out = e
        .attempt(
            "device nodes and capabilities",
            "python3 nodes.py; grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status",
        )
        .await;
    let text = out["output"].as_str().unwrap();
    for (name, _) in calls {
        assert!(
            text.lines()
                .any(|l| l.starts_with(name) && !l.ends_with(" ok")),
            "a {name} device was made: {out}"
        );
    }
    assert!(!e.ws.join("disk").exists() && !e.ws.join("null").exists());
    // Root or not, the command has no capability at all.
    for set in ["CapEff", "CapPrm", "CapAmb"] {
        assert!(
            text.lines()
                .any(|l| l == format!("{set}:\t0000000000000000")),
            "{set}: {out}"
        );
    }
    if rustix::process::geteuid().is_root() {
        assert!(text.contains("CapBnd:\t0000000000000000"), "{out}");
    }
}

#[tokio::test]
async fn clone_into_a_new_user_namespace_is_refused() {
    if !cfg!(target_arch = "x86_64") || !have("python3") {
        return;
    }
    let e = Escape::new();
    // clone(CLONE_NEWUSER | SIGCHLD): a child that got through would print and exit at once.
    let program = "import ctypes, os\n\
                   libc = ctypes.CDLL(None, use_errno=True)\n\
                   r = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)\n\
                   if r == 0:\n    print('child escaped', flush=True)\n    os._exit(0)\n\
                   print('clone', r, ctypes.get_errno())\n";
    std::fs::write(e.ws.join("clone.py"), program).unwrap();
    let out = e.attempt("clone(CLONE_NEWUSER)", "python3 clone.py").await;
    assert_eq!(out["output"], "clone -1 1\n", "{out}");
}

#[tokio::test]
async fn namespace_and_mount_tools_fail() {
    let e = Escape::new();
    if have("unshare") {
        let out = e
            .attempt("unshare -U", "unshare -U id -u; echo rc=$?")
            .await;
        assert!(out["output"].as_str().unwrap().contains("rc=1"), "{out}");
        let out = e
            .attempt(
                "unshare -Urm",
                "unshare -Urm sh -c 'mount -t tmpfs none /tmp && echo mounted'; echo rc=$?",
            )
            .await;
        assert!(
            !out["output"].as_str().unwrap().contains("mounted"),
            "{out}"
        );
    }
    let o = e.outside.display();
    let out = e
        .attempt(
            "mount over the outside",
            &format!("mkdir -p m && mount --bind {o} m && echo pwned > m/secret.txt; mount -t tmpfs none m && echo mounted"),
        )
        .await;
    assert!(
        !out["output"].as_str().unwrap().contains("mounted"),
        "{out}"
    );
}

#[tokio::test]
async fn the_servers_process_is_out_of_reach() {
    let e = Escape::new();
    // This process stands for the server: `bash` runs its commands from it.
    let pid = std::process::id();
    let out = e
        .attempt(
            "the server's memory, environment, links and signals",
            &format!(
                "head -c 16 /proc/{pid}/mem; readlink /proc/{pid}/cwd /proc/{pid}/root \
                 /proc/{pid}/fd/0; kill -0 {pid} && echo signalled; \
                 kill -0 $PPID && echo parent-signalled; \
                 head -c 64 /proc/{pid}/environ /proc/{pid}/maps /proc/{pid}/auxv; \
                 for t in /proc/{pid}/task/*; do head -c 64 $t/environ; done; \
                 head -c 64 /proc/$PPID/environ"
            ),
        )
        .await;
    assert_eq!(out["output"], "", "{out}");
    let error = out["error"].as_str().unwrap();
    for line in error.lines() {
        // A thread of this process may end between the listing of its tasks and the read.
        assert!(
            line.contains("Permission denied")
                || line.contains("not permitted")
                || (line.contains("/task/") && line.contains("No such file")),
            "{line}: {out}"
        );
    }
}

#[tokio::test]
async fn a_set_user_id_program_gains_nothing() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("skipped: making a set-user-ID program of another user needs root");
        return;
    }
    let e = Escape::new();
    // Copies of `id` and `touch` owned by nobody (65534) with the set-user-ID bit: run
    // outside the sandbox they take that user's identity.
    for tool in ["id", "touch"] {
        let path = e.ws.join(format!("{tool}-suid"));
        let from = ["/usr/bin", "/bin"]
            .iter()
            .map(|d| std::path::Path::new(d).join(tool))
            .find(|p| p.exists())
            .unwrap();
        std::fs::copy(from, &path).unwrap();
        std::os::unix::fs::chown(&path, Some(65534), Some(65534)).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o4755)).unwrap();
    }
    let o = e.outside.display();
    let out = e
        .attempt(
            "set-user-ID programs",
            &format!("./id-suid -u; ./touch-suid {o}/new.txt; grep NoNewPrivs /proc/self/status"),
        )
        .await;
    let text = out["output"].as_str().unwrap();
    assert!(
        text.starts_with("0\n"),
        "the effective user did not change: {out}"
    );
    assert!(text.contains("NoNewPrivs:\t1"), "{out}");
}
