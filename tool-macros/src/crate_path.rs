//! The path generated code names tool-core by.
//!
//! Generated code names only tool-core items, through `tool_core::__private` for helpers. A
//! crate may depend on the facade `toolsmith` (which re-exports tool-core whole) or on
//! `tool-core` itself, possibly renamed; the calling crate's manifest says which
//! (`proc-macro-crate` reads it, following renames and workspace dependencies). The facade
//! wins when both are there. `#[tool(crate = path)]` overrides the lookup, as
//! `#[serde(crate = "...")]` does.

use proc_macro_crate::{FoundCrate, crate_name};
use proc_macro2::Span;
use syn::{Ident, Path};

/// The facade, then the trait layer, in order of preference.
const CANDIDATES: &[&str] = &["toolsmith", "tool-core"];

/// The absolute path to use when the attribute does not give one.
pub(crate) fn default_path() -> Path {
    for candidate in CANDIDATES {
        // `Itself` means the macro runs inside that package: its tests, examples and
        // doctests are separate crates that name it by its library name (the library itself
        // never uses the macros).
        let name = match crate_name(candidate) {
            Ok(FoundCrate::Itself) => candidate.replace('-', "_"),
            Ok(FoundCrate::Name(name)) => name,
            Err(_) => continue,
        };
        return absolute(&name);
    }
    absolute("tool_core")
}

fn absolute(name: &str) -> Path {
    let ident = Ident::new(name, Span::call_site());
    syn::parse_quote!(::#ident)
}
