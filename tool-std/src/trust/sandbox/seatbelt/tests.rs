//! The Seatbelt profile, checked on every platform: the reviewed snapshot of a sample plan,
//! each rule traced to the Linux rule it mirrors, and the profile of a plan made from a real
//! directory.

use std::path::{Path, PathBuf};

use super::*;
use crate::trust::sandbox::plan::{Bind, CallDir, PlanOptions, build};

/// The reviewed profile of [`sample`]; `UPDATE_SNAPSHOTS=1` rewrites it.
const SNAPSHOT: &str = "src/trust/sandbox/seatbelt/sample.sb";

/// A plan as the server makes one: a read-write root holding a git repository, a `.env` and a
/// denied directory, the deny list beneath the home directory, the network off.
fn sample() -> Plan {
    let p = PathBuf::from;
    Plan {
        cwd: p("/Users/ada/project"),
        read: vec![p("/")],
        deny_read: vec![p("/Users/ada/.aws"), p("/Users/ada/.ssh")],
        write: vec![
            p("/Users/ada/project"),
            p("/private/var/folders/xy/T/toolsmith-bash-41-0-00ab"),
            p("/dev/null"),
            p("/dev/zero"),
        ],
        binds: vec![
            bind("/Users/ada/project/.git", BindKind::Pin),
            bind(
                "/Users/ada/project/config/secrets",
                BindKind::Mask {
                    source: p("/private/var/folders/xy/T/toolsmith-masks-41-0-00ab/empty.d"),
                },
            ),
            bind("/Users/ada/project/.env", BindKind::ReadOnly),
            bind("/Users/ada/project/.git/config", BindKind::ReadOnly),
            bind("/Users/ada/project/.git/hooks", BindKind::ReadOnly),
        ],
        network: false,
        proxy_port: None,
        unix_sockets: false,
    }
}

fn bind(path: &str, kind: BindKind) -> Bind {
    Bind {
        path: PathBuf::from(path),
        kind,
    }
}

/// The profile with its parameters, as the snapshot holds them.
fn shown(profile: &Profile) -> String {
    let mut out = profile.text.clone();
    out.push_str("\n; The parameters, given as -DNAME=VALUE:\n");
    for (name, value) in &profile.params {
        out.push_str(&format!("; {name}={value}\n"));
    }
    out
}

fn as_given(path: &Path) -> PathBuf {
    path.to_path_buf()
}

#[test]
fn the_sample_plans_profile_matches_the_reviewed_snapshot() {
    let got = shown(&Profile::with_paths(&sample(), as_given));
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(SNAPSHOT);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&file, &got).expect("write the snapshot");
    }
    let want = std::fs::read_to_string(&file).expect("the snapshot (UPDATE_SNAPSHOTS=1 makes it)");
    assert_eq!(
        got.replace("\r\n", "\n"),
        want.replace("\r\n", "\n"),
        "the Seatbelt profile changed; review it and run with UPDATE_SNAPSHOTS=1"
    );
}

/// Every rule is preceded, within its block, by a comment that names the Linux rule it
/// mirrors or says it is a grant only macOS needs.
#[test]
fn every_rule_is_traced_to_the_linux_rule_it_mirrors() {
    let mut plans = vec![sample()];
    let mut proxied = sample();
    proxied.proxy_port = Some(40_123);
    proxied.unix_sockets = true;
    plans.push(proxied);
    let mut open = sample();
    open.network = true;
    plans.push(open);
    for plan in plans {
        let text = Profile::with_paths(&plan, as_given).text;
        let mut traced = false;
        let mut rules = 0;
        for line in text.lines() {
            if line.trim().is_empty() {
                traced = false;
            } else if let Some(comment) = line.strip_prefix(';') {
                traced |= comment.contains("mirrors:") || comment.contains("macOS only");
            } else if line.starts_with('(') && !line.starts_with("(version") {
                rules += 1;
                assert!(traced, "an untraced rule: {line}\n\n{text}");
            }
        }
        assert!(rules >= 10, "{text}");
    }
}

/// Grants come before refusals (a later rule wins in Seatbelt): each deny of a path follows
/// the allow it narrows.
#[test]
fn refusals_follow_the_grants_they_narrow() {
    let text = Profile::with_paths(&sample(), as_given).text;
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle}\n{text}"))
    };
    assert!(at("(allow file-read*)") < at("(deny file-read*\n"));
    assert!(at("(allow file-write*") < at("(deny file-write*\n"));
    assert!(at("(allow file-write*") < at("(deny file-write-unlink"));
    assert!(at("(allow file-write*") < at("(deny file-read* file-write*"));
    // No path is written into the text: every one is a parameter.
    assert!(!text.contains("/Users/ada"), "{text}");
}

#[test]
fn the_network_rules_follow_the_plan() {
    let off = Profile::with_paths(&sample(), as_given).text;
    assert!(!off.contains("(allow network"), "{off}");
    assert!(!off.contains("system-socket"), "{off}");

    let mut proxied = sample();
    proxied.proxy_port = Some(40_123);
    let proxied = Profile::with_paths(&proxied, as_given).text;
    assert!(proxied.contains("(allow network-outbound (remote ip \"localhost:40123\"))"));
    assert!(!proxied.contains("(allow network*)"), "{proxied}");

    let mut open = sample();
    open.network = true;
    open.unix_sockets = true;
    let open = Profile::with_paths(&open, as_given).text;
    assert!(open.contains("(allow network*)"), "{open}");
    assert!(
        open.contains("(allow system-socket (socket-domain AF_UNIX))"),
        "{open}"
    );
}

#[test]
fn sandbox_exec_gets_the_profile_its_parameters_and_the_command() {
    let profile = Profile::with_paths(&sample(), as_given);
    let args = profile.sandbox_exec_args(
        Path::new("/bin/bash"),
        &["-c".to_owned(), "echo hi".to_owned()],
    );
    assert_eq!(args[0], "-p");
    assert_eq!(args[1], profile.text);
    assert_eq!(args[2], "-DDENY_READ_0=/Users/ada/.aws");
    let dashes = args.iter().position(|a| a == "--").expect("--");
    assert_eq!(dashes, 2 + profile.params.len());
    assert_eq!(&args[dashes + 1..], ["/bin/bash", "-c", "echo hi"]);
    assert!(
        args[2..dashes]
            .iter()
            .any(|a| a == "-DPROTECTED_2=/Users/ada/project/.git/hooks"),
        "{args:?}"
    );
}

/// A plan made from a real directory: its protected paths become read-only parameters, its
/// denied directory a masked one, and its paths are resolved.
#[test]
fn a_plan_made_from_a_real_root_protects_what_it_found() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().canonicalize().expect("root");
    std::fs::create_dir_all(root.join(".git/hooks")).expect("hooks");
    std::fs::write(root.join(".env"), "KEY=1").expect(".env");
    std::fs::create_dir_all(root.join("conf/secret")).expect("secret");
    let protected: Vec<String> = crate::trust::sandbox::DEFAULT_PROTECTED
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let call = CallDir::new().expect("call dir");
    let made = build(
        &PlanOptions {
            cwd: &root,
            writable: std::slice::from_ref(&root),
            denied: &[root.join("conf/secret")],
            protected: &protected,
            network: false,
            proxy_port: None,
            unix_sockets: false,
        },
        &call,
    )
    .expect("plan");
    let profile = Profile::of(&made.plan);
    let param = |value: &Path| {
        profile
            .params
            .iter()
            .find(|(_, v)| Path::new(v) == value)
            .map(|(k, _)| k.clone())
    };
    assert!(param(&root.join(".git/hooks")).is_some_and(|k| k.starts_with("PROTECTED_")));
    assert!(param(&root.join(".env")).is_some_and(|k| k.starts_with("PROTECTED_")));
    assert!(param(&root.join(".git")).is_some_and(|k| k.starts_with("PINNED_")));
    assert!(param(&root.join("conf/secret")).is_some_and(|k| k.starts_with("MASKED_")));
    // Renaming `conf` would carry the masked path out from under its rule.
    assert!(param(&root.join("conf")).is_some_and(|k| k.starts_with("PINNED_")));
    assert!(param(&root).is_some_and(|k| k.starts_with("WRITE_")));
    let tmp = call.tmp().canonicalize().expect("tmp");
    assert!(
        param(&tmp).is_some_and(|k| k.starts_with("WRITE_")),
        "{profile:?}"
    );
}
