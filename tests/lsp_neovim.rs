//! `holi lsp` in a real editor: headless Neovim (Debian's `neovim`, which `.ci/run`
//! installs) starts the server for `.holi` files with the set-up `lang/editors.md`
//! gives, and the diagnostics and the verdict it received are read back from the
//! editor. Without `nvim` the test says it was skipped.

use std::path::Path;
use std::process::Command;

/// The set-up of `lang/editors.md`, with this build's binary for `holi`.
fn init_lua(holi: &str) -> String {
    let documented =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("lang/editors.md"))
            .expect("lang/editors.md is readable");
    let snippet = documented
        .split("```lua\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("lang/editors.md has a Lua set-up");
    assert!(snippet.contains(r#"{ "holi", "lsp" }"#), "{snippet}");
    snippet.replace(r#"{ "holi", "lsp" }"#, &format!("{{ {holi:?}, \"lsp\" }}"))
}

/// What Neovim holds for `file` once `until` (a Lua expression) holds or 30 s passed:
/// the number of attached clients, one line per diagnostic (`line:column code`), and
/// the last `holi/verdict` it was told (`verdict STATE`), by the handler the set-up
/// installs.
fn in_neovim(file: &Path, dir: &Path, until: &str) -> Option<Vec<String>> {
    let init = dir.join("init.lua");
    std::fs::write(&init, init_lua(env!("CARGO_BIN_EXE_holi"))).expect("init.lua written");
    let out = dir.join("held.txt");
    let record = format!(
        "lua local f = io.open({:?}, 'w'); f:write(#vim.lsp.buf_get_clients(0) .. '\\n'); \
         for _, d in ipairs(vim.diagnostic.get(0)) do f:write(d.lnum .. ':' .. d.col .. ' ' .. tostring(d.code) .. '\\n') end; \
         f:write('verdict ' .. tostring(vim.g.holi_verdict) .. '\\n'); f:close()",
        out.display().to_string()
    );
    let status = Command::new("nvim")
        .args(["--headless", "-n", "-i", "NONE", "-u"])
        .arg(&init)
        .arg(file)
        .args([
            "-c",
            &format!("lua vim.wait(30000, function() return {until} end)"),
        ])
        .args(["-c", &record, "-c", "qa!"])
        .env("XDG_STATE_HOME", dir)
        .env("XDG_CACHE_HOME", dir)
        .status()
        .ok()?;
    assert!(status.success(), "nvim: {status}");
    let text = std::fs::read_to_string(out).expect("Neovim wrote what it holds");
    Some(text.lines().map(str::to_string).collect())
}

fn no_neovim() -> bool {
    let missing = Command::new("nvim").arg("--version").output().is_err();
    if missing {
        eprintln!("skipped: no nvim on this machine (.ci/run installs Debian's neovim)");
    }
    missing
}

#[test]
fn neovim_receives_the_diagnostics_of_a_holi_file() {
    if no_neovim() {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    // examples/dao.holi with its balance misspelt in one read: a read of an
    // undeclared reference (W0204), at the name.
    let dao =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/dao.holi"))
            .expect("examples/dao.holi is readable");
    let (line, text) = dao
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("!balance"))
        .expect("dao.holi reads its balance");
    let column = text.find("!balance").map(|c| c + 1).unwrap_or_default();
    let broken = dao.replacen("!balance", "!balanse", 1);
    let file = dir.path().join("dao.holi");
    std::fs::write(&file, broken).expect("written");
    let Some(found) = in_neovim(&file, dir.path(), "#vim.diagnostic.get(0) > 0") else {
        eprintln!("skipped: nvim could not be started");
        return;
    };
    assert_eq!(
        found.first().map(String::as_str),
        Some("1"),
        "one client attached: {found:?}"
    );
    assert!(
        found.contains(&format!("{line}:{column} W0204")),
        "{found:?}"
    );
}

#[test]
fn neovim_shows_the_check_of_the_bundled_example() {
    if no_neovim() {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let dao = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/dao.holi");
    let text = std::fs::read_to_string(&dao).expect("examples/dao.holi is readable");
    let line = (text.lines().position(|l| l.contains("assert"))).expect("dao.holi asserts");
    let column = text
        .lines()
        .nth(line)
        .and_then(|l| l.find("assert"))
        .unwrap_or_default();
    // Checked on open: the failing assert's error, then the verdict.
    let until = "vim.g.holi_verdict == 'unsafe'";
    let Some(found) = in_neovim(&dao, dir.path(), until) else {
        eprintln!("skipped: nvim could not be started");
        return;
    };
    assert_eq!(found.first().map(String::as_str), Some("1"), "{found:?}");
    assert!(
        found.contains(&format!("{line}:{column} C0001")),
        "{found:?}"
    );
    assert_eq!(
        found.last().map(String::as_str),
        Some("verdict unsafe"),
        "{found:?}"
    );
}
