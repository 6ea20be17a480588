//! Setting the profile's default destination (`default_destination` in `config.json`, 0600):
//! the place a send that names none goes to. One writer for `sendledger destination set`
//! and the extension's popup (`PUT /v1/ext/default-destination`); reading is
//! [`crate::destination::read_default`].

use super::Profile;
use crate::destination::{self, Destination, Named};

/// Checks `named` like a send's destination and writes it into `config.json`, other keys
/// kept. Returns the default as read back. Errors: a sentence saying what is wrong (an
/// id that is not one, a `config.json` that is not a JSON object, a file that cannot be
/// read or written); nothing is written then.
pub fn set(profile: &Profile, named: &Named) -> Result<Destination, String> {
    let d = named.resolve(&Destination::new_chat())?;
    let path = profile.file("config.json").map_err(|e| e.to_string())?;
    let old = match std::fs::read_to_string(&path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let text = destination::with_default(old.as_deref(), &d)?;
    profile
        .write_private("config.json", text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    destination::read_default(profile.dir())
}
