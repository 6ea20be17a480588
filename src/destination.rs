//! Where a send goes: a conversation, a new chat inside a ChatGPT Project, or a new chat —
//! with the model and thinking effort it asks for. A send's destination is part of its
//! identity (like its text); the profile's default destination (kept in the ledger, set by
//! the act `SetDefaultDestination`) is used for a send that names none, resolved once, at
//! queue time. Also what a tab confirmed at grant time ([`Confirmation`]) and the sentence
//! when that is not the destination. Pure.

use crate::site::Site;
use serde::{Deserialize, Serialize};

/// The prefix of the timeline note written when the page's request is not the send's
/// destination (and of the sentence every door reports it with).
pub const MISMATCH_NOTE: &str = "destination_mismatch";
/// The model a send names for the picker's Latest entry (a radio with no slug: docs/extension.md,
/// "The model picker"). The page resolves it: the slug its request names is that resolution.
pub const LATEST_MODEL: &str = "latest";

/// Longest conversation or Project id, in bytes.
pub const MAX_ID_BYTES: usize = 128;
/// Longest model slug or effort name, in bytes.
pub const MAX_MODEL_BYTES: usize = 64;

/// Which kind of place a send goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// An existing conversation (`conversation_id`).
    Conversation,
    /// A new chat inside a ChatGPT Project (`project_id`, `g-p-…`).
    Project,
    /// A new chat outside any Project.
    NewChat,
}

impl Kind {
    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Conversation => "conversation",
            Self::Project => "project",
            Self::NewChat => "new_chat",
        }
    }

    /// From the stored form.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "conversation" => Some(Self::Conversation),
            "project" => Some(Self::Project),
            "new_chat" => Some(Self::NewChat),
            _ => None,
        }
    }
}

/// Who chose the destination: the send itself, or the profile's default at queue time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChosenBy {
    /// The send named it.
    Send,
    /// The send named none; the profile's default destination was recorded.
    Default,
}

/// A resolved destination, as recorded on a send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Destination {
    /// The chat site (absent: chatgpt.com). Part of the send's identity.
    #[serde(default)]
    pub site: Site,
    /// Conversation, Project or new chat.
    pub kind: Kind,
    /// For [`Kind::Conversation`]: its id.
    #[serde(default)]
    pub conversation_id: Option<String>,
    /// For [`Kind::Project`]: the Project's id (`g-p-…`).
    #[serde(default)]
    pub project_id: Option<String>,
    /// The page's model slug the send asks for (e.g. `gpt-5-2-thinking`), if any.
    #[serde(default)]
    pub model: Option<String>,
    /// The thinking effort the send asks for, if any.
    #[serde(default)]
    pub effort: Option<String>,
    /// Who chose it.
    pub chosen_by: ChosenBy,
}

/// What a send's request names, before the default is applied (the fields of
/// `POST /v1/sends`, the CLI's flags). All optional; at most one of the three places.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Named {
    /// The chat site (absent: the one a page address names, else chatgpt.com).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site: Option<Site>,
    /// A conversation id or its page's URL (chatgpt.com `/c/<id>`, claude.ai `/chat/<uuid>`).
    pub conversation_id: Option<String>,
    /// A Project id (`g-p-…` on chatgpt.com, a uuid on claude.ai) or its page's URL.
    pub project_id: Option<String>,
    /// A new chat.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub new_chat: bool,
    /// A model slug.
    pub model: Option<String>,
    /// A thinking effort.
    pub effort: Option<String>,
}

/// What the tab showed when it asked for the grant: the conversation in its address
/// (`None`: a new chat), the Project, and the model and effort its picker showed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Confirmation {
    /// The conversation id in the page's address (`/c/<id>`); `None`: a new chat.
    #[serde(default)]
    pub conversation_id: Option<String>,
    /// The Project in the page's address (`/g/g-p-…/…`), if any.
    #[serde(default)]
    pub project_id: Option<String>,
    /// The model slug the page's picker shows, if it could read one.
    #[serde(default)]
    pub model: Option<String>,
    /// The effort the page's picker shows, if it could read one.
    #[serde(default)]
    pub effort: Option<String>,
    /// The files the page showed as uploaded (its file ids, names, sizes); absent from an
    /// extension that predates attachments (then only a send without files is granted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachments: Option<Vec<crate::attachments::ConfirmedFile>>,
}

/// A chatgpt.com conversation id, or the id in its URL (`…/c/<id>`, also inside a
/// Project). Errors: a sentence naming the bound, or the transient `WEB:` id.
pub fn conversation_id(input: &str) -> Result<String, String> {
    conversation_id_on(Site::Chatgpt, input)
}

/// A conversation id of `site`, or the id in its page's URL (chatgpt.com `…/c/<id>`,
/// claude.ai `/chat/<uuid>`). Errors: a sentence (another site's URL, the bound, the
/// transient `WEB:` id).
pub fn conversation_id_on(site: Site, input: &str) -> Result<String, String> {
    let key = site.conversation_segment();
    let id = match url_path(site, input)? {
        Some(path) => segment_after(path, key).ok_or_else(|| {
            format!("the conversation URL names no conversation (…/{key}/<id>): give the conversation's id or its {}/{key}/… address", site.host())
        })?,
        None => input.trim().to_string(),
    };
    if id.starts_with("WEB:") {
        return Err("a /c/WEB:… address is the page's transient route right after a submit, not a conversation: use the conversation's own id".into());
    }
    page_id("conversation id", id)
}

/// A Project id (`g-p-<id>`), or the Project in a chatgpt.com URL (`/g/g-p-<id>-<name>/…`);
/// the name after the id is dropped. Errors: a sentence.
pub fn project_id(input: &str) -> Result<String, String> {
    project_id_on(Site::Chatgpt, input)
}

/// A Project id of `site`: chatgpt.com's (see [`project_id`]), or a claude.ai Project's
/// uuid, or the one in its URL (`https://claude.ai/project/<uuid>`). Errors: a sentence.
pub fn project_id_on(site: Site, input: &str) -> Result<String, String> {
    if site == Site::Claude {
        let id = match url_path(site, input)? {
            Some(path) => segment_after(path, "project").ok_or_else(|| {
                "the Project URL names no Project (…/project/<uuid>): give the Project's uuid or its claude.ai address".to_string()
            })?,
            None => input.trim().to_string(),
        };
        return page_id("Project id", id);
    }
    let raw = match url_path(site, input)? {
        Some(path) => segment_after(path, "g").ok_or_else(|| {
            "the Project URL names no Project (…/g/g-p-…): give the Project's id or its chatgpt.com address".to_string()
        })?,
        None => input.trim().to_string(),
    };
    let Some(rest) = raw.strip_prefix("g-p-") else {
        return Err(format!(
            "{} is not a Project id: a ChatGPT Project's id starts with g-p-",
            crate::destination::shown(&raw)
        ));
    };
    let id: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    if id.is_empty() {
        return Err("the Project id has nothing after g-p-: give the whole id".into());
    }
    page_id("Project id", format!("g-p-{id}"))
}

/// A value named in a sentence: its first 40 characters and its length when longer.
pub fn shown(s: &str) -> String {
    let n = s.chars().count();
    if n <= 40 {
        format!("{s:?}")
    } else {
        let head: String = s.chars().take(40).collect();
        format!("{head:?}… ({n} characters)")
    }
}

fn page_id(what: &str, id: String) -> Result<String, String> {
    if id.is_empty()
        || id.len() > MAX_ID_BYTES
        || id.chars().any(|c| c.is_control() || c.is_whitespace())
    {
        return Err(format!(
            "the {what} must be 1 to {MAX_ID_BYTES} printable characters without spaces"
        ));
    }
    Ok(id)
}

/// The path of `site`'s page URL, or `None` when `input` is no URL of a known site.
/// Errors: a sentence when it is another site's page.
fn url_path(site: Site, input: &str) -> Result<Option<&str>, String> {
    match Site::of_url(input) {
        None => Ok(None),
        Some(s) if s == site => Ok(site.path_of(input)),
        Some(s) => Err(format!(
            "the address is a {} page but the send is for site {site}: name site {s}, or give a {} address",
            s.host(),
            site.host()
        )),
    }
}

/// The path segment after `/<key>/`, if any.
fn segment_after(path: &str, key: &str) -> Option<String> {
    let mut parts = path.split('/').filter(|p| !p.is_empty());
    while let Some(p) = parts.next() {
        if p == key {
            return parts.next().map(str::to_string);
        }
    }
    None
}

fn slug(what: &str, s: Option<&str>) -> Result<Option<String>, String> {
    let Some(s) = s else { return Ok(None) };
    let ok = !s.is_empty()
        && s.len() <= MAX_MODEL_BYTES
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if ok {
        Ok(Some(s.to_string()))
    } else {
        Err(format!(
            "the {what} must be 1 to {MAX_MODEL_BYTES} letters, digits or . _ - (the page's own name, e.g. gpt-5-2-thinking)"
        ))
    }
}

impl Named {
    /// Whether the request names a place (conversation, Project or new chat).
    pub fn names_place(&self) -> bool {
        self.conversation_id.is_some() || self.project_id.is_some() || self.new_chat
    }

    /// Whether it names anything at all (a place, a model or an effort).
    pub fn names_anything(&self) -> bool {
        self.names_place() || self.model.is_some() || self.effort.is_some()
    }

    /// The site it names: its `site`, else the site of the page address it gives, else
    /// chatgpt.com. Errors: a sentence when the address is another site's page.
    pub fn site(&self) -> Result<Site, String> {
        let from_url = [&self.conversation_id, &self.project_id]
            .into_iter()
            .flatten()
            .find_map(|u| Site::of_url(u));
        match (self.site, from_url) {
            (Some(s), Some(u)) if s != u => Err(format!(
                "the address is a {} page but the send names site {s}: name site {u}, or give a {} address",
                u.host(),
                s.host()
            )),
            (Some(s), _) | (None, Some(s)) => Ok(s),
            (None, None) => Ok(Site::default()),
        }
    }

    /// The destination it names, normalised (URLs to ids); `None` when it names nothing.
    /// A model or effort alone goes to `default`'s place (the default of its site: the
    /// caller picks it by [`Named::site`]). Errors: a sentence.
    pub fn resolve(&self, default: &Destination) -> Result<Destination, String> {
        let site = self.site()?;
        let mut d = self.resolve_place(site, default)?;
        d.site = site;
        Ok(d)
    }

    fn resolve_place(&self, site: Site, default: &Destination) -> Result<Destination, String> {
        let places = [
            self.conversation_id.is_some(),
            self.project_id.is_some(),
            self.new_chat,
        ];
        if places.iter().filter(|p| **p).count() > 1 {
            return Err(
                "a send names one place: a conversation, a Project or a new chat, not several"
                    .into(),
            );
        }
        let (model, effort) = (
            slug("model", self.model.as_deref())?,
            slug("effort", self.effort.as_deref())?,
        );
        let mut d = if let Some(c) = &self.conversation_id {
            Destination::conversation(conversation_id_on(site, c)?)
        } else if let Some(p) = &self.project_id {
            Destination::place(Kind::Project, None, Some(project_id_on(site, p)?))
        } else if self.new_chat {
            Destination::new_chat()
        } else if self.names_anything() {
            Destination {
                model: None,
                effort: None,
                ..default.clone()
            }
        } else {
            return Ok(Destination {
                chosen_by: ChosenBy::Default,
                ..default.clone()
            });
        };
        d.chosen_by = ChosenBy::Send;
        d.model = model;
        d.effort = effort;
        Ok(d)
    }
}

impl Destination {
    /// A new chat, no model named: the default until a person sets one.
    pub fn new_chat() -> Self {
        Self::place(Kind::NewChat, None, None)
    }

    /// An existing conversation.
    pub fn conversation(id: String) -> Self {
        Self::place(Kind::Conversation, Some(id), None)
    }

    fn place(kind: Kind, conversation_id: Option<String>, project_id: Option<String>) -> Self {
        Destination {
            site: Site::default(),
            kind,
            conversation_id,
            project_id,
            model: None,
            effort: None,
            chosen_by: ChosenBy::Send,
        }
    }

    /// The same place: kind, conversation and Project (model and effort aside).
    pub fn same_place(&self, other: &Destination) -> bool {
        self.site == other.site
            && self.kind == other.kind
            && self.conversation_id == other.conversation_id
            && self.project_id == other.project_id
    }

    /// The same site, place, model and effort (who chose it aside).
    pub fn same_as(&self, other: &Destination) -> bool {
        self.site == other.site
            && self.kind == other.kind
            && self.conversation_id == other.conversation_id
            && self.project_id == other.project_id
            && self.model == other.model
            && self.effort == other.effort
    }

    /// In words: "conversation 6a1…", "a new chat in Project g-p-…", "a new chat", plus
    /// "with model …, effort …".
    pub fn words(&self) -> String {
        self.words_titled(None)
    }

    /// [`Self::words`], naming the conversation by `title` when the page gave one: the
    /// title of the conversation it names, or of the chat a new chat became
    /// ("conversation “Bakery ledger”", "a new chat, now “Bakery ledger”").
    pub fn words_titled(&self, title: Option<&str>) -> String {
        let place = match (self.kind, title) {
            (Kind::Conversation, Some(t)) => format!("conversation “{t}”"),
            (Kind::Conversation, None) => format!(
                "conversation {}",
                self.conversation_id.as_deref().unwrap_or("?")
            ),
            (Kind::Project, Some(t)) => format!(
                "a new chat in Project {}, now “{t}”",
                self.project_id.as_deref().unwrap_or("?")
            ),
            (Kind::NewChat, Some(t)) => format!("a new chat, now “{t}”"),
            (Kind::Project, None) => format!(
                "a new chat in Project {}",
                self.project_id.as_deref().unwrap_or("?")
            ),
            (Kind::NewChat, None) => "a new chat".to_string(),
        };
        let mut out = place;
        if self.site != Site::default() {
            out.push_str(&format!(" on {}", self.site.host()));
        }
        if let Some(m) = &self.model {
            out.push_str(&format!(", model {m}"));
        }
        if let Some(e) = &self.effort {
            out.push_str(&format!(", effort {e}"));
        }
        out
    }

    /// Why the tab's confirmation is not this destination, as a sentence; `None` when it
    /// is. A conversation id from the transient `WEB:` route never confirms anything.
    pub fn refusal(&self, c: &Confirmation) -> Option<String> {
        let shown = c
            .conversation_id
            .as_deref()
            .map(|id| format!("conversation {id}"))
            .unwrap_or_else(|| match &c.project_id {
                Some(p) => format!("a new chat in Project {p}"),
                None => "a new chat".into(),
            });
        if c.conversation_id
            .as_deref()
            .is_some_and(|id| id.starts_with("WEB:"))
        {
            return Some(format!("the tab shows the page's transient /c/WEB:… route, which names no conversation; the send is for {}: nothing was clicked", self.words()));
        }
        let place_ok = match self.kind {
            Kind::Conversation => c.conversation_id == self.conversation_id,
            Kind::Project => c.conversation_id.is_none() && c.project_id == self.project_id,
            Kind::NewChat => c.conversation_id.is_none() && c.project_id.is_none(),
        };
        if !place_ok {
            return Some(format!(
                "the tab shows {shown}; the send is for {}: nothing was clicked — open that place in the leased tab, or queue the send again",
                self.words()
            ));
        }
        for (what, asked, seen) in [
            ("model", &self.model, &c.model),
            ("effort", &self.effort, &c.effort),
        ] {
            if asked.is_some() && asked != seen {
                return Some(format!(
                    "the picker shows {} {}; the send asks for {}: nothing was clicked",
                    what,
                    seen.as_deref().unwrap_or("nothing readable"),
                    asked.as_deref().unwrap_or_default()
                ));
            }
        }
        None
    }
}
