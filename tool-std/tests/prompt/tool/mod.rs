//! The `prompt_manager` tool: viewing and updating, validation, access, its context and store,
//! and the tool-name renames.

mod access;
mod context;
mod renames;
mod validation;
mod view_update;
