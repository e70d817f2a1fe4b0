//! The `bash` tool: running commands, streamed and capped output, refused commands, the
//! environment, ending process groups, and bounded memory.

mod background;
mod env;
mod kill;
mod memory;
mod output;
mod refused;
mod run;
