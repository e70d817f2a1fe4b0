//! The file tools: reads, edits, listings and specs, output caps, escapes, races, a writer
//! killed mid-write, and the "modified since read" guard (versions, and the workspace's record).

mod caps;
mod edits;
mod escapes;
mod history;
mod kill;
mod list;
mod media;
mod races;
mod read;
mod record;
mod stamps;
mod versions;
