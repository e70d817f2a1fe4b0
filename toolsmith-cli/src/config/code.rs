//! `[code]`: the `code` tool's language servers per language and its limits, checked, and
//! made into the tool's [`CodeConfig`] with the sandbox `[bash]` gives.
//!
//! ```toml
//! [code]
//! idle_timeout = 300
//!
//! [code.servers]
//! c = ["clangd", "--background-index"]
//! python = ["pyright-langserver", "--stdio"]
//! go = []                      # no server for Go
//!
//! [code.extensions]
//! pyw = "python"
//! ```
//!
//! A language without a command gets the first of [`tool_std::code::DEFAULT_SERVERS`] found
//! on the `PATH`.

use std::path::Path;
use std::time::Duration;

use toml::Spanned;
use tool_std::code::{CodeConfig, LANGUAGES};
use tool_std::trust::sandbox::SandboxConfig;

use super::{Config, ConfigError};

/// The longest `idle_timeout` and `start_timeout` (a week, in seconds).
const MAX_SECONDS: f64 = 7.0 * 86_400.0;
/// The longest `edit_wait` (seconds): an edit's answer waits that long at most.
const MAX_EDIT_WAIT: f64 = 60.0;

impl Config {
    /// Appends every mistake of `[code]` serde cannot see: languages no file is of, empty
    /// programs, extensions with their dot, durations out of range.
    pub(super) fn check_code(&self, out: &mut Vec<(usize, ConfigError)>) {
        let Some(code) = &self.file.code else { return };
        let servers = code.servers.as_ref();
        let extensions = code.extensions.as_ref();
        let builtin = |lang: &str| LANGUAGES.iter().any(|(l, _)| *l == lang);
        for (lang, command) in servers.into_iter().flatten() {
            let has_files = builtin(lang)
                || extensions
                    .into_iter()
                    .flatten()
                    .any(|(_, l)| l.get_ref() == lang);
            if !has_files {
                self.report(
                    out,
                    command.span(),
                    &format!(
                        "no file is of language `{lang}`: the code tool knows {} by their \
                         extensions; name the files of `{lang}` under [code.extensions] \
                         (e.g. ext = \"{lang}\")",
                        known_languages()
                    ),
                );
            }
            if command
                .get_ref()
                .first()
                .is_some_and(|p| p.trim().is_empty())
            {
                self.report(
                    out,
                    command.span(),
                    "a server command starts with its program, e.g. [\"clangd\"]; `[]` turns \
                     the language off",
                );
            }
        }
        for (ext, lang) in extensions.into_iter().flatten() {
            if ext.is_empty() || ext.contains(['.', '/', '\\']) {
                self.report(
                    out,
                    lang.span(),
                    &format!(
                        "`{ext}` is not an extension: write it without its dot, e.g. pyw = \
                         \"python\""
                    ),
                );
            }
            let lang_name = lang.get_ref();
            if !builtin(lang_name) && !servers.is_some_and(|s| s.contains_key(lang_name)) {
                self.report(
                    out,
                    lang.span(),
                    &format!(
                        "`{lang_name}` is no language with a server: give it one under \
                         [code.servers] ({lang_name} = [\"its-server\"]) or name one of {}",
                        known_languages()
                    ),
                );
            }
        }
        if let Some(n) = &code.max_servers
            && *n.get_ref() == 0
        {
            self.report(out, n.span(), "max_servers is at least 1, e.g. 6");
        }
        for (value, name) in [
            (&code.idle_timeout, "idle_timeout"),
            (&code.start_timeout, "start_timeout"),
        ] {
            if let Some(v) = value {
                self.seconds(v, 0.0, MAX_SECONDS, name, out);
            }
        }
        if let Some(v) = &code.edit_wait {
            self.seconds(v, -1.0, MAX_EDIT_WAIT, "edit_wait", out);
        }
    }

    /// Reports `value` unless it is more than `above` and at most `most` seconds.
    fn seconds(
        &self,
        value: &Spanned<f64>,
        above: f64,
        most: f64,
        name: &str,
        out: &mut Vec<(usize, ConfigError)>,
    ) {
        let v = *value.get_ref();
        if !(v.is_finite() && v > above && v <= most) {
            let range = if above < 0.0 {
                format!("a number of seconds from 0 to {most}")
            } else {
                format!("a positive number of seconds, at most {most}")
            };
            self.report(
                out,
                value.span(),
                &format!("{name} is {range}; e.g. {name} = 3"),
            );
        }
    }

    /// The `code` tool's configuration: `[code]` over the defaults (its servers replacing
    /// the default of their language), servers confined by `sandbox` (`bash`'s).
    pub(crate) fn code_config(&self, sandbox: &SandboxConfig) -> CodeConfig {
        let mut config = CodeConfig::default();
        config.sandbox = sandbox.clone();
        let Some(code) = &self.file.code else {
            return config;
        };
        let dir = self.dir();
        config.enabled = code.enabled.unwrap_or(true);
        for (lang, command) in code.servers.iter().flatten() {
            let mut command = command.get_ref().clone();
            if let Some(program) = command.first_mut() {
                *program = in_dir(&dir, program);
            }
            config.servers.insert(lang.clone(), command);
        }
        for (ext, lang) in code.extensions.iter().flatten() {
            config
                .extensions
                .insert(ext.clone(), lang.get_ref().clone());
        }
        if let Some(n) = &code.max_servers {
            config.max_servers = (*n.get_ref()).max(1);
        }
        let duration = |v: &Option<Spanned<f64>>, most: f64| {
            v.as_ref().map(|v| {
                let secs = v.get_ref();
                Duration::from_secs_f64(if secs.is_finite() {
                    secs.clamp(0.0, most)
                } else {
                    0.0
                })
            })
        };
        if let Some(d) = duration(&code.idle_timeout, MAX_SECONDS) {
            config.idle_timeout = d;
        }
        if let Some(d) = duration(&code.start_timeout, MAX_SECONDS) {
            config.start_timeout = d;
        }
        if let Some(d) = duration(&code.edit_wait, MAX_EDIT_WAIT) {
            config.edit_wait = d;
        }
        config
            .env_allow
            .extend(code.env_allow.iter().flatten().cloned());
        config
    }
}

/// A program named by a relative path (`./bin/clangd`, `tools/pylsp`) is the file's
/// directory's, made absolute; a bare name is looked up on the `PATH`.
fn in_dir(dir: &Path, program: &str) -> String {
    let path = Path::new(program);
    if path.is_relative() && program.contains('/') {
        // Absolute: a server runs in its root's directory, not the file's.
        let full = dir.join(path);
        std::path::absolute(&full)
            .unwrap_or(full)
            .display()
            .to_string()
    } else {
        program.to_owned()
    }
}

/// The languages the tool knows by extension, for messages.
fn known_languages() -> String {
    LANGUAGES
        .iter()
        .map(|(l, _)| format!("`{l}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Config, String> {
        Config::parse(Path::new("/etc/ts/toolsmith.toml"), text.to_owned()).map_err(|e| e.0)
    }

    #[test]
    fn servers_override_the_defaults_per_language_and_relative_programs_are_the_files() {
        let config = parsed(
            "[code]\nidle_timeout = 2.5\nmax_servers = 2\nenv_allow = [\"CC\"]\n\
             [code.servers]\nc = [\"./bin/clangd\", \"-j=1\"]\npython = [\"pyright-langserver\", \"--stdio\"]\ngo = []\n\
             [code.extensions]\npyw = \"python\"\n",
        )
        .expect("a good file");
        let mut sandbox = SandboxConfig::default();
        sandbox.deny_read.push("/secret".into());
        let code = config.code_config(&sandbox);
        assert_eq!(
            code.server_for("c").unwrap(),
            ["/etc/ts/bin/clangd", "-j=1"]
        );
        assert_eq!(code.server_for("python").unwrap()[0], "pyright-langserver");
        assert_eq!(code.server_for("go"), None);
        assert_eq!(code.language_for("x.pyw").as_deref(), Some("python"));
        assert_eq!(code.idle_timeout, Duration::from_millis(2500));
        assert_eq!(code.max_servers, 2);
        assert!(code.env_allow.iter().any(|v| v == "CC") && code.env_allow.len() > 1);
        assert_eq!(code.sandbox.deny_read, [Path::new("/secret")]);
        // No [code]: the defaults, with the sandbox.
        let code = parsed("").expect("empty").code_config(&sandbox);
        assert!(code.enabled && code.servers.is_empty());
        assert_eq!(code.sandbox.deny_read.len(), 1);
    }

    #[test]
    fn mistakes_under_code_are_explained() {
        for (text, says) in [
            (
                "[code]\nidel_timeout = 5\n",
                "`idel_timeout` is not a key of [code] (did you mean `idle_timeout`?); its keys: \
                 enabled, servers, extensions,",
            ),
            (
                "[code.servers]\nc = \"clangd\"\n",
                "`code.servers.c` takes a language's server command: a list, the program first",
            ),
            (
                "[code.servers]\ncobol = [\"cobol-ls\"]\n",
                "no file is of language `cobol`",
            ),
            ("[code.servers]\nc = [\"\"]\n", "starts with its program"),
            (
                "[code.extensions]\n\".pyw\" = \"python\"\n",
                "without its dot",
            ),
            (
                "[code.extensions]\nzz = \"zig\"\n",
                "`zig` is no language with a server",
            ),
            ("[code]\nmax_servers = 0\n", "max_servers is at least 1"),
            (
                "[code]\nidle_timeout = -1.0\n",
                "idle_timeout is a positive number",
            ),
            (
                "[code]\nedit_wait = 1e9\n",
                "edit_wait is a number of seconds from 0 to 60",
            ),
            (
                "[code]\nservers = [\"clangd\"]\n",
                "`code.servers` is a table, not a list",
            ),
        ] {
            let e = parsed(text).expect_err(text);
            assert!(e.contains(says), "{text}: {e}");
        }
        // A language with extensions of its own may have a server.
        parsed("[code.servers]\nzig = [\"zls\"]\n[code.extensions]\nzig = \"zig\"\n")
            .expect("zig is served");
    }
}
