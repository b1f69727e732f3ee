//! Mutants of a library's source for the soundness tests: one integer literal
//! increased, one `+` made `-`, or one `<` made `<=`, each mutant once (after a
//! `set-bounds` header, outside `//` comments).

/// One-point mutants of `source`: each integer literal plus one, each `+` a `-`, each
/// `<` a `<=` (outside comments and the bounds header).
pub fn of(source: &str) -> Vec<String> {
    let code_start = source
        .rfind("set-bounds")
        .map_or(0, |i| source[i..].find('#').map_or(0, |j| i + j + 1));
    let mut out = Vec::new();
    let bytes = source.as_bytes();
    let mut i = code_start;
    while i < bytes.len() {
        if source[i..].starts_with("//") {
            i += source[i..].find('\n').unwrap_or(source.len() - i);
            continue;
        }
        let c = bytes[i];
        let prev_ident = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if c.is_ascii_digit() && !prev_ident {
            let end = i + source[i..]
                .find(|ch: char| !ch.is_ascii_digit())
                .unwrap_or(source.len() - i);
            if let Ok(n) = source[i..end].parse::<u64>() {
                out.push(format!("{}{}{}", &source[..i], n + 1, &source[end..]));
            }
            i = end;
            continue;
        }
        if c == b'+' {
            out.push(format!("{}-{}", &source[..i], &source[i + 1..]));
        }
        if c == b'<' && bytes.get(i + 1) != Some(&b'=') {
            out.push(format!("{}<={}", &source[..i], &source[i + 1..]));
        }
        i += 1;
    }
    out
}
