//! The HTML report (`holi check --report`) opened in a real browser: headless Chromium
//! loads it, and the test checks that it renders: no console message, the expected
//! number of diagrams and arrows, every text of every diagram laid out inside its
//! picture and every arrow label within its arrow (measured by the browser, not
//! estimated), and a screenshot for inspection in `target/report-screenshot/`.
//!
//! Chromium comes from the distribution (`apt-get install chromium`, as `.ci/run`
//! does); `CHROMIUM=/path/to/chrome` picks another. Without one the tests say so and
//! pass.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Where the pages and screenshots go: `target/report-screenshot/`.
fn out_dir() -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let dir = tmp.parent().unwrap_or(tmp).join("report-screenshot");
    std::fs::create_dir_all(&dir).expect("target/report-screenshot is writable");
    dir
}

fn chromium() -> Option<String> {
    let candidates = std::env::var("CHROMIUM").into_iter().chain(
        [
            "chromium",
            "chromium-browser",
            "google-chrome",
            "google-chrome-stable",
        ]
        .map(String::from),
    );
    for name in candidates {
        let works = Command::new(&name)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if works {
            return Some(name);
        }
    }
    eprintln!(
        "skipped: no Chromium found (install the Debian package `chromium`, as .ci/run \
         does, or set CHROMIUM)"
    );
    None
}

/// Headless Chromium on `url` with `args`: its stdout and stderr. Killed after a
/// minute: a browser that hangs fails the test, it does not stall it.
fn browse(chromium: &str, args: &[&str], url: &str) -> (String, String) {
    let profile = tempfile::tempdir().expect("a temporary directory");
    let stdout = profile.path().join("stdout");
    let stderr = profile.path().join("stderr");
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!(
            "--user-data-dir={}",
            profile.path().join("profile").display()
        ))
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).expect("stdout file"))
        .stderr(std::fs::File::create(&stderr).expect("stderr file"))
        .spawn()
        .expect("chromium starts");
    let start = Instant::now();
    loop {
        if child.try_wait().expect("chromium runs").is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within a minute on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    (read(&stdout), read(&stderr))
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// `holi check ARGS --report OUT/NAME.html` from the repository root (so the page names
/// `examples/…`); returns the page's path and holi's exit code.
fn report(name: &str, args: &[&str]) -> (PathBuf, Option<i32>) {
    let page = out_dir().join(format!("{name}.html"));
    let _ = std::fs::remove_file(&page);
    let output = Command::new(env!("CARGO_BIN_EXE_holi"))
        .current_dir(root())
        .args(["check", "--color", "never"])
        .args(args)
        .arg("--report")
        .arg(&page)
        .output()
        .expect("holi runs");
    assert!(page.exists(), "{}", String::from_utf8_lossy(&output.stderr));
    (page, output.status.code())
}

/// Console messages (errors above all) Chromium logged for the page.
fn console_messages(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

/// Measures every diagram of `page` in the browser, from a page that loads it in a
/// frame: per diagram, its size, its texts, how many lie outside it, its moves, and how
/// many arrow labels overflow their arrow.
fn measure(chromium: &str, page: &Path) -> Vec<String> {
    let probe = page.with_extension("probe.html");
    let name = page
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    std::fs::write(
        &probe,
        format!(
            r#"<!DOCTYPE html><html><body>
<iframe id="page" src="{name}" width="1400" height="900"></iframe>
<pre id="measured">not measured</pre>
<script>
window.addEventListener('load', () => {{
  const doc = document.getElementById('page').contentDocument;
  const lines = [];
  for (const svg of doc.querySelectorAll('svg.diagram')) {{
    const w = svg.width.baseVal.value, h = svg.height.baseVal.value;
    let texts = 0, outside = 0, overflowing = 0;
    for (const t of svg.querySelectorAll('text')) {{
      const b = t.getBBox();
      texts++;
      if (b.width <= 0 || b.x < 0 || b.y < 0 || b.x + b.width > w + 0.5 || b.y + b.height > h + 0.5) outside++;
    }}
    const moves = svg.querySelectorAll('g.move');
    for (const g of moves) {{
      const line = g.querySelector('line').getBBox();
      for (const t of g.querySelectorAll('text.label')) {{
        const b = t.getBBox();
        if (b.x < line.x - 1 || b.x + b.width > line.x + line.width + 1) overflowing++;
      }}
    }}
    lines.push(`diagram ${{w}}x${{h}} texts=${{texts}} outside=${{outside}} moves=${{moves.length}} overflowing=${{overflowing}}`);
  }}
  document.getElementById('measured').textContent = lines.join('\n') || 'no diagrams';
}});
</script></body></html>"#
        ),
    )
    .expect("the probe page is written");
    let (dom, _) = browse(
        chromium,
        &["--allow-file-access-from-files", "--dump-dom"],
        &file_url(&probe),
    );
    let measured = dom
        .split("<pre id=\"measured\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .unwrap_or("")
        .to_string();
    assert!(measured.starts_with("diagram "), "not measured: {dom}");
    measured.lines().map(str::to_string).collect()
}

#[test]
fn the_dao_report_renders_in_chromium_with_the_attack_as_a_diagram() {
    let Some(chromium) = chromium() else {
        return;
    };
    let (page, code) = report("dao", &["examples/dao.holi", "--k", "3", "--l", "2"]);
    assert_eq!(code, Some(1), "unsafe");

    let (dom, log) = browse(&chromium, &["--dump-dom"], &file_url(&page));
    assert_eq!(
        console_messages(&log),
        Vec::<&str>::new(),
        "console messages"
    );
    assert_eq!(dom.matches("<svg ").count(), 1, "one diagram: {dom}");
    assert_eq!(dom.matches("<g class=\"move ").count(), 7, "the 7 moves");
    // The nested withdraw: a library frame at level 2, opened inside the client's send.
    assert!(dom.contains("data-owner=\"library\" data-level=\"2\""));
    assert!(dom.contains("<mark>assert (not (!balance &lt; 0))</mark>"));
    assert!(dom.contains("confirmed by replay"));

    let measured = measure(&chromium, &page);
    assert_eq!(measured.len(), 1, "{measured:?}");
    assert!(
        measured[0].contains("outside=0") && measured[0].contains("overflowing=0"),
        "{measured:?}"
    );
    assert!(measured[0].contains("moves=7"), "{measured:?}");

    let screenshot = out_dir().join("dao.png");
    let _ = std::fs::remove_file(&screenshot);
    let shot = format!("--screenshot={}", screenshot.display());
    browse(
        &chromium,
        &[&shot, "--window-size=1000,1000"],
        &file_url(&page),
    );
    let png = std::fs::read(&screenshot).expect("a screenshot was written");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    // A blank or unstyled page compresses to a few kilobytes; the diagram does not.
    assert!(png.len() > 40_000, "{} bytes: nothing drawn?", png.len());
    eprintln!("screenshot: {}", screenshot.display());
}

#[test]
fn the_equiv_report_draws_both_libraries_up_to_where_they_part() {
    let Some(chromium) = chromium() else {
        return;
    };
    let page = out_dir().join("dao-vs-fixed.html");
    let _ = std::fs::remove_file(&page);
    let output = Command::new(env!("CARGO_BIN_EXE_holi"))
        .current_dir(root())
        .args(["equiv", "examples/dao.holi", "examples/dao_fixed.holi"])
        .args(["--k", "3", "--l", "2", "--report"])
        .arg(&page)
        .output()
        .expect("holi runs");
    assert_eq!(output.status.code(), Some(1), "inequivalent");
    let (dom, log) = browse(&chromium, &["--dump-dom"], &file_url(&page));
    assert_eq!(
        console_messages(&log),
        Vec::<&str>::new(),
        "console messages"
    );
    assert!(dom.contains("data-side=\"left\"") && dom.contains("data-side=\"right\""));
    assert_eq!(
        dom.matches("<svg ").count(),
        2,
        "one diagram per library: {dom}"
    );
    assert!(
        dom.contains("the right library parts here: ret withdraw(())"),
        "{dom}"
    );
    assert!(dom.contains("Replayed: run with each library"), "{dom}");
    let measured = measure(&chromium, &page);
    assert_eq!(measured.len(), 2, "{measured:?}");
    for diagram in &measured {
        // The three shared moves and the library's own fourth.
        assert!(diagram.contains("moves=4"), "{measured:?}");
        assert!(
            diagram.contains("outside=0") && diagram.contains("overflowing=0"),
            "{measured:?}"
        );
    }
}

#[test]
fn a_report_of_every_trace_groups_them_and_draws_each() {
    let Some(chromium) = chromium() else {
        return;
    };
    // The DAO's 36 failing traces, and the lock's, of another library, after them.
    let every = [
        "examples/dao.holi",
        "examples/lock.holi",
        "--k",
        "2",
        "--l",
        "2",
        "--all",
    ];
    let (page, code) = report("dao-all", &every);
    assert_eq!(code, Some(1), "unsafe");
    let json = Command::new(env!("CARGO_BIN_EXE_holi"))
        .current_dir(root())
        .arg("check")
        .args(every)
        .args(["--no-replay", "--format", "json"])
        .output()
        .expect("holi runs");
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    let traces: usize = (json["files"].as_array().into_iter().flatten())
        .map(|f| f["counterexamples"].as_array().map_or(0, Vec::len))
        .sum();
    assert!(traces >= 36, "{traces} traces");

    let (dom, log) = browse(&chromium, &["--dump-dom"], &file_url(&page));
    assert_eq!(
        console_messages(&log),
        Vec::<&str>::new(),
        "console messages"
    );
    assert_eq!(dom.matches("<svg ").count(), traces, "a diagram per trace");
    assert_eq!(dom.matches("<section class=\"file\">").count(), 2);
    // Grouped by failure site, the first trace of each open and the others folded.
    let sites = dom.matches("<details class=\"site\" open=\"\">").count();
    assert!(sites >= 2, "{sites} sites");
    assert_eq!(
        dom.matches("<details class=\"trace\" open=\"\">").count(),
        sites
    );

    let measured = measure(&chromium, &page);
    assert_eq!(measured.len(), traces);
    for m in &measured {
        assert!(
            m.contains("outside=0") && m.contains("overflowing=0"),
            "{m}"
        );
    }
    let screenshot = out_dir().join("dao-all.png");
    let shot = format!("--screenshot={}", screenshot.display());
    browse(
        &chromium,
        &[&shot, "--window-size=1000,1400"],
        &file_url(&page),
    );
    assert!(screenshot.exists());
}
