//! `sendledger artifact OP N [-o FILE]`: saves a file the send's answer generated, got
//! from the live owner's client route (`GET /v1/sends/{op}/artifacts/{n}`), under its name
//! in the current folder (or FILE); never overwrites a file that is there.

use super::backend;
use super::output::{emit, CliError};
use crate::ledger::LedgerError;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct ArtifactArgs {
    /// The send's operation id.
    pub id: String,
    /// The artifact's number, as `sendledger show` lists it (`generated  #N`).
    pub n: u32,
    /// Where to save it (default: its name in the current folder). An existing file is
    /// never overwritten.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
}

#[derive(Serialize)]
struct Saved {
    op_id: String,
    n: u32,
    path: String,
    name: String,
    mime: String,
    size: usize,
}

/// The file name alone (no folder): what a name from the owner may be saved as.
fn plain_name(name: &str, n: u32) -> PathBuf {
    Path::new(name)
        .file_name()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(format!("artifact-{n}")))
}

pub(crate) fn save(profile: Option<&Path>, json: bool, a: ArtifactArgs) -> Result<(), CliError> {
    let Some(client) = backend::owner(profile)? else {
        return Err(LedgerError::NoOwner.into());
    };
    let file = client.artifact(&a.id, a.n)?;
    let path = a.output.unwrap_or_else(|| plain_name(&file.name, a.n));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|mut f| f.write_all(&file.bytes).and_then(|()| f.sync_all()));
    if let Err(e) = written {
        let why = if e.kind() == std::io::ErrorKind::AlreadyExists {
            format!(
                "{} is there already and is never overwritten: give another file with -o FILE",
                path.display()
            )
        } else {
            format!(
                "{} could not be written ({e}): give another file with -o FILE",
                path.display()
            )
        };
        return Err(CliError::Usage(why));
    }
    let saved = Saved {
        op_id: a.id,
        n: a.n,
        path: path.display().to_string(),
        name: file.name,
        mime: file.mime,
        size: file.bytes.len(),
    };
    emit(json, &saved, || {
        format!(
            "saved {} ({} bytes, {}) to {}",
            saved.name, saved.size, saved.mime, saved.path
        )
    });
    Ok(())
}
