//! Reading a JSON object into a typed body, and the sentence that refuses one that does not
//! fit: the field's path (serde_path_to_error), what was expected there (serde's own error),
//! and for a field no one reads, the nearest known field (strsim's Damerau–Levenshtein
//! distance) — never a value the client sent, which may be a message's text.
//!
//! The sentence is read from serde's error messages (serde `de::Error`'s default
//! `invalid_type`, `unknown_field`, `missing_field`, … texts, serde 1.x); a message of any
//! other shape is not repeated, only the field is named.

use serde::de::DeserializeOwned;
use serde_path_to_error::Segment;
use std::fmt;

/// Longest field name a refusal repeats, in bytes; a longer or odd one is "a field".
pub const MAX_ECHOED_NAME: usize = 64;

/// Why a body was not read: the field's path (`.` for the object itself) and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaRefusal {
    /// The field's path as the body spells it (`metadata.effort`, `messages[0].role`), or
    /// `.` for the whole object; names that are not shown are `…`.
    pub path: String,
    /// What is wrong, naming the field (`field \`model\`: expected a string, got a number`).
    pub sentence: String,
    /// For an unknown field: the nearest known one, when close.
    pub nearest: Option<String>,
}

impl fmt::Display for SchemaRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.sentence)
    }
}

/// Reads `bytes` (JSON) as `T`. Errors: the field and what it must be; the JSON's own
/// syntax errors as [`SchemaRefusal::path`] `.` with the line and column.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, SchemaRefusal> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        // serde_json files some mismatches (`null` for an enum) as syntax: the JSON is
        // valid when it reads as any value.
        let valid = serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok();
        refusal(e.path(), e.inner(), valid)
    })?;
    de.end().map_err(|e| SchemaRefusal {
        path: ".".into(),
        sentence: format!(
            "the body is not valid JSON (line {}, column {}): something follows the object",
            e.line(),
            e.column()
        ),
        nearest: None,
    })?;
    Ok(value)
}

/// Reads a JSON value as `T`, as [`from_slice`] does.
pub fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, SchemaRefusal> {
    serde_path_to_error::deserialize(value).map_err(|e| refusal(e.path(), e.inner(), true))
}

/// A field name as a refusal may repeat it: letters, digits, `_ - .`, at most
/// [`MAX_ECHOED_NAME`] bytes; anything else is not shown.
pub fn shown(name: &str) -> Option<&str> {
    let plain = !name.is_empty()
        && name.len() <= MAX_ECHOED_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    plain.then_some(name)
}

fn path_text(path: &serde_path_to_error::Path) -> String {
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(shown(key).unwrap_or("…"));
            }
            Segment::Unknown => out.push_str(if out.is_empty() { "?" } else { ".?" }),
        }
    }
    if out.is_empty() {
        out.push('.');
    }
    out
}

/// serde_json's message without its " at line L column C".
fn bare(e: &serde_json::Error) -> (String, usize, usize) {
    let text = e.to_string();
    let cut = text.rfind(" at line ").unwrap_or(text.len());
    (text[..cut].to_string(), e.line(), e.column())
}

/// The names between backticks in `list` (serde's "one of `a`, `b`").
fn names(list: &str) -> Vec<&str> {
    list.split('`').skip(1).step_by(2).collect()
}

/// A field name folded for comparison: lower case, no `_` or `-` (camelCase and
/// snake_case of one name fold to the same).
fn folded(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The known field nearest to `name`, if it is near: the same name in another case or
/// separator, or at most max(2, len/3) edits away.
pub fn nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    let name = folded(name);
    let bound = (name.chars().count() / 3).max(2);
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&name, &folded(k)), *k))
        .filter(|(d, _)| *d <= bound)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The sentence for serde's error `e` at `path`; `valid`: the body is valid JSON.
fn refusal(path: &serde_path_to_error::Path, e: &serde_json::Error, valid: bool) -> SchemaRefusal {
    let at = path_text(path);
    let (message, line, column) = bare(e);
    let mut nearest_known = None;
    let sentence = if (e.is_syntax() || e.is_eof()) && !valid {
        format!("the body is not valid JSON (line {line}, column {column})")
    } else if e.is_syntax() || e.is_eof() {
        format!("field `{at}`: not a value it takes (docs/bridge-api.md lists them)")
    } else if let Some(rest) = message.strip_prefix("unknown field `") {
        let known = rest
            .split_once('`')
            .map(|(_, r)| names(r))
            .unwrap_or_default();
        let name = if at.ends_with('…') {
            "(not shown)"
        } else {
            &at
        };
        match nearest(path.iter().next_back().map_or("", key_of), &known) {
            Some(k) => {
                nearest_known = Some(k.to_string());
                format!("unknown field `{name}`; did you mean `{}`?", k)
            }
            None if known.is_empty() => {
                format!("unknown field `{name}`: this object takes no fields")
            }
            None => format!(
                "unknown field `{name}`; the fields known here are `{}`",
                known.join("`, `")
            ),
        }
    } else if let Some(rest) = message.strip_prefix("missing field `") {
        let field = rest.trim_end_matches('`');
        let field = if at == "." {
            field.to_string()
        } else {
            format!("{at}.{field}")
        };
        format!("field `{field}` is missing: it is required")
    } else if let Some(rest) = message.strip_prefix("duplicate field `") {
        format!(
            "field `{}` is given twice: give it once",
            rest.trim_end_matches('`')
        )
    } else if let Some(expected) = shape(&message) {
        format!("field `{at}`: {expected}")
    } else {
        format!("field `{at}` does not match this route's schema")
    };
    SchemaRefusal {
        path: at,
        sentence,
        nearest: nearest_known,
    }
}

fn key_of(segment: &Segment) -> &str {
    match segment {
        Segment::Map { key } | Segment::Enum { variant: key } => key,
        _ => "",
    }
}

/// "expected X, got a Y" from serde's invalid type/value/length and unknown variant
/// messages, without the value the client sent.
fn shape(message: &str) -> Option<String> {
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let known = rest
            .split_once('`')
            .map(|(_, r)| names(r))
            .unwrap_or_default();
        return Some(format!(
            "not a value it takes; expected one of `{}`",
            known.join("`, `")
        ));
    }
    if let Some(rest) = message.strip_prefix("invalid length ") {
        let (_, expected) = rest.split_once(", expected ")?;
        return Some(format!("the wrong number of items; expected {expected}"));
    }
    let rest = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))?;
    let (got, expected) = rest.rsplit_once(", expected ")?;
    let kind = match got.split([' ', '`']).next().unwrap_or("") {
        "boolean" => "a boolean",
        "integer" | "floating" => "a number",
        "string" | "character" => "a string",
        "sequence" => "an array",
        "map" => "an object",
        "unit" | "null" => "null",
        _ => "another kind of value",
    };
    Some(format!("expected {}, got {kind}", plain(expected)))
}

/// serde's "expected" in words a client's author reads: its Rust type names left out.
fn plain(expected: &str) -> &str {
    if expected.starts_with("enum ") || expected.contains("variant identifier") {
        "one of the values docs/bridge-api.md lists for it"
    } else if expected.starts_with("struct ") || expected.starts_with("a map") {
        "an object"
    } else if expected.starts_with("a sequence") {
        "an array"
    } else {
        expected
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_field_folds_case_and_separators_and_counts_edits() {
        let known = ["op_id", "text", "conversation_id", "project_id", "new_chat"];
        assert_eq!(nearest("conversationId", &known), Some("conversation_id"));
        assert_eq!(nearest("ConversationID", &known), Some("conversation_id"));
        assert_eq!(nearest("converstion_id", &known), Some("conversation_id"));
        assert_eq!(nearest("textt", &known), Some("text"));
        assert_eq!(nearest("newchat", &known), Some("new_chat"));
        assert_eq!(nearest("zzzzzzzz", &known), None);
    }
}
