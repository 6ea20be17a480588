//! Delta encoding v1: JSON Pointer operations on one root object per `c`
//! (fixtures: `tests/fixtures/chatgpt/stream_delta_new_chat.sse` for `add`, `append`,
//! carried `p`/`o`/`c` and `patch`; `stream_delta_batches.sse` for the carried
//! `o: "patch"` batches; `stream_delta_ops.sse` for `replace`, `remove`, `truncate`
//! and `~0`/`~1` escapes).
//!
//! An event is `{p?, o?, v, c?}`. A missing `p`, `o` or `c` is the previous event's
//! (initially `""`, `add`, `0`); `v` is never carried. Ops: `add` (JSON Patch add;
//! at `""` it installs a new root), `replace`, `append` (string concatenation, array
//! extension, object merge), `patch` (`v` is a list of `{p, o, v}` applied in order,
//! their paths under the event's `p`), `remove`, `truncate` (to `v` UTF-16 units or
//! array items, as the page's JavaScript counts).
//!
//! No op may make the state nest deeper than [`json_depth::MAX_DEPTH`]: a value added
//! at a path of `k` tokens counts `k` levels above it ([`OpError::StateTooDeep`]).

use crate::json_depth;
use serde_json::{Map, Value};

/// Deepest `patch` nesting applied.
const MAX_PATCH_DEPTH: usize = 8;

/// Why one op was skipped (the stream goes on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpError {
    /// The path is not a JSON Pointer (`""` or `/…`).
    BadPointer,
    /// The path leads nowhere in the current object.
    NoTarget,
    /// The op does not fit the value found (`append` of a number to a string, …).
    Mismatch,
    /// An op name the decoder does not know.
    UnknownOp,
    /// `patch` nested deeper than the decoder follows.
    TooDeep,
    /// The op would make the stream's state nest deeper than
    /// [`crate::json_depth::MAX_DEPTH`] (the stream is then no longer followed).
    StateTooDeep,
}

/// The carried `p`, `o`, `c` between events of one stream.
#[derive(Debug, Clone)]
pub struct Carry {
    /// Last path.
    pub p: String,
    /// Last op.
    pub o: String,
    /// Last root index.
    pub c: i64,
}

impl Default for Carry {
    fn default() -> Self {
        Carry {
            p: String::new(),
            o: "add".into(),
            c: 0,
        }
    }
}

/// One delta event with its carried fields filled in.
#[derive(Debug, Clone)]
pub struct Op {
    /// The root it applies to.
    pub c: i64,
    /// The JSON Pointer.
    pub p: String,
    /// The op name.
    pub o: String,
    /// The value.
    pub v: Value,
}

impl Carry {
    /// Fills `event`'s missing `p`, `o`, `c` and remembers them; `None` when the event
    /// is not an object with a `v` or has a field of the wrong type.
    pub fn resolve(&mut self, event: Value) -> Option<Op> {
        let Value::Object(mut m) = event else {
            return None;
        };
        let v = m.remove("v")?;
        let p = match m.get("p") {
            None => self.p.clone(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return None,
        };
        let o = match m.get("o") {
            None => self.o.clone(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return None,
        };
        let c = match m.get("c") {
            None => self.c,
            Some(x) => x.as_i64()?,
        };
        self.p.clone_from(&p);
        self.o.clone_from(&o);
        self.c = c;
        Some(Op { c, p, o, v })
    }
}

/// Applies one op to `root`.
pub fn apply(root: &mut Value, path: &str, op: &str, v: Value) -> Result<(), OpError> {
    apply_at(root, path, op, v, 0)
}

fn apply_at(root: &mut Value, path: &str, op: &str, v: Value, depth: usize) -> Result<(), OpError> {
    let tokens = parse_pointer(path)?;
    let fits =
        |above: usize, v: &Value| json_depth::fits_at(above, v).map_err(|_| OpError::StateTooDeep);
    match op {
        "add" => fits(tokens.len(), &v).and_then(|()| add(root, &tokens, v)),
        "replace" => fits(tokens.len(), &v).and_then(|()| replace(root, &tokens, v)),
        // An append may push `v` into an array at the path: one level more.
        "append" => fits(tokens.len() + 1, &v).and_then(|()| append(root, &tokens, v)),
        "remove" => remove(root, &tokens),
        "truncate" => truncate(root, &tokens, &v),
        "patch" => {
            if depth >= MAX_PATCH_DEPTH {
                return Err(OpError::TooDeep);
            }
            let Value::Array(subs) = v else {
                return Err(OpError::Mismatch);
            };
            let mut first_err = Ok(());
            for sub in subs {
                let r = match (
                    sub.get("p").and_then(Value::as_str),
                    sub.get("o").and_then(Value::as_str),
                ) {
                    (Some(p), Some(o)) => {
                        let full = format!("{path}{p}");
                        let o = o.to_string();
                        match sub {
                            Value::Object(mut m) => match m.remove("v") {
                                Some(sv) => apply_at(root, &full, &o, sv, depth + 1),
                                None if o == "remove" => {
                                    apply_at(root, &full, &o, Value::Null, depth + 1)
                                }
                                None => Err(OpError::Mismatch),
                            },
                            _ => Err(OpError::Mismatch),
                        }
                    }
                    _ => Err(OpError::Mismatch),
                };
                if first_err.is_ok() {
                    first_err = r;
                }
            }
            first_err
        }
        _ => Err(OpError::UnknownOp),
    }
}

/// `""` → no tokens; `/a/b~1c` → `["a", "b/c"]`.
pub fn parse_pointer(path: &str) -> Result<Vec<String>, OpError> {
    if path.is_empty() {
        return Ok(Vec::new());
    }
    let rest = path.strip_prefix('/').ok_or(OpError::BadPointer)?;
    Ok(rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn navigate<'a>(mut at: &'a mut Value, tokens: &[String]) -> Result<&'a mut Value, OpError> {
    for t in tokens {
        at = match at {
            Value::Object(m) => m.get_mut(t.as_str()).ok_or(OpError::NoTarget)?,
            Value::Array(a) => {
                let i = index(t)?;
                a.get_mut(i).ok_or(OpError::NoTarget)?
            }
            _ => return Err(OpError::NoTarget),
        };
    }
    Ok(at)
}

fn index(t: &str) -> Result<usize, OpError> {
    if t.is_empty() || (t.len() > 1 && t.starts_with('0')) || !t.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(OpError::NoTarget);
    }
    t.parse().map_err(|_| OpError::NoTarget)
}

fn split_last(tokens: &[String]) -> Option<(&[String], &str)> {
    tokens
        .split_last()
        .map(|(last, parent)| (parent, last.as_str()))
}

fn add(root: &mut Value, tokens: &[String], v: Value) -> Result<(), OpError> {
    let Some((parent, last)) = split_last(tokens) else {
        *root = v;
        return Ok(());
    };
    match navigate(root, parent)? {
        Value::Object(m) => {
            m.insert(last.to_string(), v);
            Ok(())
        }
        Value::Array(a) if last == "-" => {
            a.push(v);
            Ok(())
        }
        Value::Array(a) => {
            let i = index(last)?;
            if i > a.len() {
                return Err(OpError::NoTarget);
            }
            a.insert(i, v);
            Ok(())
        }
        _ => Err(OpError::NoTarget),
    }
}

fn replace(root: &mut Value, tokens: &[String], v: Value) -> Result<(), OpError> {
    let Some((parent, last)) = split_last(tokens) else {
        *root = v;
        return Ok(());
    };
    match navigate(root, parent)? {
        Value::Object(m) => {
            m.insert(last.to_string(), v);
            Ok(())
        }
        Value::Array(a) => {
            let i = index(last)?;
            *a.get_mut(i).ok_or(OpError::NoTarget)? = v;
            Ok(())
        }
        _ => Err(OpError::NoTarget),
    }
}

fn append(root: &mut Value, tokens: &[String], v: Value) -> Result<(), OpError> {
    if let Some((parent, last)) = split_last(tokens) {
        if let Value::Object(m) = navigate(root, parent)? {
            if !m.contains_key(last) {
                m.insert(last.to_string(), v);
                return Ok(());
            }
        }
    }
    let target = navigate(root, tokens)?;
    match (target, v) {
        (Value::String(s), Value::String(t)) => s.push_str(&t),
        (Value::Array(a), Value::Array(b)) => a.extend(b),
        (Value::Array(a), x) => a.push(x),
        (Value::Object(a), Value::Object(b)) => merge(a, b),
        (t @ Value::Null, x) => *t = x,
        _ => return Err(OpError::Mismatch),
    }
    Ok(())
}

fn merge(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (k, v) in from {
        into.insert(k, v);
    }
}

fn remove(root: &mut Value, tokens: &[String]) -> Result<(), OpError> {
    let Some((parent, last)) = split_last(tokens) else {
        *root = Value::Null;
        return Ok(());
    };
    match navigate(root, parent)? {
        Value::Object(m) => m.remove(last).map(|_| ()).ok_or(OpError::NoTarget),
        Value::Array(a) => {
            let i = index(last)?;
            if i >= a.len() {
                return Err(OpError::NoTarget);
            }
            a.remove(i);
            Ok(())
        }
        _ => Err(OpError::NoTarget),
    }
}

fn truncate(root: &mut Value, tokens: &[String], v: &Value) -> Result<(), OpError> {
    let n = v.as_u64().ok_or(OpError::Mismatch)?;
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    match navigate(root, tokens)? {
        Value::String(s) => {
            let mut units = 0usize;
            let cut = s
                .char_indices()
                .find(|(_, ch)| {
                    units += ch.len_utf16();
                    units > n
                })
                .map(|(i, _)| i);
            if let Some(i) = cut {
                s.truncate(i);
            }
            Ok(())
        }
        Value::Array(a) => {
            a.truncate(n);
            Ok(())
        }
        _ => Err(OpError::Mismatch),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn delta_ops_follow_json_pointer_with_escapes() {
        let mut root =
            json!({"message": {"content": {"parts": ["ab"]}, "metadata": {"a/b": 1, "t~x": 2}}});
        apply(&mut root, "/message/content/parts/0", "append", json!("cd")).unwrap();
        apply(&mut root, "/message/metadata/a~1b", "replace", json!(3)).unwrap();
        apply(&mut root, "/message/metadata/t~0x", "remove", Value::Null).unwrap();
        apply(&mut root, "/message/content/parts/-", "add", json!("z")).unwrap();
        apply(&mut root, "/message/content/parts/0", "truncate", json!(3)).unwrap();
        apply(&mut root, "/message/metadata", "append", json!({"k": true})).unwrap();
        assert_eq!(
            root,
            json!({"message": {"content": {"parts": ["abc", "z"]}, "metadata": {"a/b": 3, "k": true}}})
        );
        assert_eq!(
            apply(&mut root, "message", "add", json!(1)),
            Err(OpError::BadPointer)
        );
        assert_eq!(
            apply(&mut root, "/nope/x", "replace", json!(1)),
            Err(OpError::NoTarget)
        );
        assert_eq!(
            apply(&mut root, "", "frobnicate", json!(1)),
            Err(OpError::UnknownOp)
        );
    }

    #[test]
    fn delta_truncate_counts_utf16_units_like_the_page() {
        let mut root = json!({"s": "a🙂b"});
        apply(&mut root, "/s", "truncate", json!(2)).unwrap();
        assert_eq!(root, json!({"s": "a"}), "never cut inside a surrogate pair");
        let mut root = json!({"s": "a🙂b"});
        apply(&mut root, "/s", "truncate", json!(3)).unwrap();
        assert_eq!(root, json!({"s": "a🙂"}));
    }

    #[test]
    fn delta_carry_forward_reuses_p_o_c_never_v() {
        let mut carry = Carry::default();
        let first = carry
            .resolve(json!({"p": "/a", "o": "append", "v": "x", "c": 2}))
            .unwrap();
        assert_eq!(
            (first.c, first.p.as_str(), first.o.as_str()),
            (2, "/a", "append")
        );
        let bare = carry.resolve(json!({"v": "y"})).unwrap();
        assert_eq!(
            (bare.c, bare.p.as_str(), bare.o.as_str()),
            (2, "/a", "append")
        );
        assert!(
            carry.resolve(json!({"p": "/a"})).is_none(),
            "no v: nothing to apply"
        );
    }
}
