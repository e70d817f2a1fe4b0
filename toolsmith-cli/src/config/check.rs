//! The checks serde cannot make: values in range, tokens long enough, principals distinct.
//! Every one that fails is reported, not the first alone.

use toml::Spanned;

use super::{Config, ConfigError, MAX_PRINCIPALS, MIN_TOKEN_CHARS, sha256_hex};

impl Config {
    /// Appends to `out` every value of the file that is out of range.
    pub(super) fn check(&self, out: &mut Vec<(usize, ConfigError)>) {
        let f = &self.file;
        if let Some(bash) = &f.bash {
            for t in [&bash.timeout, &bash.max_timeout].into_iter().flatten() {
                if *t.get_ref() == 0 {
                    self.report(out, t.span(), "a timeout is at least 1 (seconds)");
                }
            }
            if let (Some(t), Some(m)) = (&bash.timeout, &bash.max_timeout)
                && t.get_ref() > m.get_ref()
            {
                self.report(
                    out,
                    t.span(),
                    &format!(
                        "timeout ({} s) is more than max_timeout ({} s)",
                        t.get_ref(),
                        m.get_ref()
                    ),
                );
            }
            for host in bash.network_hosts.iter().flatten() {
                if let Err(why) = tool_std::trust::sandbox::check_network_host(host.get_ref()) {
                    self.report(out, host.span(), &why);
                }
            }
        }
        if let Some(b) = f.search.as_ref().and_then(|s| s.max_file_bytes.as_ref())
            && *b.get_ref() == 0
        {
            self.report(
                out,
                b.span(),
                "max_file_bytes is at least 1 (bytes), e.g. 4194304 for 4 MiB",
            );
        }
        if let Some(w) = f.web.as_ref().and_then(|w| w.search_window.as_ref()) {
            self.positive(
                w,
                "search_window is a positive number of seconds, e.g. 60 or 0.5",
                out,
            );
        }
        if let Some(d) = &f.activity_max_age_days {
            self.positive(
                d,
                "activity_max_age_days is a positive number of days, e.g. 30",
                out,
            );
        }
        if let Some(n) = &f.activity_max_records
            && *n.get_ref() == 0
        {
            self.report(
                out,
                n.span(),
                "activity_max_records is at least 1, e.g. 10000",
            );
        }
        if let Some(n) = &f.activity_max_mib
            && *n.get_ref() == 0
        {
            self.report(out, n.span(), "activity_max_mib is at least 1, e.g. 256");
        }
        if let Some(mode) = &f.mode
            && let Err(e) = tool_core::Mode::parse(mode.get_ref())
        {
            self.report(out, mode.span(), &format!("mode: {e}"));
        }
        if let Some(t) = f.serve.as_ref().and_then(|s| s.token.as_ref()) {
            self.check_token(t, out);
        }
        if let Some(k) = f.serve.as_ref().and_then(|s| s.approval_key.as_ref()) {
            self.check_token(k, out);
        }
        self.check_code(out);
        self.check_principals(out);
    }

    pub(super) fn report(
        &self,
        out: &mut Vec<(usize, ConfigError)>,
        span: std::ops::Range<usize>,
        message: &str,
    ) {
        out.push((span.start, self.error_at(span, message)));
    }

    pub(super) fn positive(
        &self,
        value: &Spanned<f64>,
        message: &str,
        out: &mut Vec<(usize, ConfigError)>,
    ) {
        if !(value.get_ref().is_finite() && *value.get_ref() > 0.0) {
            self.report(out, value.span(), message);
        }
    }

    fn check_principals(&self, out: &mut Vec<(usize, ConfigError)>) {
        let f = &self.file;
        if f.principals.len() > MAX_PRINCIPALS {
            self.report(
                out,
                f.principals[MAX_PRINCIPALS].name.span(),
                &format!("at most {MAX_PRINCIPALS} principals are allowed"),
            );
            return;
        }
        let mut seen: Vec<&str> = Vec::new();
        let mut hashes: Vec<(String, &str)> = Vec::new();
        for p in &f.principals {
            let name = p.name.get_ref();
            if name.trim().is_empty() {
                self.report(out, p.name.span(), "a principal's name is not empty");
            }
            if seen.contains(&name.as_str()) {
                self.report(
                    out,
                    p.name.span(),
                    &format!("a second principal is named `{name}`; give each its own name"),
                );
            }
            seen.push(name);
            let hash = match (&p.token, &p.token_sha256) {
                (Some(_), Some(h)) => {
                    self.report(
                        out,
                        h.span(),
                        "give a principal `token` or `token_sha256`, not both (prefer \
                         token_sha256: the file then holds no secret)",
                    );
                    continue;
                }
                (None, None) => {
                    self.report(
                        out,
                        p.name.span(),
                        &format!(
                            "principal `{name}` has no token; add token_sha256 = \"<the SHA-256 \
                             of its token, in hex>\" (`printf %s TOKEN | sha256sum`)"
                        ),
                    );
                    continue;
                }
                (Some(t), None) => {
                    self.check_token(t, out);
                    sha256_hex(t.get_ref())
                }
                (None, Some(h)) => {
                    let hex = h.get_ref().to_ascii_lowercase();
                    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                        self.report(
                            out,
                            h.span(),
                            "token_sha256 is 64 hexadecimal digits, the SHA-256 of the token \
                             (`printf %s TOKEN | sha256sum`)",
                        );
                        continue;
                    }
                    hex
                }
            };
            if let Some((_, other)) = hashes.iter().find(|(h, _)| *h == hash) {
                self.report(
                    out,
                    p.name.span(),
                    &format!(
                        "principal `{name}` has the same token as `{other}`; tokens tell \
                         principals apart, so give each its own"
                    ),
                );
            }
            hashes.push((hash, name));
        }
    }

    fn check_token(&self, token: &Spanned<String>, out: &mut Vec<(usize, ConfigError)>) {
        let t = token.get_ref();
        if t.chars().count() < MIN_TOKEN_CHARS || t.chars().any(char::is_whitespace) {
            self.report(
                out,
                token.span(),
                &format!(
                    "a token is at least {MIN_TOKEN_CHARS} characters without spaces; make one \
                     with `openssl rand -hex 32`"
                ),
            );
        }
    }
}
