//! The file tools.

pub mod apply_patch;
