//! The agent stores, on the memory store and on a real SQLite file.

mod agents;
mod enabled_tools;
mod limits;
mod renames;
mod sqlite;
