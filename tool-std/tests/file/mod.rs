//! The file tools: reads, edits, listings and specs, output caps, escapes, races, and a writer
//! killed mid-write.

mod caps;
mod edits;
mod escapes;
mod kill;
mod list;
mod races;
mod read;
