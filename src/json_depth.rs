//! The one bound on how deeply JSON may nest anywhere the owner reads or builds it:
//! request bodies, the page's conversation requests and listings, stream events,
//! WebSocket frames, and the state a delta stream builds over many operations.
//!
//! Walking, cloning or dropping a `serde_json::Value` recurses once per level, so an
//! unbounded depth is an unbounded stack: a value 10,000 levels deep aborts the whole
//! process ("has overflowed its stack"). chatgpt.com's traffic nests at most 11 levels
//! (the deepest of the project's fixtures and captures); the bound leaves room for its
//! formats to grow and stays far below what a 2 MiB worker stack survives.

use serde_json::Value;

/// Deepest nesting accepted, in levels (`{}` and `[]` are one level, a scalar none).
pub const MAX_DEPTH: usize = 64;

/// JSON nested deeper than [`MAX_DEPTH`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("it nests deeper than {MAX_DEPTH} levels of JSON objects and arrays")]
pub struct TooDeep;

/// Checks the nesting of JSON text without parsing it (a byte scan: brackets outside
/// strings). Text that is not JSON is left to the parser; only depth is judged here.
pub fn check_text(text: &[u8]) -> Result<(), TooDeep> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in text {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(TooDeep);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// How deeply `v` nests, in levels (without recursion, so any value can be measured).
pub fn depth_of(v: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, above)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(a) => Box::new(a.iter()),
            Value::Object(m) => Box::new(m.values()),
            _ => continue,
        };
        let level = above + 1;
        deepest = deepest.max(level);
        stack.extend(children.map(|c| (c, level)));
    }
    deepest
}

/// Whether placing `v` under a container `at` levels deep keeps the whole within
/// [`MAX_DEPTH`] (`at` = 0: `v` is the root).
pub fn fits_at(at: usize, v: &Value) -> Result<(), TooDeep> {
    if at.saturating_add(depth_of(v)) > MAX_DEPTH {
        Err(TooDeep)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn nested(levels: usize) -> String {
        "[".repeat(levels) + &"]".repeat(levels)
    }

    #[test]
    fn the_depth_bound_counts_brackets_outside_strings_only() {
        assert_eq!(check_text(nested(MAX_DEPTH).as_bytes()), Ok(()));
        assert_eq!(check_text(nested(MAX_DEPTH + 1).as_bytes()), Err(TooDeep));
        let quoted = format!("{{\"s\":\"{}\\\"\"}}", "[".repeat(500));
        assert_eq!(check_text(quoted.as_bytes()), Ok(()), "brackets in strings");
        assert_eq!(
            check_text(b"]]]]{}"),
            Ok(()),
            "stray closers are the parser's"
        );
    }

    #[test]
    fn the_depth_of_a_value_is_its_deepest_nesting() {
        assert_eq!(depth_of(&json!(1)), 0);
        assert_eq!(depth_of(&json!({})), 1);
        assert_eq!(depth_of(&json!({"a": [1, {"b": []}], "c": 2})), 4);
        let v: Value = serde_json::from_str(&nested(MAX_DEPTH)).unwrap();
        assert_eq!(depth_of(&v), MAX_DEPTH);
        assert_eq!(fits_at(0, &v), Ok(()));
        assert_eq!(fits_at(1, &v), Err(TooDeep));
    }
}
