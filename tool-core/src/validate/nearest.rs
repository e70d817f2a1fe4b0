//! "Did you mean": the nearest known name to a misspelt one.

/// The edit distance (insertions, deletions, substitutions, adjacent swaps) between two
/// strings, compared case-insensitively, capped at `limit + 1` to stay cheap.
pub(crate) fn distance(a: &str, b: &str, limit: usize) -> usize {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    if a.len().abs_diff(b.len()) > limit {
        return limit + 1;
    }
    // Optimal string alignment distance, three rows.
    let mut prev2 = vec![0usize; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0usize; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        let mut row_min = cur[0];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(prev2[j - 2] + 1);
            }
            cur[j] = d;
            row_min = row_min.min(d);
        }
        if row_min > limit {
            return limit + 1;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The candidate nearest to `input`, if it is near enough to be a plausible typo: within a
/// third of the length (at least 1, at most 3 edits), or a case-insensitive prefix match.
pub fn nearest<'a, I>(input: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let limit = (input.chars().count() / 3).clamp(1, 3);
    let lower = input.to_lowercase();
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        if c.is_empty() {
            continue;
        }
        let d = distance(input, c, limit);
        let d = if d > limit && lower.len() >= 3 && c.to_lowercase().starts_with(&lower) {
            limit
        } else {
            d
        };
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("kitten", "sitting", 5), 3);
        assert_eq!(distance("serach", "search", 3), 1);
        assert_eq!(distance("", "abc", 5), 3);
        assert_eq!(distance("abc", "abc", 0), 0);
        assert_eq!(distance("abcdef", "z", 2), 3);
    }

    #[test]
    fn nearest_picks_close_names_only() {
        let names = ["search", "fetch"];
        assert_eq!(nearest("serach", names), Some("search"));
        assert_eq!(nearest("Fetch", names), Some("fetch"));
        assert_eq!(nearest("crawl", names), None);
        assert_eq!(nearest("sys", ["system", "name"]), Some("system"));
        assert_eq!(nearest("", names), None);
    }
}
