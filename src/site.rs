//! The registry of chat sites: the one module of the custody core that names them
//! (`tests/architecture.rs`, `site_names_stay_in_the_registry`). A site is data
//! everywhere else: a send's destination carries one, a lease is taken for one, and the
//! owner picks the provider's parser by it (`crate::provider`).
//!
//! Stored and sent as its name (`"chatgpt"`, `"claude"`); absent means [`Site::Chatgpt`],
//! so clients and extensions that predate sites keep working. An unknown name is refused
//! with a sentence naming the known ones.

use serde::{Deserialize, Serialize};

/// A chat site sendledger can send into.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Site {
    /// chatgpt.com (the default).
    #[default]
    Chatgpt,
    /// claude.ai.
    Claude,
}

/// Every site, in the order they are listed to a person.
pub const ALL: [Site; 2] = [Site::Chatgpt, Site::Claude];

/// Longest site name accepted, in bytes (the stored column's bound too).
pub const MAX_NAME_BYTES: usize = 32;

impl Site {
    /// Its name, as stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            Site::Chatgpt => "chatgpt",
            Site::Claude => "claude",
        }
    }

    /// The name a person reads in a sentence (`ChatGPT`, `Claude`).
    pub fn title(self) -> &'static str {
        match self {
            Site::Chatgpt => "ChatGPT",
            Site::Claude => "Claude",
        }
    }

    /// The host of its pages (`chatgpt.com`, `claude.ai`).
    pub fn host(self) -> &'static str {
        match self {
            Site::Chatgpt => "chatgpt.com",
            Site::Claude => "claude.ai",
        }
    }

    /// The site named `name`. Errors: a sentence naming the known sites.
    pub fn parse(name: &str) -> Result<Site, String> {
        ALL.into_iter().find(|s| s.as_str() == name).ok_or_else(|| {
            let head: String = name.chars().take(MAX_NAME_BYTES).collect();
            format!("unknown site {head:?}: the known sites are {}", names())
        })
    }

    /// The site whose page `url` is (`https://<host>/…`, `www.` too), or `None`.
    pub fn of_url(url: &str) -> Option<Site> {
        let rest = url.trim().strip_prefix("https://")?;
        let rest = rest.strip_prefix("www.").unwrap_or(rest);
        ALL.into_iter().find(|s| {
            rest.strip_prefix(s.host())
                .is_some_and(|after| after.is_empty() || after.starts_with(['/', '?', '#']))
        })
    }

    /// The path of `url` when it is one of this site's pages (query and fragment
    /// dropped), or `None`.
    pub fn path_of(self, url: &str) -> Option<&str> {
        if Site::of_url(url) != Some(self) {
            return None;
        }
        let rest = url.trim().strip_prefix("https://")?;
        let rest = rest.strip_prefix("www.").unwrap_or(rest);
        let rest = rest.strip_prefix(self.host())?;
        Some(rest.split(['?', '#']).next().unwrap_or(""))
    }

    /// Where a conversation's id sits in this site's page address (`/c/<id>` on
    /// chatgpt.com, `/chat/<uuid>` on claude.ai).
    pub fn conversation_segment(self) -> &'static str {
        match self {
            Site::Chatgpt => "c",
            Site::Claude => "chat",
        }
    }
}

/// The known site names, comma-separated.
pub fn names() -> String {
    ALL.map(Site::as_str).join(", ")
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl rusqlite::ToSql for Site {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(self.as_str().into())
    }
}

impl rusqlite::types::FromSql for Site {
    fn column_result(v: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        let s = v.as_str()?;
        Site::parse(s).map_err(|e| rusqlite::types::FromSqlError::Other(e.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_site_is_refused_naming_the_known_ones() {
        let e = Site::parse("gemini").unwrap_err();
        assert!(e.contains("chatgpt, claude"), "{e}");
        let e = serde_json::from_str::<Site>("\"gemini\"").unwrap_err();
        assert!(e.to_string().contains("`chatgpt` or `claude`"), "{e}");
    }

    #[test]
    fn a_page_address_names_its_site() {
        assert_eq!(Site::of_url("https://claude.ai/chat/x"), Some(Site::Claude));
        assert_eq!(Site::of_url("https://chatgpt.com/c/x"), Some(Site::Chatgpt));
        assert_eq!(Site::of_url("https://claude.ai.evil/chat/x"), None);
        assert_eq!(
            Site::Claude.path_of("https://claude.ai/chat/x?y"),
            Some("/chat/x")
        );
    }
}
