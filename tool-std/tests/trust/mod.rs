//! The trust room: the crate's layers, read from its sources.

mod layers;
