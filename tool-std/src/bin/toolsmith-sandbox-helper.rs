//! The `bash` tool's sandbox helper as a program of its own.
//!
//! A host whose own `main` cannot call [`tool_std::trust::sandbox::dispatch`] (a test harness,
//! a program that starts its async runtime first) sets `ShellConfig::sandbox.helper` to this
//! program's path. The tool starts it with `argv[0]` set to the helper's name; it then
//! restricts itself and runs the command. Started any other way it says what it is and exits.

fn main() -> std::process::ExitCode {
    tool_std::trust::sandbox::dispatch();
    eprintln!(
        "toolsmith-sandbox-helper: this program is started by the bash tool (with argv[0] `{}`) \
         to run a command in its sandbox; it does nothing on its own",
        tool_std::trust::sandbox::HELPER_ARG0
    );
    std::process::ExitCode::from(2)
}
