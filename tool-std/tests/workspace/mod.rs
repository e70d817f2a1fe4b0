//! The workspace policy on real directories: resolving paths, and races.

mod paths;
mod races;
