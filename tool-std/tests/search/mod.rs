//! The search tools: `grep`, `glob` and `search`, what the walk leaves out, deadlines, and
//! ripgrep as the oracle.

mod deadline;
mod glob;
mod grep;
mod literal;
mod oracle;
mod rules;
mod stream;
