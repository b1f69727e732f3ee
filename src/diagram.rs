//! A counterexample as an SVG sequence diagram, drawn in Rust (no program at run time).
//!
//! Two lanes, the client's on the left and the library's on the right. Every move is
//! one arrow (solid for a call, dashed for a return) labelled with its values, and the
//! model's values beside the symbols; the writes a client made before a move are a
//! second line under its label. Every open frame ([`crate::calltree`]) is an activation
//! bar on its owner's lane, nested bars shifted right, so a call re-entering the
//! library while one of its frames is open is a bar inside a bar. A column on the right
//! counts the open library frames after each move against k. The failure is a red mark
//! on the frame it happens in, with its place and source line underneath.
//!
//! Widths are computed from the number of characters: every text is set in a
//! monospace font, so the browser's layout matches (`tests/report_browser.rs` checks
//! that every label lies inside the picture).

use crate::calltree::{self, CallTree, Frame};
use crate::report::{failure_place, LineIndex};
use crate::trace::{Counterexample, Dir, Player};
use std::fmt::Write as _;

/// The failure under a diagram: what and where, and the source line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailureNote {
    /// `assertion fails at examples/dao.holi:14:5`
    pub headline: String,
    /// The first line of the failing `assert` (or division), trimmed.
    pub code: String,
}

impl FailureNote {
    /// The note for `c`, found in `source`, the text of `file`.
    pub fn new(c: &Counterexample, file: &str, source: &str) -> FailureNote {
        let lines = LineIndex::new(source);
        let span = lines.span(&c.span);
        let code = (source.get(span.start.offset..span.end.offset))
            .and_then(|text| text.lines().next())
            .unwrap_or("")
            .trim();
        FailureNote {
            headline: failure_place(c, file, &lines),
            code: shorten(code, 90),
        }
    }
}

/// `text` cut to at most `max` characters, with `…` where it was cut.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut short: String = text.chars().take(max - 1).collect();
    short.push('…');
    short
}

/// Text escaped for XML and HTML (element content and quoted attributes).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters are not allowed in XML 1.0.
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// The width of a character of the 12-pixel monospace font, rounded up (DejaVu Sans
/// Mono and Liberation Mono are 0.6 em).
const CHAR: f64 = 7.4;
/// The height of one move.
const ROW: f64 = 40.0;
/// The width of an activation bar, and how far a nested one is shifted.
const BAR: f64 = 10.0;
const STEP: f64 = 6.0;
/// The top of the first row, below the lane headers.
const TOP: f64 = 56.0;
/// The column of move numbers.
const GUTTER: f64 = 36.0;
/// At most this many squares count open library frames; beyond, a number does.
const MAX_SQUARES: u32 = 12;

const CLIENT_COLOR: &str = "#2563eb";
const LIBRARY_COLOR: &str = "#c2410c";
const FAIL_COLOR: &str = "#dc2626";
const FONT: &str = "ui-monospace, 'DejaVu Sans Mono', 'Liberation Mono', Menlo, monospace";

fn width(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR
}

/// Where the pieces go.
struct Layout {
    client: f64,
    library: f64,
    meter: f64,
    width: f64,
    /// The row of the failure, after the last move.
    fail_y: f64,
    height: f64,
}

fn row(i: usize) -> f64 {
    TOP + ROW * (i as f64 + 1.0)
}

/// The sequence diagram of `c` under the bound `k`, as a standalone SVG document (also
/// valid inline in HTML). Each move is a `<g class="move">` with `data-move` (from 1),
/// each frame a `<rect class="frame">` with `data-owner` and `data-level` (open frames
/// of its owner, itself included): the tests count them.
pub fn svg(c: &Counterexample, k: u32, note: &FailureNote) -> String {
    let tree = CallTree::new(&c.trace);
    let moves = &c.trace.0;
    let labels: Vec<(String, String)> = (moves.iter().enumerate())
        .map(|(i, m)| {
            let concrete = c.concrete.0.get(i);
            let dir = match m.dir {
                Dir::Call => "call",
                Dir::Ret => "ret",
            };
            let main = format!("{dir} {}({})", m.method, calltree::argument(m, concrete));
            (main, calltree::store(m, concrete).trim().to_string())
        })
        .collect();
    let layout = layout(&tree, c, &labels, k, note);
    let mut out = String::new();
    let (w, h) = (layout.width, layout.height);
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"diagram\" width=\"{w:.0}\" \
         height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"{FONT}\" font-size=\"12\" \
         role=\"img\" aria-label=\"{}\">",
        escape(&format!(
            "Sequence diagram: {} after {} move{}",
            note.headline,
            moves.len(),
            crate::report::plural(moves.len())
        ))
    );
    let _ = writeln!(
        out,
        "<rect width=\"{w:.0}\" height=\"{h:.0}\" fill=\"#ffffff\"/>"
    );
    bands(&mut out, &layout, &tree);
    lanes(&mut out, &layout, k);
    for (i, f) in tree.frames.iter().enumerate() {
        frame(&mut out, &layout, c, i, f);
    }
    meter(&mut out, &layout, &tree, k);
    for (i, m) in moves.iter().enumerate() {
        let (from, to) = ends(&layout, &tree, i, m.by);
        let y = row(i);
        let dash = match m.dir {
            Dir::Call => "",
            Dir::Ret => " stroke-dasharray=\"6 4\"",
        };
        let color = match m.by {
            Player::Client => CLIENT_COLOR,
            Player::Library => LIBRARY_COLOR,
        };
        let by = match m.by {
            Player::Client => "client",
            Player::Library => "library",
        };
        let dir = match m.dir {
            Dir::Call => "call",
            Dir::Ret => "ret",
        };
        let _ = writeln!(
            out,
            "<g class=\"move {dir}\" data-move=\"{}\" data-by=\"{by}\"><title>{}</title>",
            i + 1,
            escape(&m.to_string())
        );
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#6b7280\">{}</text>",
            GUTTER - 8.0,
            y + 4.0,
            i + 1
        );
        let tip = if to > from { to - 1.0 } else { to + 1.0 };
        let back = if to > from { tip - 9.0 } else { tip + 9.0 };
        let _ = writeln!(
            out,
            "<line x1=\"{from:.1}\" y1=\"{y:.1}\" x2=\"{back:.1}\" y2=\"{y:.1}\" stroke=\"{color}\" \
             stroke-width=\"1.6\"{dash}/>"
        );
        let _ = writeln!(
            out,
            "<polygon points=\"{tip:.1},{y:.1} {back:.1},{:.1} {back:.1},{:.1}\" fill=\"{color}\"/>",
            y - 4.5,
            y + 4.5
        );
        let mid = (from + to) / 2.0;
        let (main, store) = &labels[i];
        let _ = writeln!(
            out,
            "<text class=\"label\" x=\"{mid:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#111827\">{}</text>",
            y - 7.0,
            escape(main)
        );
        if !store.is_empty() {
            let _ = writeln!(
                out,
                "<text class=\"label store\" x=\"{mid:.1}\" y=\"{:.1}\" text-anchor=\"middle\" \
                 fill=\"#7c3aed\">{}</text>",
                y + 15.0,
                escape(store)
            );
        }
        out.push_str("</g>\n");
    }
    failure(&mut out, &layout, &tree, note);
    out.push_str("</svg>\n");
    out
}

fn layout(
    tree: &CallTree,
    c: &Counterexample,
    labels: &[(String, String)],
    k: u32,
    note: &FailureNote,
) -> Layout {
    let name_width = |owner: Player| {
        (tree.frames.iter())
            .filter(|f| f.owner == owner)
            .map(|f| c.trace.0.get(f.call).map_or(0.0, |m| width(&m.method)))
            .fold(0.0, f64::max)
    };
    let levels = |owner: Player| {
        (tree.frames.iter())
            .filter(|f| f.owner == owner)
            .map(|f| f.level)
            .max()
            .unwrap_or(1)
            .saturating_sub(1) as f64
            * STEP
    };
    let label = (labels.iter())
        .map(|(main, store)| width(main).max(width(store)))
        .fold(0.0, f64::max);
    // Lane headers are 100 wide; client frame names sit left of their bars.
    let client = GUTTER + (name_width(Player::Client) + BAR + 8.0).max(64.0);
    let library = client + BAR + levels(Player::Client) + (label + 40.0).max(240.0);
    let library_names = library + BAR / 2.0 + levels(Player::Library) + 6.0;
    let meter = (library_names + name_width(Player::Library) + 18.0).max(library + 60.0);
    let meter_width = if k <= MAX_SQUARES {
        (k as f64 * 12.0).max(width("k = 99"))
    } else {
        width("999 / k")
    };
    let fail_y = row(c.trace.0.len());
    let note_width = GUTTER + width(&note.headline).max(width(&note.code)) + 40.0;
    Layout {
        client,
        library,
        meter,
        width: (meter + meter_width + 16.0).max(note_width),
        fail_y,
        height: fail_y + 84.0,
    }
}

/// A shaded band across both lanes for every frame of the client's: what happens while
/// the library waits for a callback (re-entering it, above all) lies inside one.
fn bands(out: &mut String, layout: &Layout, tree: &CallTree) {
    for f in tree.frames.iter().filter(|f| f.owner == Player::Client) {
        let y0 = row(f.call);
        let y1 = f.ret.map_or(layout.fail_y, row);
        let _ = writeln!(
            out,
            "<rect class=\"band\" x=\"{:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{:.1}\" \
             fill=\"{CLIENT_COLOR}\" fill-opacity=\"0.06\"/>",
            layout.client - BAR,
            layout.library - layout.client + 2.0 * BAR,
            (y1 - y0).max(2.0)
        );
    }
}

/// The lane headers, their lifelines and the meter's header.
fn lanes(out: &mut String, layout: &Layout, k: u32) {
    for (x, name, color) in [
        (layout.client, "client", CLIENT_COLOR),
        (layout.library, "library", LIBRARY_COLOR),
    ] {
        let _ = writeln!(
            out,
            "<line x1=\"{x:.1}\" y1=\"40\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#9ca3af\" \
             stroke-dasharray=\"3 3\"/>",
            layout.fail_y + 10.0
        );
        let _ = writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"10\" width=\"100\" height=\"28\" rx=\"5\" fill=\"#ffffff\" \
             stroke=\"{color}\" stroke-width=\"1.5\"/>",
            x - 50.0
        );
        let _ = writeln!(
            out,
            "<text x=\"{x:.1}\" y=\"29\" text-anchor=\"middle\" font-weight=\"bold\" \
             fill=\"{color}\">{name}</text>"
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"{:.1}\" y=\"29\" fill=\"#6b7280\"><title>open library frames after each \
         move, at most k</title>k = {k}</text>",
        layout.meter
    );
}

/// The x of a frame's bar (its left edge).
fn bar_x(layout: &Layout, f: &Frame) -> f64 {
    let lane = match f.owner {
        Player::Client => layout.client,
        Player::Library => layout.library,
    };
    lane - BAR / 2.0 + (f.level.saturating_sub(1)) as f64 * STEP
}

fn frame(out: &mut String, layout: &Layout, c: &Counterexample, i: usize, f: &Frame) {
    let x = bar_x(layout, f);
    let y0 = row(f.call);
    let y1 = f.ret.map_or(layout.fail_y, row);
    let (owner, color) = match f.owner {
        Player::Client => ("client", CLIENT_COLOR),
        Player::Library => ("library", LIBRARY_COLOR),
    };
    let name = c.trace.0.get(f.call).map_or("", |m| m.method.as_str());
    let open = match f.ret {
        Some(ret) => format!("moves {} to {}", f.call + 1, ret + 1),
        None => format!("from move {}, open at the failure", f.call + 1),
    };
    // Nested bars are darker, so the inner one stands out on top of the outer.
    let shades = match f.owner {
        Player::Client => ["#bfdbfe", "#93c5fd", "#60a5fa", "#3b82f6"],
        Player::Library => ["#fed7aa", "#fdba74", "#fb923c", "#f97316"],
    };
    let fill = shades[f.level.clamp(1, shades.len()) - 1];
    let _ = writeln!(
        out,
        "<rect class=\"frame\" data-owner=\"{owner}\" data-level=\"{}\" x=\"{x:.1}\" y=\"{y0:.1}\" \
         width=\"{BAR:.0}\" height=\"{:.1}\" fill=\"{fill}\" stroke=\"{color}\"><title>{} (frame {} of the {owner}: {open})</title></rect>",
        f.level,
        (y1 - y0).max(2.0),
        escape(name),
        i + 1
    );
    // The name beside the bar, outside the lanes: left of the client's outermost bar,
    // right of the library's bar (nested ones are shifted right, clear of the outer).
    let (nx, anchor) = match f.owner {
        Player::Client => (layout.client - BAR / 2.0 - 4.0, "end"),
        Player::Library => (x + BAR + 4.0, "start"),
    };
    let _ = writeln!(
        out,
        "<text class=\"label\" x=\"{nx:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\" font-size=\"11\" \
         fill=\"{color}\">{}</text>",
        y0 + 14.0,
        escape(name)
    );
}

/// The open library frames after each move, against k.
fn meter(out: &mut String, layout: &Layout, tree: &CallTree, k: u32) {
    let open_after = |i: usize| {
        (tree.frames.iter())
            .filter(|f| f.owner == Player::Library && f.call <= i && f.ret.is_none_or(|r| r > i))
            .count()
    };
    let n = tree.frame_of_move.len();
    for i in 0..n {
        let open = open_after(i);
        let y = row(i);
        let _ = write!(out, "<g class=\"depth\" data-open=\"{open}\">");
        if k <= MAX_SQUARES {
            for j in 0..k as usize {
                let fill = if j < open { LIBRARY_COLOR } else { "none" };
                let _ = write!(
                    out,
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"9\" height=\"9\" fill=\"{fill}\" \
                     stroke=\"{LIBRARY_COLOR}\"/>",
                    layout.meter + j as f64 * 12.0,
                    y - 5.0
                );
            }
        } else {
            let _ = write!(
                out,
                "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"{LIBRARY_COLOR}\">{open} / k</text>",
                layout.meter,
                y + 4.0
            );
        }
        out.push_str("</g>\n");
    }
}

/// The end of a move's arrow on each lane: the edge of the bar of the frame it opens or
/// closes, or of the frame around that, or the lifeline at the top level.
fn ends(layout: &Layout, tree: &CallTree, i: usize, by: Player) -> (f64, f64) {
    let mut client = layout.client;
    let mut library = layout.library;
    let frame = tree.frame_of_move.get(i).copied().flatten();
    let parent = frame.and_then(|f| tree.frames[f].parent);
    for f in [frame, parent].into_iter().flatten() {
        let f = &tree.frames[f];
        match f.owner {
            Player::Client => client = bar_x(layout, f) + BAR,
            Player::Library => library = bar_x(layout, f),
        }
    }
    match by {
        Player::Client => (client, library),
        Player::Library => (library, client),
    }
}

/// The mark where the failure happens, and the note under the diagram.
fn failure(out: &mut String, layout: &Layout, tree: &CallTree, note: &FailureNote) {
    let x = match tree.failing_frame.map(|f| &tree.frames[f]) {
        Some(f) => bar_x(layout, f) + BAR / 2.0,
        None => layout.library,
    };
    let y = layout.fail_y;
    let _ = writeln!(
        out,
        "<g class=\"failure\"><title>{}</title><circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"8\" \
         fill=\"{FAIL_COLOR}\"/><path d=\"M{:.1},{:.1} l8,8 m0,-8 l-8,8\" stroke=\"#ffffff\" \
         stroke-width=\"2\"/></g>",
        escape(&note.headline),
        x - 4.0,
        y - 4.0
    );
    let top = y + 20.0;
    let _ = writeln!(
        out,
        "<rect x=\"8\" y=\"{top:.1}\" width=\"{:.1}\" height=\"50\" rx=\"5\" fill=\"#fef2f2\" \
         stroke=\"{FAIL_COLOR}\"/>",
        layout.width - 16.0
    );
    let _ = writeln!(
        out,
        "<text class=\"label\" x=\"{GUTTER:.1}\" y=\"{:.1}\" font-weight=\"bold\" \
         fill=\"{FAIL_COLOR}\">{}</text>",
        top + 19.0,
        escape(&note.headline)
    );
    if !note.code.is_empty() {
        let _ = writeln!(
            out,
            "<text class=\"label\" x=\"{GUTTER:.1}\" y=\"{:.1}\" fill=\"#111827\">{}</text>",
            top + 38.0,
            escape(&note.code)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"
        );
        assert_eq!(escape("x\u{1}y"), "x\u{FFFD}y");
    }

    #[test]
    fn long_code_is_shortened_by_characters() {
        assert_eq!(shorten("ééé", 3), "ééé");
        assert_eq!(shorten("éééé", 3), "éé…");
    }
}
