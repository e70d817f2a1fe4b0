//! The path generated code names tool-core by.
//!
//! Generated code names only tool-core items, through its hidden support module for helpers
//! (`tool_core::__private_0_1_0`, see [`PRIVATE`]). A crate may depend on the facade `toolsmith` (which re-exports tool-core whole) or on
//! `tool-core` itself, possibly renamed; the calling crate's manifest says which
//! (`proc-macro-crate` reads it, following renames and workspace dependencies). The facade
//! wins when both are there. `#[tool(crate = path)]` overrides the lookup, as
//! `#[serde(crate = "...")]` does.

use proc_macro_crate::{FoundCrate, crate_name};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Ident, Path};

/// The name of tool-core's hidden support module: `__private_` and this crate's version
/// (`__private_0_1_0` for 0.1.0), as serde names its `__private` after its patch version.
/// tool-core and tool-macros share the workspace's version and tool-core pins tool-macros
/// exactly (its Cargo.toml), so generated code names a module that exists in exactly the
/// release of tool-core it was generated for; tool-core renames its module with every
/// version, and a release where the two disagree fails every test that uses a macro.
pub(crate) const PRIVATE: &str = concat!(
    "__private_",
    env!("CARGO_PKG_VERSION_MAJOR"),
    "_",
    env!("CARGO_PKG_VERSION_MINOR"),
    "_",
    env!("CARGO_PKG_VERSION_PATCH"),
);

/// `krate::__private_X_Y_Z`: the path of the support module under the crate path.
pub(crate) fn private(krate: &Path) -> TokenStream {
    let module = Ident::new(PRIVATE, Span::call_site());
    quote!(#krate::#module)
}

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
