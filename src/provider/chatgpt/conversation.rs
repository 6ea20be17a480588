//! A conversation as chatgpt.com lists it, for a person deciding an uncertain send:
//! `GET /backend-api/conversation/{id}` (`mapping` tree + `current_node`, fixture
//! `tests/fixtures/chatgpt/listing_mapping.json`, 2023-style UUID root in
//! `listing_mapping_uuid_root.json`) and the paginated
//! `GET /backend-api/conversations/{id}?num_turns=N` (`messages[]` + `page_info` +
//! `current_node`, fixture `listing_paginated.json`; single source, so its items are
//! read either as message objects or as `{id, parent, message}` nodes).

use super::error::ParseError;
use super::message::ObservedMessage;
use super::stream::{Encoding, StreamEnd, TurnObservation};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// A user message as the listing shows it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedUserMessage {
    /// The message id (the client's id from the request).
    pub id: String,
    /// `create_time` in ms since the Unix epoch; for a user message this is the
    /// browser's clock at the click, echoed by the server.
    pub create_time_ms: Option<i64>,
    /// String parts joined with `"\n"`.
    pub text: String,
    /// On the branch shown (`current_node` and its ancestors); `false` for abandoned
    /// branches (edits, regenerations), which were sent all the same.
    pub on_current_branch: bool,
}

impl std::fmt::Debug for ListedUserMessage {
    /// Everything but the text, shown as its length.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListedUserMessage")
            .field("id", &self.id)
            .field("create_time_ms", &self.create_time_ms)
            .field("text_bytes", &self.text.len())
            .field("on_current_branch", &self.on_current_branch)
            .finish()
    }
}

/// What a listing shows.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationListing {
    /// `conversation_id` or `id`.
    pub conversation_id: Option<String>,
    /// `title`: the page's name for the conversation (generated from its first turn, or
    /// the person's rename), as given; `None` when absent or not a string.
    #[serde(default)]
    pub title: Option<String>,
    /// `current_node`: the leaf of the branch shown.
    pub current_node: Option<String>,
    /// Visible user messages of every branch, in tree order (depth first from the
    /// root, children as listed) — never sorted by time.
    pub user_messages: Vec<ListedUserMessage>,
    /// Every message, in the same order; `parent_id` is the tree link.
    pub messages: Vec<ObservedMessage>,
}

impl std::fmt::Debug for ConversationListing {
    /// Everything but the title, shown as its length (the page's words about the person's
    /// conversation never reach a log); the messages hide their text themselves.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConversationListing")
            .field("conversation_id", &self.conversation_id)
            .field(
                "title_chars",
                &self.title.as_ref().map(|t| t.chars().count()),
            )
            .field("current_node", &self.current_node)
            .field("user_messages", &self.user_messages)
            .field("messages", &self.messages)
            .finish()
    }
}

impl ConversationListing {
    /// The listing as an observation, so [`super::answer_outcome`] can read a turn
    /// from it (its `end` is `Open`: a listing is a moment, not an end).
    pub fn observation(&self) -> TurnObservation {
        TurnObservation {
            encoding: Encoding::Listing,
            conversation_id: self.conversation_id.clone(),
            turn_exchange_id: None,
            messages: self.messages.clone(),
            end: StreamEnd::Open,
            handoff: None,
            blocked: None,
            error: None,
            error_code: None,
            warnings: Vec::new(),
        }
    }
}

const EXPECTED: &str = "conversation listing";

/// Parses either listing form. An error answer (`{"detail": …}`) is
/// [`ParseError::ErrorBody`].
pub fn parse_listing(body: &[u8]) -> Result<ConversationListing, ParseError> {
    let v: Value = ParseError::parse(body)?;
    let shape = |missing| ParseError::Shape {
        expected: EXPECTED,
        missing,
    };
    let obj = v.as_object().ok_or(shape("not an object"))?;
    if let Some(detail) = obj.get("detail") {
        return Err(ParseError::ErrorBody {
            summary: detail_summary(detail),
        });
    }
    let conversation_id = ["conversation_id", "id"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))
        .map(str::to_string);
    let title = obj.get("title").and_then(Value::as_str).map(str::to_string);
    let current_node = obj
        .get("current_node")
        .and_then(Value::as_str)
        .map(str::to_string);
    let nodes = if let Some(mapping) = obj.get("mapping") {
        mapping_nodes(
            mapping
                .as_object()
                .ok_or(shape("`mapping` is not an object"))?,
        )
    } else if let Some(items) = obj.get("messages") {
        list_nodes(
            items
                .as_array()
                .ok_or(shape("`messages` is not an array"))?,
        )
    } else {
        return Err(shape("neither `mapping` nor `messages`"));
    };
    let branch = current_branch(&nodes, current_node.as_deref());
    let mut messages = Vec::new();
    let mut user_messages = Vec::new();
    for n in nodes {
        let Some(mut m) = n.message else { continue };
        if n.parent.is_some() {
            m.parent_id = n.parent;
        }
        if m.is_visible_user_message() {
            user_messages.push(ListedUserMessage {
                id: m.id.clone(),
                create_time_ms: m.create_time_ms,
                text: m.text.clone(),
                on_current_branch: branch.contains(&n.id),
            });
        }
        messages.push(m);
    }
    Ok(ConversationListing {
        conversation_id,
        title,
        current_node,
        user_messages,
        messages,
    })
}

struct Node {
    id: String,
    parent: Option<String>,
    message: Option<ObservedMessage>,
}

fn node_of(key: Option<&str>, n: &Value) -> Option<Node> {
    let message = n.get("message").filter(|m| m.is_object()).map_or_else(
        || ObservedMessage::from_value(n).filter(|_| n.get("author").is_some()),
        ObservedMessage::from_value,
    );
    let id = key
        .map(str::to_string)
        .or_else(|| n.get("id").and_then(Value::as_str).map(str::to_string))
        .or_else(|| message.as_ref().map(|m| m.id.clone()))?;
    let parent = n.get("parent").and_then(Value::as_str).map(str::to_string);
    Some(Node {
        id,
        parent,
        message,
    })
}

/// Nodes of a `mapping`, depth first from the roots (nodes whose parent is absent),
/// children in their `children` order; nodes unreachable that way follow.
fn mapping_nodes(mapping: &Map<String, Value>) -> Vec<Node> {
    let mut order: Vec<&str> = Vec::new();
    let mut visited: HashSet<&str> = HashSet::new();
    let is_root = |n: &Value| {
        n.get("parent")
            .and_then(Value::as_str)
            .is_none_or(|p| !mapping.contains_key(p))
    };
    let mut stack: Vec<&str> = mapping
        .iter()
        .filter(|(_, n)| is_root(n))
        .map(|(k, _)| k.as_str())
        .rev()
        .collect();
    let mut rest = mapping.keys().map(String::as_str);
    loop {
        while let Some(id) = stack.pop() {
            if !visited.insert(id) {
                continue;
            }
            order.push(id);
            if let Some(kids) = mapping
                .get(id)
                .and_then(|n| n.get("children"))
                .and_then(Value::as_array)
            {
                stack.extend(
                    kids.iter()
                        .filter_map(Value::as_str)
                        .filter(|k| mapping.contains_key(*k))
                        .rev(),
                );
            }
        }
        match rest.find(|k| !visited.contains(k)) {
            Some(k) => stack.push(k),
            None => break,
        }
    }
    order
        .into_iter()
        .filter_map(|k| node_of(Some(k), &mapping[k]))
        .collect()
}

fn list_nodes(items: &[Value]) -> Vec<Node> {
    items.iter().filter_map(|n| node_of(None, n)).collect()
}

/// Ids on the `current_node` → `parent` chain.
fn current_branch(nodes: &[Node], current: Option<&str>) -> HashSet<String> {
    let mut branch = HashSet::new();
    let mut at = current.map(str::to_string);
    while let Some(id) = at {
        if !branch.insert(id.clone()) {
            break;
        }
        let node = nodes.iter().find(|n| n.id == id);
        at = node.and_then(|n| {
            n.parent
                .clone()
                .or_else(|| n.message.as_ref()?.parent_id.clone())
        });
    }
    branch
}

fn detail_summary(detail: &Value) -> String {
    let s = match detail {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .filter_map(|d| {
                let msg = d.get("msg").and_then(Value::as_str)?;
                let loc: Vec<String> = d
                    .get("loc")
                    .and_then(Value::as_array)
                    .map(|l| {
                        l.iter()
                            .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                Some(format!("{}: {msg}", loc.join(".")))
            })
            .collect::<Vec<_>>()
            .join("; "),
        Value::Object(o) => o
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("an error")
            .to_string(),
        _ => "an error".to_string(),
    };
    s.chars().take(200).collect()
}
