//! Saving an answer's generated file where a person looks for downloads: the Downloads
//! folder (`directories::UserDirs::download_dir`, i.e. `XDG_DOWNLOAD_DIR` on Linux and the
//! Known Folder on Windows), else `~/Downloads` when it exists, else the home folder.
//! Never over another file: the name is taken with `create_new`, and a taken name becomes
//! `name (2).ext`, `name (3).ext`, … up to [`MAX_TRIES`].

use std::fs::OpenOptions;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

/// How many names are tried before the save is refused.
pub const MAX_TRIES: u32 = 100;
/// The longest file name kept, in characters (the extension is kept within it).
pub const MAX_NAME_CHARS: usize = 120;

/// The folder a saved file goes to; `None` when the system names no home at all.
pub fn downloads() -> Option<PathBuf> {
    let dirs = directories::UserDirs::new()?;
    if let Some(d) = dirs.download_dir() {
        return Some(d.to_path_buf());
    }
    let home = dirs.home_dir();
    let d = home.join("Downloads");
    Some(if d.is_dir() { d } else { home.to_path_buf() })
}

/// A name safe to create in a folder: the last path component of `name`, without control
/// characters or separators, at most [`MAX_NAME_CHARS`]; `generated-file` when nothing is left.
pub fn safe_name(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let clean: String = last
        .chars()
        .filter(|c| !c.is_control() && !matches!(c, ':' | '*' | '?' | '"' | '<' | '>' | '|'))
        .collect();
    let clean = clean.trim().trim_start_matches('.').to_string();
    if clean.is_empty() {
        return "generated-file".into();
    }
    if clean.chars().count() <= MAX_NAME_CHARS {
        return clean;
    }
    let (stem, ext) = split(&clean);
    let keep = MAX_NAME_CHARS.saturating_sub(ext.chars().count());
    format!("{}{ext}", stem.chars().take(keep).collect::<String>())
}

/// `("photo", ".png")` of `photo.png`; no extension: `(name, "")`.
fn split(name: &str) -> (&str, &str) {
    match name.rfind('.') {
        Some(i) if i > 0 => name.split_at(i),
        _ => (name, ""),
    }
}

/// Writes `bytes` as a new file named after `name` in `dir`; returns its path. Errors: the
/// folder cannot be written, or [`MAX_TRIES`] names are all taken — in a sentence.
pub fn save_in(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
    let name = safe_name(name);
    let (stem, ext) = split(&name);
    for i in 1..=MAX_TRIES {
        let candidate = match i {
            1 => name.clone(),
            _ => format!("{stem} ({i}){ext}"),
        };
        let path = dir.join(candidate);
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut f) => {
                return f
                    .write_all(bytes)
                    .and_then(|_| f.sync_all())
                    .map(|_| path.clone())
                    .map_err(|e| {
                        let _ = std::fs::remove_file(&path);
                        format!(
                            "could not write {}: {e}; check the disk has room",
                            path.display()
                        )
                    });
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(format!(
                    "could not create a file in {}: {e}; check the folder exists and is yours",
                    dir.display()
                ))
            }
        }
    }
    Err(format!(
        "{MAX_TRIES} files named like {name} are already in {}; move some away and save again",
        dir.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_file_never_replaces_another_it_takes_the_next_free_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("sky.png"), b"mine").unwrap();
        let first = save_in(dir.path(), "sky.png", b"one").unwrap();
        let second = save_in(dir.path(), "sky.png", b"two").unwrap();
        assert_eq!(first, dir.path().join("sky (2).png"));
        assert_eq!(second, dir.path().join("sky (3).png"));
        assert_eq!(std::fs::read(dir.path().join("sky.png")).unwrap(), b"mine");
        assert_eq!(std::fs::read(second).unwrap(), b"two");
    }

    #[test]
    fn a_name_from_the_page_cannot_leave_the_folder_or_hide() {
        assert_eq!(safe_name("../../.bashrc"), "bashrc");
        assert_eq!(safe_name("a/b\\c.png"), "c.png");
        assert_eq!(safe_name("\u{7}"), "generated-file");
        let long = format!("{}.png", "x".repeat(500));
        let kept = safe_name(&long);
        assert_eq!(kept.chars().count(), MAX_NAME_CHARS);
        assert!(kept.ends_with(".png"));
    }
}
