//! The `apply_patch` tool.

pub mod locate;
pub mod parser;
pub mod text;
