//! Benchmarks of the file tools (written below).
fn main() {}
