//! The error accumulator: every mistake is recorded and all are reported at once.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Collects errors while a macro input is parsed and checked. It must be consumed with
/// [`Ctxt::check`]; dropping it unchecked is a bug in the macro (as serde's `Ctxt`).
pub(crate) struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error spanned on `tokens` (the narrowest offending tokens).
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, msg: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), msg));
    }

    /// Records an error at a span.
    pub(crate) fn error_at<M: Display>(&self, span: Span, msg: M) {
        self.syn_error(syn::Error::new(span, msg));
    }

    /// Records a parse error.
    pub(crate) fn syn_error(&self, err: syn::Error) {
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push(err);
        }
    }

    /// Consumes the accumulator: `Err` with every error, combined, if there was any.
    pub(crate) fn check(self) -> Result<(), syn::Error> {
        let errors = self.errors.borrow_mut().take().unwrap_or_default();
        let mut iter = errors.into_iter();
        match iter.next() {
            None => Ok(()),
            Some(mut first) => {
                for e in iter {
                    first.combine(e);
                }
                Err(first)
            }
        }
    }

    /// Consumes the accumulator with what was built from the input: that, when no rule
    /// failed, else every error.
    pub(crate) fn finish<T>(self, built: Option<T>) -> Result<T, syn::Error> {
        self.check()?;
        // Every rule that leaves nothing to build records why; this is a safety net.
        built.ok_or_else(|| {
            syn::Error::new(
                Span::call_site(),
                "tool-macros could not read this item, and no rule said why; please report it",
            )
        })
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("tool-macros: an error accumulator was dropped unchecked");
        }
    }
}

/// The candidate nearest to `word`, if it is close enough to be a likely typo.
pub(crate) fn did_you_mean<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (edit_distance(word, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// "unknown tool attribute `x`; did you mean `y`?" or the list of keys.
pub(crate) fn unknown(what: &str, word: &str, candidates: &[&str]) -> String {
    match did_you_mean(word, candidates) {
        Some(near) => format!("unknown {what} `{word}`; did you mean `{near}`?"),
        None => format!(
            "unknown {what} `{word}`; expected one of: {}",
            candidates.join(", ")
        ),
    }
}

/// Levenshtein distance with adjacent transpositions counted as one edit.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_names() {
        assert_eq!(did_you_mean("nmae", &["name", "modes"]), Some("name"));
        assert_eq!(
            did_you_mean("agnet", &["agent", "mcp", "cli"]),
            Some("agent")
        );
        assert_eq!(did_you_mean("xyz", &["name", "modes"]), None);
        assert_eq!(
            did_you_mean("read_file", &["read_files", "write_files"]),
            Some("read_files")
        );
    }
}
