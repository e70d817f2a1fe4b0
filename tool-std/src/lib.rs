//! placeholder

pub mod prompt;
pub mod web;
