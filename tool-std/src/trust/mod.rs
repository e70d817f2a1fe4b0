//! Trust in one room: what decides whether a call runs, and what holds a program once it does.
//!
//! Every tool family goes through the same few checks, and they live here rather than in the
//! families that first needed them:
//!
//! - [`command`]: a command line parsed once into a [`CommandLine`](command::CommandLine),
//!   which the refused-command list, the host's allow-list of prefixes, the rules' command
//!   patterns and the sandbox's per-command network all read;
//! - [`net`]: address classes (which IP addresses are the public internet) and host patterns,
//!   used alike by the web tool's network policy and the sandbox's proxy;
//! - [`sandbox`]: the operating-system sandbox and its one entry point (prepare, launch,
//!   finish), the way every tool that starts a program starts it;
//! - [`rules`]: the permission rules (deny, ask, allow) over every family's calls.
//!
//! # Layers
//!
//! `command`, `net` and `sandbox` sit below the tool families, beside
//! [`workspace`](crate::workspace): they import nothing of any family, and every family may use
//! them. A family never imports another family, nor the rules. The rules sit on top: they
//! read every family's arguments (the paths an `apply_patch` patch names, the shell's
//! configuration). The crate's tests read the sources' `use` lines and fail on any other
//! edge.
//!
//! ```text
//!   rules ──────────────▶ families (file, search, shell, web, prompt)
//!     │                       │
//!     ▼                       ▼
//!   command, net, sandbox ─▶ workspace
//! ```

pub mod command;
pub mod net;
pub mod rules;
pub mod sandbox;
