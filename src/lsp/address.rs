//! Documents' addresses (`file:///x/dao.holi`) and the files they name.

use lsp_types::Uri;
use std::path::PathBuf;

/// The file `uri` names, for a `file:` address (percent-escapes decoded); none for
/// any other scheme (an unsaved buffer) or an address that decodes to no text.
pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file://localhost/x` and `file:///x` name the same file; no other host is local.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                i += 3;
            }
            None => {
                decoded.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(decoded).ok().map(PathBuf::from)
}

/// The `file:` address of `path`, escaping what an address may not hold.
pub fn uri_of(path: &std::path::Path) -> Option<Uri> {
    let absolute = std::path::absolute(path).ok()?;
    let mut text = String::from("file://");
    for byte in absolute.to_str()?.bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            text.push(char::from(byte));
        } else {
            text.push_str(&format!("%{byte:02X}"));
        }
    }
    text.parse().ok()
}

/// What files made for `uri` are named after: its file name without `.holi`, with
/// only letters, digits, `-` and `_` (`dao` for `file:///x/dao.holi`).
pub fn stem(uri: &Uri) -> String {
    let name = match path_of(uri) {
        Some(path) => (path.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        None => (uri.as_str().rsplit(['/', ':']).next())
            .unwrap_or_default()
            .to_string(),
    };
    let name = name.strip_suffix(".holi").unwrap_or(&name);
    let stem: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() {
        "library".to_string()
    } else {
        stem
    }
}

/// The folder this server writes its pages to: one of its own in the temporary folder.
pub fn scratch() -> PathBuf {
    std::env::temp_dir().join(format!("holi-lsp-{}", std::process::id()))
}

/// [`stem`] with a hash of the whole address, so that two folders' `dao.holi` get pages
/// of their own (`dao-1f3a…`).
pub fn unique_stem(uri: &Uri) -> String {
    let hash = crate::fnv::Fnv64::default()
        .bytes(uri.as_str().as_bytes())
        .value();
    format!("{}-{:08x}", stem(uri), hash >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(s: &str) -> Uri {
        s.parse().expect("a valid address")
    }

    #[test]
    fn file_addresses_name_files_and_others_none() {
        let path = path_of(&uri("file:///tmp/a%20b/dao.holi"));
        assert_eq!(path, Some(PathBuf::from("/tmp/a b/dao.holi")));
        let local = path_of(&uri("file://localhost/x.holi"));
        assert_eq!(local, Some(PathBuf::from("/x.holi")));
        assert_eq!(path_of(&uri("untitled:Untitled-1")), None);
        assert_eq!(path_of(&uri("file://elsewhere/x.holi")), None);
        let back = uri_of(std::path::Path::new("/tmp/a b/dao.holi")).expect("an address");
        assert_eq!(back.as_str(), "file:///tmp/a%20b/dao.holi");
        assert_eq!(path_of(&back), Some(PathBuf::from("/tmp/a b/dao.holi")));
    }

    #[test]
    fn a_stem_is_the_file_name_without_its_extension() {
        assert_eq!(stem(&uri("file:///x/dao.holi")), "dao");
        assert_eq!(stem(&uri("untitled:Untitled-1")), "Untitled-1");
        assert_eq!(stem(&uri("file:///x/a%20b.holi")), "a_b");
        assert_eq!(stem(&uri("file:///")), "library");
        let (a, b) = (uri("file:///a/dao.holi"), uri("file:///b/dao.holi"));
        assert_ne!(unique_stem(&a), unique_stem(&b));
        assert!(unique_stem(&a).starts_with("dao-"));
    }
}
