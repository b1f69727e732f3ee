//! The files a command reads: paths, directories (every `*.holi` below them) and `-`
//! for standard input.

use crate::diagnostics::Diagnostic;
use crate::frontend::{self, Loaded, Rejected};
use std::io::Read;
use std::path::{Path, PathBuf};

/// One input, as named on the command line or found in a directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A file named on the command line.
    File(PathBuf),
    /// A file found in a directory named on the command line.
    Found(PathBuf),
    Stdin,
    /// A file as a shard read it, from the part that carries its contents
    /// (`holi merge`): the merge need not see the file itself.
    Carried(PathBuf, Vec<u8>),
}

/// The name diagnostics and reports use for standard input.
pub const STDIN_NAME: &str = "<stdin>";

impl Input {
    /// Reads and checks the input (see [`frontend::load`]).
    pub fn load(&self, strict: bool) -> Result<Loaded, Rejected> {
        match self {
            Input::File(path) | Input::Found(path) => frontend::load(path, strict),
            Input::Carried(path, bytes) => {
                frontend::load_bytes(&path.display().to_string(), bytes.clone(), strict)
            }
            Input::Stdin => {
                let mut bytes = Vec::new();
                match std::io::stdin().lock().read_to_end(&mut bytes) {
                    Ok(_) => frontend::load_bytes(STDIN_NAME, bytes, strict),
                    Err(error) => Err(Rejected {
                        name: STDIN_NAME.to_string(),
                        source: None,
                        diagnostics: vec![Diagnostic::error(
                            "E0000",
                            format!("I can't read standard input: {error}"),
                        )],
                    }),
                }
            }
        }
    }

    /// The file name without extension, for naming what is written about it.
    pub fn stem(&self) -> String {
        match self {
            Input::File(path) | Input::Found(path) | Input::Carried(path, _) => path
                .file_stem()
                .map_or_else(|| "input".to_string(), |s| s.to_string_lossy().into_owned()),
            Input::Stdin => "stdin".to_string(),
        }
    }
}

/// Expands the command line's paths: a directory stands for every `*.holi` file below
/// it (sorted, hidden entries skipped), `-` for standard input (once). A directory with
/// no HOLi file, or `-` given twice, is a usage error.
pub fn expand(paths: &[PathBuf]) -> Result<Vec<Input>, Diagnostic> {
    let mut inputs = Vec::new();
    let mut stdin_seen = false;
    for path in paths {
        if path.as_os_str() == "-" {
            if stdin_seen {
                return Err(Diagnostic::error(
                    "E0404",
                    "standard input (`-`) is named more than once",
                ));
            }
            stdin_seen = true;
            inputs.push(Input::Stdin);
        } else if path.is_dir() {
            let before = inputs.len();
            collect_dir(path, &mut inputs).map_err(|error| {
                Diagnostic::error(
                    "E0000",
                    format!("I can't read the directory `{}`: {error}", path.display()),
                )
            })?;
            if inputs.len() == before {
                return Err(Diagnostic::error(
                    "E0404",
                    format!("the directory `{}` holds no `.holi` file", path.display()),
                )
                .with_hint("name the files to check, or a directory that holds some"));
            }
        } else {
            // A missing file is reported when it is read, with the others still checked.
            inputs.push(Input::File(path.clone()));
        }
    }
    Ok(inputs)
}

fn collect_dir(dir: &Path, out: &mut Vec<Input>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            collect_dir(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "holi") {
            out.push(Input::Found(path));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_expands_to_its_holi_files_in_order() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::create_dir(dir.path().join(".hidden")).unwrap();
        for name in [
            "b.holi",
            "a.holi",
            "notes.txt",
            "sub/c.holi",
            ".hidden/d.holi",
        ] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let inputs = expand(&[dir.path().to_path_buf()]).unwrap();
        let names: Vec<String> = inputs
            .iter()
            .map(|i| match i {
                Input::Found(p) => p.strip_prefix(dir.path()).unwrap().display().to_string(),
                other => panic!("{other:?} is not found in a directory"),
            })
            .collect();
        assert_eq!(names, ["a.holi", "b.holi", "sub/c.holi"]);
    }

    #[test]
    fn an_empty_directory_and_a_second_dash_are_usage_errors() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            expand(&[dir.path().to_path_buf()]).unwrap_err().code,
            "E0404"
        );
        let dash = PathBuf::from("-");
        assert_eq!(expand(&[dash.clone(), dash]).unwrap_err().code, "E0404");
    }
}
