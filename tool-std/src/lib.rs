//! placeholder

pub mod prompt;
