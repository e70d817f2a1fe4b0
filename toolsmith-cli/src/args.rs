//! The command line, as clap parses it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Declare, validate, export and run the tools an LLM calls.
#[derive(Debug, Parser)]
#[command(name = "toolsmith", version, about, long_about = None)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) options: GlobalOptions,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Options every subcommand takes.
#[derive(Debug, Args)]
pub(crate) struct GlobalOptions {
    /// A read-write workspace root, `DIR` or `NAME=DIR` (repeatable; default: the current
    /// directory).
    #[arg(long = "root", value_name = "[NAME=]DIR", global = true)]
    pub(crate) roots: Vec<String>,
    /// A read-only workspace root, `DIR` or `NAME=DIR` (repeatable).
    #[arg(long = "read-only-root", value_name = "[NAME=]DIR", global = true)]
    pub(crate) read_only_roots: Vec<String>,
    /// The agent store: an SQLite file (default: `.toolsmith/agents.db` under the first
    /// root), or a Postgres URL (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`) that keeps the
    /// agents, the activity records, the used approvals and the search window in one database
    /// that replicas share. Prefer TOOLSMITH_STORE or the file's `[store] url` for a URL with a
    /// password: the command line is visible to other users of the machine.
    #[arg(long, value_name = "PATH|URL", env = "TOOLSMITH_STORE", global = true)]
    pub(crate) store: Option<PathBuf>,
    /// With a Postgres store: how long this replica's calls outlive its last heartbeat when it
    /// stops without closing them, in seconds (default 15; 1 to 3600). The other replicas
    /// close them as `failure` within this and a third of it.
    #[arg(long, value_name = "SECS", global = true, value_parser = lease_secs)]
    pub(crate) store_lease: Option<f64>,
    /// Where `serve` keeps the activity records and `activity` reads them: `memory` (gone when
    /// the server stops), or an SQLite file that several servers may share (default:
    /// `activity.db` beside the agent store, `.toolsmith/activity.db` under the first root).
    #[arg(long, value_name = "memory|PATH", global = true)]
    pub(crate) activity_store: Option<String>,
    /// The most activity records the SQLite store keeps; the oldest go first (default 10000).
    #[arg(long, value_name = "N", global = true)]
    pub(crate) activity_max_records: Option<usize>,
    /// The oldest activity record the SQLite store keeps, in days (default 30; fractions
    /// allowed).
    #[arg(long, value_name = "DAYS", global = true, value_parser = positive_days)]
    pub(crate) activity_max_age_days: Option<f64>,
    /// The most mebibytes the SQLite activity store's file may take (default 256; at least 1).
    #[arg(long, value_name = "MIB", global = true)]
    pub(crate) activity_max_mib: Option<u64>,
    /// The current agent for prompt_manager: created on first use, and still found under this
    /// name after prompt_manager renames it.
    #[arg(long, value_name = "NAME", global = true)]
    pub(crate) agent: Option<String>,
    /// The SearXNG instance the web tool searches with.
    #[arg(long, value_name = "URL", env = "SEARXNG_URL", global = true)]
    pub(crate) searxng_url: Option<String>,
    /// Exempts a host from the web tool's private-address refusal (repeatable).
    #[arg(long = "allow-host", value_name = "HOST", global = true)]
    pub(crate) allow_hosts: Vec<String>,
    /// How many web searches the server allows per --search-window (default 10).
    #[arg(long, value_name = "N", global = true)]
    pub(crate) search_limit: Option<usize>,
    /// The rolling window of --search-limit, in seconds (default 60; fractions allowed).
    #[arg(long, value_name = "SECS", global = true, value_parser = positive_secs)]
    pub(crate) search_window: Option<f64>,
    /// The largest file grep, glob and search read, in bytes; larger files are skipped and
    /// counted (default 1048576).
    #[arg(long, value_name = "BYTES", global = true, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) search_max_file_bytes: Option<u64>,
    /// The bash tool's timeout when a call gives none, in seconds (default 5).
    #[arg(long, value_name = "SECS", global = true)]
    pub(crate) bash_timeout: Option<u64>,
    /// The longest timeout a bash call may ask for, in seconds (default 60).
    #[arg(long, value_name = "SECS", global = true)]
    pub(crate) bash_max_timeout: Option<u64>,
    /// Lets bash run only commands starting with this prefix (repeatable; every part of a
    /// pipeline or list must match one).
    #[arg(long = "bash-allow", value_name = "PREFIX", global = true)]
    pub(crate) bash_allow: Vec<String>,
    /// Switches the bash tool off: every call is refused.
    #[arg(long, global = true)]
    pub(crate) no_bash: bool,
    /// Whether bash runs its commands in the operating-system sandbox (Landlock, seccomp):
    /// writes only in the read-write roots and a private TMPDIR, secrets unreadable, no
    /// network. `off` runs them with the server's own rights. Where the kernel cannot
    /// sandbox, `on` refuses every call.
    /// (Default: on.)
    #[arg(long, value_name = "on|off", global = true)]
    pub(crate) bash_sandbox: Option<tool_std::shell::SandboxMode>,
    /// Lets sandboxed bash commands use the network (AF_INET/AF_INET6 sockets).
    #[arg(long, global = true)]
    pub(crate) bash_network: bool,
    /// Lets sandboxed bash commands make UNIX sockets (`socket(AF_UNIX)`), which reach the
    /// host's services listening on them: the user's systemd manager, D-Bus, Docker, ssh
    /// and gpg agents, all acting outside the sandbox. Off by default.
    #[arg(long, global = true)]
    pub(crate) bash_unix_sockets: bool,
    /// Lets sandboxed bash command lines whose every part matches this pattern use the
    /// network (`cargo fetch*`; repeatable).
    #[arg(long = "bash-network-for", value_name = "PATTERN", global = true)]
    pub(crate) bash_network_for: Vec<String>,
    /// Lets sandboxed bash commands reach this host (`crates.io`, `*.github.com`,
    /// `host:port`) through the sandbox's HTTP proxy while the network is otherwise off
    /// (repeatable).
    #[arg(long = "bash-network-host", value_name = "HOST", global = true)]
    pub(crate) bash_network_hosts: Vec<String>,
    /// Allows every call a rule or a tool's declaration would ask about (without it, `call`
    /// asks on the terminal, and where no one can be asked the call is denied).
    #[arg(long, global = true)]
    pub(crate) approve: bool,
    /// The configuration file (default: `./toolsmith.toml`, else `toolsmith.toml` in the
    /// first --root, where there is one). Flags given here win over it.
    #[arg(long, value_name = "PATH", global = true)]
    pub(crate) config: Option<PathBuf>,
    /// The configuration file that was read (set after it is found, not a flag).
    #[arg(skip)]
    pub(crate) config_found: Option<PathBuf>,
    /// How stderr lines are written: text, or one JSON object a line (level by `RUST_LOG`).
    /// (Default: text.)
    #[arg(long, value_enum, value_name = "FORMAT", global = true)]
    pub(crate) log_format: Option<crate::logs::LogFormat>,
    /// The mode to run in: agent, mcp or cli (default: cli; `list` shows every mode unless
    /// given).
    #[arg(long, value_name = "MODE", global = true)]
    pub(crate) mode: Option<String>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Print the tool definitions (a JSON array, or the XML/Markdown prompt block).
    List {
        /// The format: json, openai, openai-strict, openai-responses, anthropic, gemini, mcp
        /// or xml.
        #[arg(long, default_value = "json")]
        format: String,
        #[command(flatten)]
        select: SelectionArgs,
        #[command(flatten)]
        deferred: DeferArgs,
    },
    /// Print one tool's definition (aliases resolve).
    Schema {
        /// The tool's name or alias.
        name: String,
        /// The format, as for `list`.
        #[arg(long, default_value = "json")]
        format: String,
    },
    /// Run one call and print its result as JSON (exit 0 success, 1 tool error, 2 usage).
    Call {
        /// The tool's name or alias.
        name: String,
        /// The arguments as one JSON object (default `{}`); `-` reads them from stdin.
        arguments: Option<String>,
        /// Reads the arguments from a file (for arguments too large for the command line).
        #[arg(long, value_name = "PATH")]
        args_file: Option<PathBuf>,
        #[command(flatten)]
        select: SelectionArgs,
    },
    /// Serve the tools over MCP: stdio by default, streamable HTTP on `/mcp` with --http.
    Serve {
        /// Serve streamable HTTP on this address (IP:PORT, or a port on 127.0.0.1);
        /// loopback unless a token is set.
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
        /// The token every HTTP request must carry (`Authorization: Bearer TOKEN`).
        #[arg(
            long,
            value_name = "TOKEN",
            env = "TOOLSMITH_TOKEN",
            hide_env_values = true
        )]
        token: Option<String>,
        /// Do not serve the live activity page (`/activity`) beside `/mcp` on HTTP.
        #[arg(long)]
        no_activity: bool,
        /// On stdio, serve the live activity page on this address (IP:PORT, or a port on
        /// 127.0.0.1); loopback unless a token is set. Its URL is printed on stderr.
        #[arg(long, value_name = "ADDR")]
        activity_addr: Option<String>,
        #[command(flatten)]
        select: SelectionArgs,
    },
    /// Print the activity records the store holds (newest last): a table, or JSON.
    Activity {
        /// How many of the newest records (default 50).
        #[arg(long, default_value_t = 50)]
        limit: usize,
        /// One JSON object a line (the records as the page reads them).
        #[arg(long)]
        json: bool,
        /// Keep printing records as they begin and finish, from every process writing the
        /// store, until interrupted.
        #[arg(long)]
        follow: bool,
    },
    /// Show the stored agents and the tools each may use, or edit one agent's (`--agent NAME`)
    /// enabled tools.
    ///
    /// An agent's enabled tools limit what `serve`, `list` and `call` offer it (`--agent NAME`)
    /// and which calls it may make: a call of another tool is refused with the list. An empty
    /// list means every tool (an agent never configured, or after --all-tools). Names and
    /// aliases are accepted and stored as the tools' current names.
    #[command(after_help = "Examples:\n  \
        toolsmith agents                                   show every agent\n  \
        toolsmith agents --agent Sage                      show one agent\n  \
        toolsmith agents --agent Sage --set-tools read_file,grep\n  \
        toolsmith agents --agent Sage --enable-tools glob --disable-tools grep\n  \
        toolsmith agents --agent Sage --all-tools          every tool again")]
    Agents {
        /// Replace the agent's enabled tools with these (names or aliases, comma-separated or
        /// repeatable).
        #[arg(long, value_name = "NAME", value_delimiter = ',', conflicts_with_all = ["enable_tools", "disable_tools", "all_tools"])]
        set_tools: Vec<String>,
        /// Add these tools to the agent's enabled tools (an agent that has every tool keeps
        /// them all; limit it first with --set-tools).
        #[arg(long, value_name = "NAME", value_delimiter = ',')]
        enable_tools: Vec<String>,
        /// Remove these tools from the agent's enabled tools (from an agent that has every
        /// tool: every tool but these). Removing the last tool is refused, for an empty list
        /// means every tool.
        #[arg(long, value_name = "NAME", value_delimiter = ',')]
        disable_tools: Vec<String>,
        /// Let the agent use every tool again (empties its list).
        #[arg(long, conflicts_with_all = ["enable_tools", "disable_tools"])]
        all_tools: bool,
        /// Print the agents as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Rewrite every stored agent's enabled tools from old tool names to the current ones,
    /// using the aliases the tools declare (idempotent).
    MigrateTools {
        /// Undo the migration: current names back to the old ones.
        #[arg(long)]
        rollback: bool,
        /// Show what would change without writing anything.
        #[arg(long)]
        dry_run: bool,
        /// Print the report as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Which tools a command offers: `--toolset`, `--tools`, `--exclude-tools`. With none, every
/// tool; the agent named by `--agent` narrows them further to its enabled tools.
#[derive(Debug, Args, Default, Clone)]
pub(crate) struct SelectionArgs {
    /// Offer the tools of this toolset (repeatable or comma-separated: file, search, shell,
    /// web, prompt).
    #[arg(long = "toolset", value_name = "NAME", value_delimiter = ',')]
    pub(crate) toolsets: Vec<String>,
    /// Offer these tools, by name or alias (repeatable or comma-separated), besides those of
    /// --toolset.
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub(crate) tools: Vec<String>,
    /// Leave these tools out, by name or alias (repeatable or comma-separated), whatever
    /// selects them.
    #[arg(long = "exclude-tools", value_name = "NAME", value_delimiter = ',')]
    pub(crate) exclude_tools: Vec<String>,
}

/// Deferred loading in the formats with a tool search (`anthropic`, `openai-responses`): the
/// tools marked `defer_loading` stay out of the model's context until its search finds them.
#[derive(Debug, Args, Default, Clone)]
pub(crate) struct DeferArgs {
    /// Defer these tools, by name or alias (repeatable or comma-separated), besides those
    /// declared `defer_loading`.
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub(crate) defer_tools: Vec<String>,
    /// Defer every tool of these toolsets (repeatable or comma-separated).
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub(crate) defer_toolsets: Vec<String>,
    /// Defer every tool.
    #[arg(long)]
    pub(crate) defer_all: bool,
    /// openai-responses: group each tool in a namespace named after its first toolset
    /// (unless it declares its own).
    #[arg(long)]
    pub(crate) namespace_by_toolset: bool,
    /// The tool search tool added when a tool is deferred: regex, bm25 (Anthropic's
    /// variants; OpenAI has one) or none (the host brings its own).
    #[arg(long, value_name = "KIND", default_value = "regex", value_parser = ["regex", "bm25", "none"])]
    pub(crate) tool_search: String,
    /// anthropic, anthropic-strict: who may call every tool, as `allowed_callers`
    /// (comma-separated): `direct` (the model) and `code_execution_20260120` (code the model
    /// runs: programmatic tool calling).
    #[arg(long, value_name = "CALLER", value_delimiter = ',')]
    pub(crate) allowed_callers: Vec<String>,
}

/// A positive, finite number of days (at most ten years).
fn positive_days(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(d) if d.is_finite() && d > 0.0 && d <= 3650.0 => Ok(d),
        _ => Err(format!(
            "`{text}` is not a number of days between 0 and 3650 (such as 30 or 0.5)"
        )),
    }
}

/// A positive, finite number of seconds.
fn lease_secs(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && (1.0..=3600.0).contains(&s) => Ok(s),
        _ => Err(format!(
            "`{text}` is not a number of seconds between 1 and 3600 (such as 15)"
        )),
    }
}

fn positive_secs(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err(format!(
            "`{text}` is not a number of seconds between 0 and 86400 (such as 60 or 0.5)"
        )),
    }
}
