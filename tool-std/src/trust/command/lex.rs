//! A small shell lexer, enough for the refused-command check, the host's prefix allow-list,
//! the rules' command patterns and the sandbox's per-command network: it splits a command
//! line into simple commands (the parts of lists and pipelines), removes quotes and escapes,
//! notes redirect targets, and lexes command substitutions (`$(...)`, backticks, `<(...)`)
//! and the strings given to `bash -c` or `eval` as command lines of their own. Only
//! [`CommandLine::parse`](super::CommandLine::parse) calls it.
//!
//! It is not a shell parser: here-documents, aliases, functions and expansions are not
//! understood, and it errs towards seeing more commands rather than fewer.

/// One simple command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Simple {
    /// Its words, quotes removed (a substitution left as `$(…)`).
    pub(crate) words: Vec<String>,
    /// Targets of its redirects (`> file`, `2>> file`, `&> file`, `< file`).
    pub(crate) redirects: Vec<String>,
    /// Whether its input is piped from the command before it (`|` or `|&`).
    pub(crate) piped: bool,
    /// Each substitution that is a whole word (`"$(curl URL)"`, `<(wget URL)`), what a shell
    /// or `source` given that word runs: the sequences it was lexed into (its own, its
    /// substitutions' and its shell strings'), as indices into the line's sequences.
    pub(crate) whole_substitutions: Vec<std::ops::Range<usize>>,
}

/// The shells whose `-c` argument is a command line.
pub(crate) const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "mksh"];

/// Words that start a command without being its program: reserved words, and wrappers that
/// run the rest of the line as a command.
const WRAPPERS: &[&str] = &[
    "!", "{", "}", "(", ")", "if", "then", "else", "elif", "fi", "do", "done", "while", "until",
    "time", "env", "nohup", "exec", "command", "builtin", "nice", "ionice", "timeout", "stdbuf",
    "setsid", "xargs", "unbuffer", "chronic",
];

/// How deep substitutions and `bash -c` strings are followed.
const MAX_DEPTH: usize = 4;

impl Simple {
    /// The index of the program's word: after variable assignments and wrappers (with their
    /// options and numeric arguments).
    pub(crate) fn program_index(&self) -> Option<usize> {
        let mut after_wrapper = false;
        for (i, w) in self.words.iter().enumerate() {
            if is_assignment(w) {
                continue;
            }
            let name = basename(w);
            if WRAPPERS.contains(&name) {
                after_wrapper = true;
                continue;
            }
            if after_wrapper && (w.starts_with('-') || is_number_like(w)) {
                continue;
            }
            return Some(i);
        }
        None
    }

    /// The program's name (`/usr/bin/rm` is `rm`).
    pub(crate) fn program(&self) -> Option<&str> {
        self.program_index().map(|i| basename(&self.words[i]))
    }

    /// The words after the program.
    pub(crate) fn args(&self) -> &[String] {
        match self.program_index() {
            Some(i) => &self.words[i + 1..],
            None => &[],
        }
    }

    /// The program and its arguments.
    pub(crate) fn command_words(&self) -> &[String] {
        match self.program_index() {
            Some(i) => &self.words[i..],
            None => &[],
        }
    }
}

/// The file name of a program path.
pub(crate) fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

fn is_number_like(word: &str) -> bool {
    let digits = word.trim_end_matches(['s', 'm', 'h', 'd']);
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// Every command sequence of `line`: its own, then those of its substitutions and of the
/// strings it hands to a shell, each a list of simple commands in order.
/// Whether the line nests substitutions or shell strings past [`MAX_DEPTH`], where they are
/// no longer lexed: the second value.
pub(super) fn sequences(line: &str) -> (Vec<Vec<Simple>>, bool) {
    let mut out = Vec::new();
    let mut too_deep = false;
    lex_into(line, 0, &mut out, &mut too_deep);
    (out, too_deep)
}

fn lex_into(line: &str, depth: usize, out: &mut Vec<Vec<Simple>>, too_deep: &mut bool) {
    if depth > MAX_DEPTH {
        *too_deep = true;
        return;
    }
    let chars: Vec<char> = line.chars().collect();
    let mut pos = 0;
    let mut nested = Vec::new();
    let top = Lexer {
        chars: &chars,
        nested: &mut nested,
    }
    .sequence(&mut pos, None);
    let first = out.len();
    out.push(top);
    // Each substitution's sequences, by its number in `nested`.
    let mut lexed = Vec::with_capacity(nested.len());
    for text in nested {
        let start = out.len();
        lex_into(&text, depth + 1, out, too_deep);
        lexed.push(start..out.len());
    }
    for simple in &mut out[first] {
        for sub in &mut simple.whole_substitutions {
            // Until now the substitution's number; from here on its sequences.
            *sub = lexed.get(sub.start).cloned().unwrap_or(0..0);
        }
    }
    // Strings run by a shell: `bash -c '...'`, `eval ...`.
    // (The nested lines above did the same for their own commands.)
    let inner: Vec<String> = out[first].iter().filter_map(shell_string).collect();
    for text in inner {
        lex_into(&text, depth + 1, out, too_deep);
    }
}

/// The command line a simple command hands to a shell, if it does.
fn shell_string(simple: &Simple) -> Option<String> {
    let program = simple.program()?;
    let args = simple.args();
    if program == "eval" {
        return Some(args.join(" "));
    }
    if !SHELLS.contains(&program) {
        return None;
    }
    let mut takes_string = false;
    for arg in args {
        if takes_string {
            return Some(arg.clone());
        }
        if arg.starts_with('-') && !arg.starts_with("--") && arg.contains('c') {
            takes_string = true;
        }
    }
    None
}

/// What [`Lexer::sequence`] has gathered so far.
#[derive(Default)]
struct Acc {
    commands: Vec<Simple>,
    current: Simple,
    word: String,
    in_word: bool,
    /// The next word is a redirect's target.
    redirect_next: bool,
    /// The number of the last substitution in the current word.
    last_sub: Option<usize>,
}

impl Acc {
    fn end_word(&mut self) {
        if !self.in_word {
            return;
        }
        let w = std::mem::take(&mut self.word);
        if let Some(number) = self.last_sub.take()
            && (w == "$(…)" || w == "<(…)")
        {
            self.current.whole_substitutions.push(number..number);
        }
        if self.redirect_next {
            self.current.redirects.push(w);
            self.redirect_next = false;
        } else {
            self.current.words.push(w);
        }
        self.in_word = false;
    }

    fn end_command(&mut self, piped: bool) {
        self.end_word();
        self.redirect_next = false;
        if !self.current.words.is_empty() || !self.current.redirects.is_empty() {
            self.commands.push(std::mem::take(&mut self.current));
        }
        self.current.piped = piped;
    }
}

struct Lexer<'a> {
    chars: &'a [char],
    /// The text of substitutions met, lexed later as command lines of their own.
    nested: &'a mut Vec<String>,
}

impl Lexer<'_> {
    /// Simple commands up to `end` (a closing `)` or backtick) or the end of the text.
    fn sequence(&mut self, pos: &mut usize, end: Option<char>) -> Vec<Simple> {
        let mut a = Acc::default();
        while *pos < self.chars.len() {
            let c = self.chars[*pos];
            if Some(c) == end {
                *pos += 1;
                break;
            }
            match c {
                ' ' | '\t' => {
                    a.end_word();
                    *pos += 1;
                }
                '\n' | ';' | '(' | ')' => {
                    a.end_command(false);
                    *pos += 1;
                }
                '&' => {
                    if self.peek(*pos + 1) == Some('>') {
                        a.end_word();
                        a.redirect_next = true;
                        *pos += 2;
                        if self.peek(*pos) == Some('>') {
                            *pos += 1;
                        }
                    } else {
                        a.end_command(false);
                        *pos += 1;
                    }
                }
                '|' => {
                    let or = self.peek(*pos + 1) == Some('|');
                    a.end_command(!or);
                    *pos += if or || self.peek(*pos + 1) == Some('&') {
                        2
                    } else {
                        1
                    };
                }
                '>' | '<' => {
                    if self.peek(*pos + 1) == Some('(') {
                        // Process substitution.
                        *pos += 2;
                        a.last_sub = Some(self.substitution(pos, ')'));
                        a.word.push_str("<(…)");
                        a.in_word = true;
                        continue;
                    }
                    // `2>` and `2>&1`: the descriptor number is not a word.
                    if a.in_word && a.word.chars().all(|c| c.is_ascii_digit()) {
                        a.word.clear();
                        a.in_word = false;
                    }
                    a.end_word();
                    *pos += 1;
                    while matches!(self.peek(*pos), Some('>' | '<' | '|')) {
                        *pos += 1;
                    }
                    if self.peek(*pos) == Some('&') {
                        // `>&2`: a descriptor, not a file.
                        *pos += 1;
                        while self
                            .peek(*pos)
                            .is_some_and(|c| c.is_ascii_digit() || c == '-')
                        {
                            *pos += 1;
                        }
                    } else {
                        a.redirect_next = true;
                    }
                }
                '#' if !a.in_word => {
                    while *pos < self.chars.len() && self.chars[*pos] != '\n' {
                        *pos += 1;
                    }
                }
                '\\' => {
                    match self.peek(*pos + 1) {
                        Some('\n') | None => {}
                        Some(next) => {
                            a.word.push(next);
                            a.in_word = true;
                        }
                    }
                    *pos += 2;
                }
                '\'' => {
                    *pos += 1;
                    a.in_word = true;
                    while *pos < self.chars.len() && self.chars[*pos] != '\'' {
                        a.word.push(self.chars[*pos]);
                        *pos += 1;
                    }
                    *pos += 1;
                }
                '"' => {
                    *pos += 1;
                    a.in_word = true;
                    if let Some(text) = self.double_quoted(pos, &mut a.word) {
                        a.last_sub = Some(text);
                    }
                }
                '`' => {
                    *pos += 1;
                    a.last_sub = Some(self.substitution(pos, '`'));
                    a.word.push_str("$(…)");
                    a.in_word = true;
                }
                '$' if self.peek(*pos + 1) == Some('(') => {
                    *pos += 2;
                    a.last_sub = Some(self.substitution(pos, ')'));
                    a.word.push_str("$(…)");
                    a.in_word = true;
                }
                _ => {
                    a.word.push(c);
                    a.in_word = true;
                    *pos += 1;
                }
            }
        }
        a.end_command(false);
        a.commands
    }

    /// The inside of `"..."`, `pos` just after the opening quote; returns the number of the
    /// last substitution in it.
    fn double_quoted(&mut self, pos: &mut usize, word: &mut String) -> Option<usize> {
        let mut last = None;
        while *pos < self.chars.len() {
            let c = self.chars[*pos];
            match c {
                '"' => {
                    *pos += 1;
                    return last;
                }
                '\\' => {
                    match self.peek(*pos + 1) {
                        Some(n @ ('"' | '\\' | '$' | '`')) => word.push(n),
                        Some('\n') => {}
                        Some(n) => {
                            word.push('\\');
                            word.push(n);
                        }
                        None => {}
                    }
                    *pos += 2;
                }
                '`' => {
                    *pos += 1;
                    last = Some(self.substitution(pos, '`'));
                    word.push_str("$(…)");
                }
                '$' if self.peek(*pos + 1) == Some('(') => {
                    *pos += 2;
                    last = Some(self.substitution(pos, ')'));
                    word.push_str("$(…)");
                }
                _ => {
                    word.push(c);
                    *pos += 1;
                }
            }
        }
        last
    }

    /// Skips a substitution up to its matching `end`, keeping its text to be lexed later;
    /// returns its number among the line's substitutions.
    fn substitution(&mut self, pos: &mut usize, end: char) -> usize {
        let start = *pos;
        let mut depth = 0usize;
        let mut quote: Option<char> = None;
        while *pos < self.chars.len() {
            let c = self.chars[*pos];
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some('"'), '\\') | (None, '\\') => *pos += 1,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '(') if end == ')' => depth += 1,
                (None, c) if c == end => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                _ => {}
            }
            *pos += 1;
        }
        let stop = (*pos).min(self.chars.len());
        self.nested.push(self.chars[start..stop].iter().collect());
        *pos = stop + 1;
        self.nested.len() - 1
    }

    fn peek(&self, at: usize) -> Option<char> {
        self.chars.get(at).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lexed(line: &str) -> Vec<Vec<Simple>> {
        sequences(line).0
    }

    fn programs(line: &str) -> Vec<Vec<String>> {
        lexed(line)
            .iter()
            .map(|seq| {
                seq.iter()
                    .filter_map(|s| s.program().map(str::to_owned))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn lists_pipelines_and_quotes() {
        let seqs = lexed("FOO=1 echo 'a b' \"c $d\" | grep -v x && ls > out.txt 2>&1; cat<in");
        let top = &seqs[0];
        assert_eq!(top[0].words, ["FOO=1", "echo", "a b", "c $d"]);
        assert_eq!(top[0].program(), Some("echo"));
        assert!(top[1].piped);
        assert_eq!(top[1].command_words(), ["grep", "-v", "x"]);
        assert!(!top[2].piped);
        assert_eq!(top[2].words, ["ls"]);
        assert_eq!(top[2].redirects, ["out.txt"]);
        assert_eq!(top[3].redirects, ["in"]);
    }

    #[test]
    fn substitutions_and_shell_strings_are_lexed_too() {
        assert_eq!(
            programs("echo \"$(sudo id)\" `whoami`; bash -c 'rm -rf x; ls'"),
            vec![
                vec!["echo".to_owned(), "bash".to_owned()],
                vec!["sudo".to_owned()],
                vec!["whoami".to_owned()],
                vec!["rm".to_owned(), "ls".to_owned()],
            ]
        );
        assert_eq!(programs("eval \"reboot now\"")[1], ["reboot"]);
    }

    #[test]
    fn wrappers_and_escapes() {
        let seqs = lexed("nohup nice -n 10 timeout 5s \\rm -rf /tmp/x # sudo");
        assert_eq!(seqs[0][0].program(), Some("rm"));
        assert_eq!(seqs[0][0].args(), ["-rf", "/tmp/x"]);
        assert_eq!(seqs[0].len(), 1);
        assert_eq!(lexed("/usr/bin/sudo ls")[0][0].program(), Some("sudo"));
    }
}
