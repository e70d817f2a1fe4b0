//! The `typescript` export (code mode) compiled by TypeScript's own compiler: the
//! declarations of every tool linked here pass `tsc --strict`, calls with the right
//! arguments type-check, and calls a tool would refuse do not (a misspelt parameter, a value
//! of the wrong type, a missing required one, a tool that does not exist).
//!
//! `.ci/run` installs the compiler under `target/typescript`; without it the test says so and
//! skips.

use std::path::PathBuf;
use std::process::Command;

use crate::support::cli::{code, toolsmith_in};
use crate::support::repo;

/// `tsc` from `target/typescript`, if there.
fn tsc() -> Option<PathBuf> {
    let bin = repo().join("target/typescript/node_modules/.bin/tsc");
    if bin.exists() {
        return Some(bin);
    }
    eprintln!(
        "SKIPPED: no TypeScript compiler at {} (`.ci/run` installs it: npm install --prefix \
         target/typescript typescript)",
        bin.display()
    );
    None
}

/// Compiles `script` against the declarations in `dir`; the compiler's output on failure.
fn check(tsc: &PathBuf, dir: &std::path::Path, name: &str, script: &str) -> Result<(), String> {
    let file = dir.join(name);
    std::fs::write(&file, script).unwrap();
    let out = Command::new(tsc)
        .args([
            "--noEmit", "--strict", "--target", "es2022", "--lib", "es2022",
        ])
        .arg(dir.join("tools.d.ts"))
        .arg(&file)
        .output()
        .expect("run tsc");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

#[test]
fn every_tool_declares_in_strict_typescript_and_calls_are_type_checked() {
    let Some(tsc) = tsc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = toolsmith_in(dir.path(), &["list", "--format", "typescript"]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("// Tool declarations for code mode"),
        "{text}"
    );
    assert!(text.contains("  read_file(input: {\n"), "{text}");
    std::fs::write(dir.path().join("tools.d.ts"), &text).unwrap();

    let good = r#"
async function main(): Promise<void> {
  const file = await tools.read_file({ paths: ["src/lib.rs"], offset: 10, limit: 5 });
  const found = await tools.grep({ pattern: "fn main", path: "src" });
  await tools.bash({ command: "ls" });
  void [file, found];
}
main();
"#;
    if let Err(e) = check(&tsc, dir.path(), "good.ts", good) {
        panic!("the right calls do not compile:\n{e}\n--- tools.d.ts ---\n{text}");
    }

    let wrong = [
        (
            "misspelt.ts",
            r#"tools.read_file({ paths: ["a"], limt: 5 });"#,
            "limt",
        ),
        (
            "wrong_type.ts",
            r#"tools.read_file({ paths: 5 });"#,
            "number",
        ),
        ("missing.ts", r#"tools.grep({ path: "src" });"#, "pattern"),
        (
            "no_tool.ts",
            r#"tools.read_fil({ paths: ["a"] });"#,
            "read_fil",
        ),
    ];
    for (name, script, word) in wrong {
        match check(&tsc, dir.path(), name, script) {
            Ok(()) => panic!("{name} compiled: {script}"),
            Err(e) => assert!(e.contains(word), "{name}: {e}"),
        }
    }
}

#[test]
fn the_fixture_tools_declarations_compile_too() {
    // tool-core's fixture tools hold what is hard to say: recursive types, maps, tuples,
    // `allOf`, names that are no identifiers. Their declarations are a snapshot that
    // tool-core's export test keeps equal to the export.
    let Some(tsc) = tsc() else { return };
    let snapshot = repo().join("tool-core/tests/snapshots/fixtures_typescript.d.ts");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&snapshot, dir.path().join("tools.d.ts")).unwrap();
    let use_all = "export async function main(): Promise<void> {\n  void tools;\n}\n";
    if let Err(e) = check(&tsc, dir.path(), "fixtures.ts", use_all) {
        panic!("{}:\n{e}", snapshot.display());
    }
}
