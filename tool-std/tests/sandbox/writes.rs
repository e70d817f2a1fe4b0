//! Writes outside the read-write roots: by absolute path, `..`, `cd` and relative paths,
//! through a symbolic link or a hard link made inside the root, through `/proc/self/root` and
//! `/proc/<server pid>/cwd`, into the read-only root and `/tmp`, and with every way of
//! changing a file (truncate, remove, rename, `git -C`). Each fails; the snapshot of
//! everything outside is unchanged.

use crate::support::sandbox::Escape;

#[tokio::test]
async fn writes_outside_the_roots_fail_and_change_nothing() {
    let e = Escape::new();
    let o = e.outside.display().to_string();
    let docs = e.docs.display().to_string();
    let attempts: Vec<(&str, String)> = vec![
        ("absolute path", format!("echo pwned > {o}/secret.txt")),
        (
            "new file by absolute path",
            format!("echo pwned > {o}/new.txt"),
        ),
        ("append", format!("echo pwned >> {o}/dir/secret.txt")),
        ("dot-dot", "echo pwned > ../outside/secret.txt".to_owned()),
        (
            "cd and relative",
            "cd ../outside && echo pwned > new.txt; cd dir && echo pwned > secret.txt".to_owned(),
        ),
        (
            "symlink to a directory made inside the root",
            format!("ln -s {o} link && echo pwned > link/new.txt; echo pwned > link/secret.txt"),
        ),
        (
            "symlink to a file made inside the root",
            format!("ln -s {o}/secret.txt f && echo pwned > f"),
        ),
        (
            "hard link made inside the root",
            format!("ln {o}/secret.txt hard; echo pwned >> hard"),
        ),
        ("truncate", format!("truncate -s 0 {o}/secret.txt")),
        ("remove", format!("rm -rf {o}/secret.txt {o}/dir")),
        (
            "rename into the root",
            format!("mv {o}/secret.txt ./stolen.txt"),
        ),
        ("mkdir outside", format!("mkdir {o}/newdir")),
        ("git -C outside", format!("git -C {o} init -q")),
        (
            "python open",
            format!("python3 -c \"open('{o}/secret.txt', 'w').write('pwned')\""),
        ),
        (
            "/proc/self/root",
            format!("echo pwned > /proc/self/root{o}/secret.txt"),
        ),
        (
            "the read-only root",
            format!("echo pwned > {docs}/readme.txt; touch {docs}/new"),
        ),
    ];
    for (name, command) in &attempts {
        e.attempt(name, command).await;
    }
    // The links the attempts could make inside the root did not carry anything out.
    assert!(!e.ws.join("stolen.txt").exists());
}

#[tokio::test]
async fn writes_through_the_servers_own_process_fail() {
    let e = Escape::new();
    let pid = std::process::id();
    let cwd = std::env::current_dir().unwrap();
    let name = format!("pwned-{pid}");
    let out = e
        .attempt(
            "/proc/<server pid>/cwd",
            &format!(
                "echo pwned > /proc/{pid}/cwd/{name}; echo pwned > /proc/{pid}/root/tmp/{name}; \
                 ls /proc/{pid}/cwd/ > /dev/null && echo listed"
            ),
        )
        .await;
    assert!(!cwd.join(&name).exists(), "{out}");
    assert!(!std::path::Path::new("/tmp").join(&name).exists(), "{out}");
    assert!(!out["output"].as_str().unwrap().contains("listed"), "{out}");
}

#[tokio::test]
async fn only_the_calls_own_tmpdir_is_writable_and_it_goes_away() {
    let e = Escape::new();
    let name = format!("toolsmith-escape-{}", std::process::id());
    let out = e
        .attempt(
            "/tmp outside TMPDIR",
            &format!("echo pwned > /tmp/{name}; echo pwned > /var/tmp/{name}; echo $TMPDIR"),
        )
        .await;
    assert!(!std::path::Path::new("/tmp").join(&name).exists(), "{out}");
    assert!(
        !std::path::Path::new("/var/tmp").join(&name).exists(),
        "{out}"
    );
    let tmpdir = out["output"].as_str().unwrap().trim().to_owned();
    assert!(tmpdir.contains("toolsmith-bash-"), "{out}");
    assert!(
        !std::path::Path::new(&tmpdir).exists(),
        "removed after the call"
    );
}
