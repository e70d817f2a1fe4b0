//! Secrets stay unread: a key planted in a temporary `~/.ssh` (the server's `HOME` for this
//! test), `~/.aws` and `~/.netrc` by every route (`cat`, `cp` into the root, python, a link
//! made in the root, `tar`), and a store the host denies inside the read-write root.

use std::fs;

use serde_json::Value;
use tool_std::shell::ShellConfig;

use crate::support::alone;
use crate::support::sandbox::Escape;

fn printed(out: &Value) -> String {
    format!("{}{}", out["output"], out["error"])
}

async fn child(home: &str) {
    let e = Escape::new();
    for (file, _) in PLANTED {
        fs::write(format!("{home}/{file}"), &e.secret).unwrap();
    }
    let attempts = [
        ("cat the ssh key", "cat ~/.ssh/id_ed25519".to_owned()),
        (
            "copy the ssh key into the root",
            "cp ~/.ssh/id_ed25519 stolen; cat stolen".to_owned(),
        ),
        ("list ~/.ssh", "ls -la ~/.ssh".to_owned()),
        (
            "python reads the aws credentials",
            "python3 -c \"print(open('$HOME/.aws/credentials').read())\"".to_owned(),
        ),
        (
            "link ~/.netrc into the root",
            "ln -s ~/.netrc n; cat n; ln ~/.netrc h; cat h".to_owned(),
        ),
        ("tar the home", format!("tar cf - -C {home} . | strings")),
        ("grep the home", format!("grep -r SECRET {home}")),
    ];
    for (name, command) in &attempts {
        let out = e.attempt(name, command).await;
        assert!(!printed(&out).contains(&e.secret), "{name}: {out}");
        assert!(
            fs::read(e.ws.join("stolen")).map_or(true, |s| s.is_empty()),
            "{name} copied the key"
        );
    }
    // The rest of the home stays readable.
    let out = e.run("cat ~/.bashrc-test").await;
    assert_eq!(out["output"], "plain\n", "{out}");
}

const PLANTED: &[(&str, &str)] = &[
    (".ssh/id_ed25519", ".ssh"),
    (".aws/credentials", ".aws"),
    (".netrc", ""),
];

#[test]
fn secrets_in_home_are_unreadable() {
    let (_tmp, base) = crate::support::temp_dir();
    let home = base.join("home");
    for (_, dir) in PLANTED {
        fs::create_dir_all(home.join(dir)).unwrap();
    }
    fs::write(home.join(".bashrc-test"), "plain\n").unwrap();
    let home = home.to_str().unwrap().to_owned();
    if alone(
        module_path!(),
        "secrets_in_home_are_unreadable",
        &[("HOME", &home)],
    ) {
        // This process was started with `HOME` set to the home the first one made.
        let home = std::env::var("HOME").unwrap();
        tokio::runtime::Runtime::new()
            .unwrap()
            .block_on(child(&home));
    }
}

#[tokio::test]
async fn a_denied_store_inside_the_root_is_masked() {
    let mut e = Escape::new();
    // A store like the command line's default, `.toolsmith/agents.db` in the first root.
    let store = e.ws.join(".toolsmith");
    fs::create_dir_all(&store).unwrap();
    fs::write(store.join("agents.db"), &e.secret).unwrap();
    let mut config = ShellConfig::default();
    config.sandbox.deny_read.push(store.clone());
    e.configure(config);
    let out = e
        .attempt(
            "read and overwrite the store",
            "cat .toolsmith/agents.db; ls .toolsmith; echo pwned > .toolsmith/agents.db; \
             rm -rf .toolsmith",
        )
        .await;
    assert_eq!(
        fs::read_to_string(store.join("agents.db")).unwrap(),
        e.secret,
        "{out}"
    );
}
