//! The integration tests of tool-rig, one binary: a rig agent (rig's scripted completion
//! model) calling toolsmith's standard tools in a temporary workspace, through
//! [`tool_rig::RigTools`]. A module per behaviour, and one `support` module with the helpers
//! they share.

mod support;

mod agent;
mod cancel;
mod turns;
