//! The `.holi` files the tests read: HOLiK's benchmark beside the repository
//! (`../shared/holik-bench/programs`, absent on some machines) and the bundled examples.

use std::path::{Path, PathBuf};

/// The `.holi` files directly in `dir`, sorted; `None` when `dir` cannot be read.
pub fn holi_files(dir: &Path) -> Option<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "holi"))
        .collect();
    files.sort();
    Some(files)
}

/// HOLiK's 70 benchmark libraries, or `None` with a note naming what `skipping` skips
/// when the benchmark is absent.
pub fn benchmark(skipping: &str) -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/holik-bench/programs");
    let files = holi_files(&dir);
    if files.is_none() {
        eprintln!("note: {} is absent; skipping {skipping}", dir.display());
    }
    files
}
