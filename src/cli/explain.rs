//! `holi explain CODE`: the entry for a diagnostic code, taken from `lang/diagnostics.md`
//! itself so that the documentation and the command cannot drift apart.

use super::exit::Outcome;
use clap::Args;

/// The user documentation of every diagnostic code; each code is a `### CODE: summary`
/// section.
const DOCUMENT: &str = include_str!("../../lang/diagnostics.md");

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// A diagnostic code such as E0101 (any case); without one, every code is listed.
    pub code: Option<String>,
}

/// One code's section of the document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub code: &'static str,
    /// The heading's text after the code, e.g. `a syntax error`.
    pub summary: &'static str,
    /// The heading and everything up to the next heading, without trailing blank lines.
    pub text: &'static str,
}

/// `XNNNN`: one capital letter and four digits.
pub fn is_code(word: &str) -> bool {
    let bytes = word.as_bytes();
    bytes.len() == 5 && bytes[0].is_ascii_uppercase() && bytes[1..].iter().all(u8::is_ascii_digit)
}

/// Every entry of the document, in its order.
pub fn entries() -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut open: Option<(&'static str, &'static str, usize)> = None;
    let mut in_fence = false;
    let mut offset = 0;
    for line in DOCUMENT.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        // A `#` inside a code block (a HOLi header) is not a heading.
        if line.starts_with("```") {
            in_fence = !in_fence;
        }
        if in_fence || !line.starts_with('#') {
            continue;
        }
        if let Some((code, summary, from)) = open.take() {
            let text = DOCUMENT[from..start].trim_end();
            entries.push(Entry {
                code,
                summary,
                text,
            });
        }
        let heading = line.trim_end();
        if let Some((code, summary)) = heading
            .strip_prefix("### ")
            .and_then(|rest| rest.split_once(": "))
            .filter(|(code, _)| is_code(code))
        {
            open = Some((code, summary, start));
        }
    }
    if let Some((code, summary, from)) = open {
        entries.push(Entry {
            code,
            summary,
            text: DOCUMENT[from..].trim_end(),
        });
    }
    entries
}

/// The entry for `code`, in any case.
pub fn entry(code: &str) -> Option<Entry> {
    let code = code.trim().to_ascii_uppercase();
    entries().into_iter().find(|e| e.code == code)
}

pub fn run(args: ExplainArgs) -> Outcome {
    let Some(code) = args.code else {
        for e in entries() {
            super::ui::out(&format!("{}  {}\n", e.code, e.summary));
        }
        super::ui::out("\nRun `holi explain CODE` for one of them.\n");
        return Outcome::Ok;
    };
    match entry(&code) {
        Some(e) => {
            // Printed without the Markdown heading marks.
            super::ui::out(&format!("{}\n", e.text.trim_start_matches("### ")));
            Outcome::Ok
        }
        None => {
            eprintln!("error: `{code}` is not a holi diagnostic code");
            eprintln!(
                "help: codes look like E0101, W0201 or C0001 and appear in brackets in holi's \
                 messages, e.g. `error[E0101]`; `holi explain` with no code lists them all."
            );
            Outcome::BadInput
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_run_from_their_heading_to_the_next() {
        let e = entry("e0101").expect("E0101 is documented");
        assert_eq!(e.code, "E0101");
        assert_eq!(e.summary, "a syntax error");
        assert!(
            e.text.starts_with("### E0101: a syntax error\n"),
            "{}",
            e.text
        );
        assert!(!e.text.contains("### E0201"), "{}", e.text);
        // The header example `# set-bounds …` inside a code block does not end E0004.
        assert!(entry("E0004")
            .expect("E0004 is documented")
            .text
            .contains("Fix: use a smaller bound"));
        assert!(entry(" c0001 ").is_some());
        assert_eq!(entry("e9999"), None);
        assert_eq!(entry("syntax"), None);
    }

    #[test]
    fn codes_are_one_capital_and_four_digits() {
        assert!(is_code("E0101") && is_code("W0201") && is_code("C0002"));
        assert!(!is_code("e0101") && !is_code("E010") && !is_code("E01011") && !is_code("EE101"));
    }

    #[test]
    fn every_code_is_documented_once() {
        let codes: Vec<&str> = entries().iter().map(|e| e.code).collect();
        let mut unique = codes.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(codes.len(), unique.len(), "{codes:?}");
        assert!(codes.len() >= 40, "{codes:?}");
    }
}
