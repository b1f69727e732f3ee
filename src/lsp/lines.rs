//! Byte offsets of a document and the protocol's positions.

use crate::diagnostics::Span;
use lsp_types::{Position, Range};

/// Byte offsets to the protocol's positions: a line and a column counted in UTF-16
/// code units, the encoding every client supports.
pub struct Lines<'s> {
    text: &'s str,
    starts: Vec<usize>,
}

impl<'s> Lines<'s> {
    pub fn new(text: &'s str) -> Lines<'s> {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lines { text, starts }
    }

    /// The position of byte `at`, clamped into the text and back to the start of the
    /// character it falls in.
    pub fn position(&self, at: usize) -> Position {
        let mut at = at.min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= at) - 1;
        let start = self.starts[line];
        let character: usize = self.text[start..at].chars().map(char::len_utf16).sum();
        Position::new(
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(character).unwrap_or(u32::MAX),
        )
    }

    /// The byte offset of `position`, clamped to its line (a column past its end is
    /// its end) and to the text.
    pub fn offset(&self, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return self.text.len();
        };
        let end = (self.starts.get(position.line as usize + 1)).map_or(self.text.len(), |&e| e);
        let mut units = 0;
        for (i, c) in self.text[start..end].char_indices() {
            if units >= position.character as usize || c == '\n' {
                return start + i;
            }
            units += c.len_utf16();
        }
        end
    }

    pub fn range(&self, span: &Span) -> Range {
        Range::new(
            self.position(span.start),
            self.position(span.end.max(span.start)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_and_clamp() {
        let lines = Lines::new("ab\n\u{1F600}x\n");
        assert_eq!(lines.position(1), Position::new(0, 1));
        assert_eq!(lines.position(3), Position::new(1, 0));
        // The emoji is four bytes and two UTF-16 units.
        assert_eq!(lines.position(7), Position::new(1, 2));
        // Inside the emoji: back to its start.
        assert_eq!(lines.position(5), Position::new(1, 0));
        assert_eq!(lines.position(99), Position::new(2, 0));
        for at in [0, 1, 3, 7, 8] {
            assert_eq!(lines.offset(lines.position(at)), at);
        }
        // Past the end of a line: its end; past the last line: the end of the text.
        assert_eq!(lines.offset(Position::new(0, 40)), 2);
        assert_eq!(lines.offset(Position::new(9, 0)), 9);
    }
}
