//! A test's printed output as a transcript: header and blank lines, and value entries
//! (`title: value`, possibly continued on further lines).
//!
//! pspautotests prefixes each `checkpoint` line with `[x] ` or `[r] ` (a thread
//! rescheduling flag, not a GPU property); it is dropped before anything else. An entry is
//! a line holding `": "` and not ending in `:`; its title is the part before the last
//! `": "` (titles may hold `": "`, texfunc/blend's "Prim: 0x5F * ..."; values never do). Titles are the test's own strings (which parameters it drew with), so the
//! harness takes them from the reference and prints only the values itself.

/// One piece of a transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A header or blank line, printed by the test without reading anything back.
    Text(String),
    /// A printed value: its title and the physical lines it spans (title line included).
    Entry { title: String, lines: Vec<String> },
}

/// Drop the `[x] ` / `[r] ` scheduling prefix.
pub fn strip_prefix(line: &str) -> &str {
    line.strip_prefix("[x] ").or_else(|| line.strip_prefix("[r] ")).unwrap_or(line)
}

/// Split `text` into pieces; each entry spans `lines_per_entry` physical lines.
pub fn parse(text: &str, lines_per_entry: usize) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut lines = text.lines().map(strip_prefix);
    while let Some(line) = lines.next() {
        match line.rsplit_once(": ") {
            Some((title, rest)) if !rest.trim().is_empty() && !line.trim_end().ends_with(':') => {
                let mut all = vec![line.to_owned()];
                all.extend(lines.by_ref().take(lines_per_entry.saturating_sub(1)).map(str::to_owned));
                out.push(Piece::Entry { title: title.to_owned(), lines: all });
            }
            _ => out.push(Piece::Text(line.to_owned())),
        }
    }
    out
}

/// Titles of the entries, in order.
pub fn titles(pieces: &[Piece]) -> Vec<&str> {
    pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Entry { title, .. } => Some(title.as_str()),
            Piece::Text(_) => None,
        })
        .collect()
}

/// The physical lines of `pieces` with each entry's value replaced by `values[i]`
/// (`None`: the value could not be formed, printed as `??`).
pub fn render(pieces: &[Piece], values: &[Option<String>]) -> Vec<String> {
    let mut out = Vec::new();
    let mut next = values.iter();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push(t.clone()),
            Piece::Entry { title, .. } => {
                let v = next.next().cloned().flatten().unwrap_or_else(|| "??".into());
                out.extend(format!("{title}: {v}").split('\n').map(str::to_owned));
            }
        }
    }
    out
}

/// The physical lines of a transcript as printed.
pub fn lines(pieces: &[Piece]) -> Vec<String> {
    let mut out = Vec::new();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push(t.clone()),
            Piece::Entry { lines, .. } => out.extend(lines.iter().cloned()),
        }
    }
    out
}

/// Line-by-line comparison with a reference; blank reference lines are not counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Comparison {
    /// Non-blank reference lines.
    pub lines: usize,
    /// Non-blank reference lines equal to ours.
    pub equal: usize,
    /// (line number from 1, reference, ours) of the unequal lines.
    pub differ: Vec<(usize, String, String)>,
}

pub fn compare(reference: &[String], ours: &[String]) -> Comparison {
    let mut c = Comparison::default();
    let n = reference.len().max(ours.len());
    for i in 0..n {
        let r = reference.get(i).map(String::as_str).unwrap_or("");
        let o = ours.get(i).map(String::as_str).unwrap_or("");
        if !r.trim().is_empty() {
            c.lines += 1;
        }
        if r == o {
            if !r.trim().is_empty() {
                c.equal += 1;
            }
        } else {
            c.differ.push((i + 1, r.to_owned(), o.to_owned()));
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_headers_and_continuations() {
        let text = "[x] Through mode:\n[r]   TL BR: 0100ff 02ff00\n             03ff00 0400ff\n\n[x] Next: 1\n";
        let p = parse(text, 2);
        assert_eq!(p.len(), 4);
        assert_eq!(p[0], Piece::Text("Through mode:".into()));
        assert_eq!(
            p[1],
            Piece::Entry {
                title: "  TL BR".into(),
                lines: vec!["  TL BR: 0100ff 02ff00".into(), "             03ff00 0400ff".into()]
            }
        );
        assert_eq!(titles(&p), ["  TL BR", "Next"]);
        let ours = render(&p, &[Some("0100ff 02ff00\n             03ff00 0400fe".into()), None]);
        assert_eq!(ours[4], "Next: ??");
        let c = compare(&lines(&p), &ours);
        assert_eq!((c.lines, c.equal), (4, 2));
        assert_eq!(c.differ[0].0, 3);
    }

    #[test]
    fn prefix_only_at_line_start() {
        assert_eq!(strip_prefix("[x]   Zero matrix 565 0: 1f91"), "  Zero matrix 565 0: 1f91");
        assert_eq!(strip_prefix("  a [r] b"), "  a [r] b");
        assert!(matches!(&parse("Offsets:\n", 1)[0], Piece::Text(_)));
        assert!(matches!(&parse("Typical mips (AUTO) +00:\n", 1)[0], Piece::Text(_)));
        let p = parse("[r]   Prim: 0x5F * 0x00 + Zero (0.000000 / 0): COLOR=447f0000\n", 1);
        assert_eq!(titles(&p), ["  Prim: 0x5F * 0x00 + Zero (0.000000 / 0)"]);
    }
}
