//! Polymorphic tools: the [`Actions`] trait `#[derive(Action)]` implements.
