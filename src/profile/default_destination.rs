//! A default destination as a person names it (`sendledger destination set`, the queue
//! window's settings): the kind of place and its id, into the fields of a send's place.
//! Setting it is the act `SetDefaultDestination` ([`super::config::Config::update`]).

use crate::destination::Named;

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
        site: None,
        conversation_id: id.clone().filter(|_| place == "conversation"),
        project_id: id.filter(|_| place == "project"),
        new_chat: place == "new-chat",
        model,
        effort,
    })
}
