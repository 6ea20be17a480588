//! Writes the profile's default destination (`default_destination` in `config.json`, other
//! keys kept, 0600, atomically): the one path of `sendledger destination set`, the
//! queue window's settings and the extension's popup (`PUT /v1/ext/default-destination`). Reading it is `crate::destination::read_default`.

use super::discovery::CONFIG_FILE;
use super::Profile;
use crate::destination::{self, Destination, Named};

/// The destination a person names by its kind of place — `new-chat` (or `new_chat`),
/// `conversation` or `project` — and the id or chatgpt.com URL a conversation or Project
/// needs, with the model and effort. Errors: a sentence saying what is missing or extra.
pub fn named(
    place: &str,
    id: Option<String>,
    model: Option<String>,
    effort: Option<String>,
) -> Result<Named, String> {
    let id = id.filter(|i| !i.trim().is_empty());
    let place = match place {
        "new-chat" | "new_chat" => "new-chat",
        "conversation" | "project" => place,
        other => {
            return Err(format!(
                "the default destination is new-chat, conversation or project, not {:?}",
                other.chars().take(40).collect::<String>()
            ))
        }
    };
    let needs_id = place != "new-chat";
    if needs_id != id.is_some() {
        return Err(if needs_id {
            format!("a default {place} needs the {place}'s id or its chatgpt.com URL")
        } else {
            "a new chat each time takes no id".into()
        });
    }
    Ok(Named {
        conversation_id: id.clone().filter(|_| place == "conversation"),
        project_id: id.filter(|_| place == "project"),
        new_chat: place == "new-chat",
        model,
        effort,
    })
}

/// Checks `named` like a send's destination and writes it as the default; returns the
/// default as read back. Errors: a sentence — the destination not valid, or `config.json`
/// unreadable, not a JSON object, or not writable.
pub fn write(profile: &Profile, named: &Named) -> Result<Destination, String> {
    let d = named.resolve(&Destination::new_chat())?;
    let path = profile.file(CONFIG_FILE).map_err(|e| e.to_string())?;
    let old = match std::fs::read_to_string(&path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let text = destination::with_default(old.as_deref(), &d)?;
    profile
        .write_private(CONFIG_FILE, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    destination::read_default(profile.dir())
}
