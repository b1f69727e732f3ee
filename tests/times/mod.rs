//! What two runs of holi share once the times they measure are set aside, for the
//! tests that compare a merged report with the whole run's.

/// `text` with every time set to `T`: `0.012 s`, `"seconds": 0.01`, and the like.
pub fn timeless(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        let (before, from) = rest.split_at(start);
        out.push_str(before);
        let end = from
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-'))
            .unwrap_or(from.len());
        let (number, after) = from.split_at(end);
        let timed = number.contains('.')
            && (after.starts_with(" s")
                || after.starts_with("s")
                || before.ends_with("seconds\": "));
        out.push_str(if timed { "T" } else { number });
        rest = after;
    }
    out.push_str(rest);
    out
}
