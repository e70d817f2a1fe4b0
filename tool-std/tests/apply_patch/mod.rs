//! `apply_patch`: the grammar, where hunks land, all-or-nothing application, escapes, and the
//! tool behind the runtime.

mod atomic;
mod escapes;
mod grammar;
mod matching;
mod tool;
