//! Prompts: the agent stores, the `prompt_manager` tool, and the migration of the tool names
//! agents have enabled.

mod migration;
mod store;
mod tool;
