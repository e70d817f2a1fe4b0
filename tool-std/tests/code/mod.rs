//! The `code` tool against real language servers (clangd and pylsp from Debian's packages,
//! which `.ci/run` installs), through the in-process MCP client: known answers on a small C
//! and a small Python project (and a tiny cargo project where rust-analyzer is installed),
//! edits that show their errors, a server killed and restarted, and servers kept inside the
//! sandbox. Each test skips, saying why, where its server is absent.

mod c;
mod confined;
mod edits;
mod python;
mod restart;
mod rust;
