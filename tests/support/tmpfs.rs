//! A small tmpfs mounted for one test (a full disk on demand), unmounted on drop.
//! Mounting needs root; without it the test says it was skipped and why.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A mounted tmpfs of a fixed size.
pub struct Tmpfs {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Tmpfs {
    /// Mounts a tmpfs of `bytes` on a fresh directory; `None` (with the reason printed)
    /// when this machine does not allow it.
    pub fn mount(bytes: u64) -> Option<Self> {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("small-disk");
        std::fs::create_dir(&path).expect("the mount point");
        let out = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={bytes},mode=0700"),
                "tmpfs",
            ])
            .arg(&path)
            .output();
        match out {
            Ok(o) if o.status.success() => Some(Self { _dir: dir, path }),
            Ok(o) => {
                eprintln!(
                    "SKIPPED: cannot mount a tmpfs here (needs root): {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                );
                None
            }
            Err(e) => {
                eprintln!("SKIPPED: cannot run mount: {e}");
                None
            }
        }
    }

    /// The mount point.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Fills the file system with `name` until no byte more fits; returns its size.
    pub fn fill(&self, name: &str) -> u64 {
        let mut f = std::fs::File::create(self.path.join(name)).expect("the filler");
        let chunk = vec![0x5a_u8; 4096];
        let mut written = 0u64;
        while f.write_all(&chunk).is_ok() {
            written += chunk.len() as u64;
        }
        // The last partial page, byte by byte.
        while f.write_all(&[0x5a]).is_ok() {
            written += 1;
        }
        let _ = f.sync_all();
        written
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.path).status();
    }
}
