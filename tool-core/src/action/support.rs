//! What the code `tool-macros` generates calls into. Not public API: no stability promise.
//!
//! Re-exported from `tool_core::__private_0_1_0` (the hidden, versioned module the macros
//! name).

mod checks;
mod decode;
mod polymorphic;
mod schema;

pub use checks::*;
pub use decode::*;
pub use polymorphic::*;
pub use schema::*;
