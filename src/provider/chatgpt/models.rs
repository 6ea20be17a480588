//! Which answering model is the one a send asked for (issue 35: a model mismatch only when
//! the answer's model is neither the one asked nor a resolution of it). The page resolves
//! some slugs to others on its own; each resolution this provider accepts is listed here,
//! as data, with where it was seen. Anything else that answers is a mismatch.

/// What an asked slug may be answered by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answers {
    /// Any model: the page chooses (`auto`).
    AnyModel,
    /// The same slug with a dated snapshot suffix: `<asked>-YYYY-MM-DD` or
    /// `<asked>-YYYYMMDD`, optionally followed by more `-`-separated parts.
    DatedSnapshot,
}

/// One resolution the page makes of an asked slug.
#[derive(Debug, Clone, Copy)]
pub struct Resolution {
    /// The slug asked; `*` for every slug.
    pub asked: &'static str,
    /// What may answer it.
    pub answers: Answers,
    /// Where it was seen (source, date).
    pub seen: &'static str,
}

/// The resolutions accepted, as data.
pub const RESOLUTIONS: &[Resolution] = &[
    Resolution {
        asked: "auto",
        answers: Answers::AnyModel,
        seen: "captured streams and listings with default_model_slug `auto` answered by gpt-4o-mini (2024-10), gpt-5-2 (2026-01) and gpt-5-3 with resolved_model_slug gpt-5-3 (2026-03): ../shared/fixtures/chatgpt/01, 03, 10",
    },
    Resolution {
        asked: "*",
        answers: Answers::DatedSnapshot,
        seen: "issue 35 (2026): an independent picture of the page answered a send asking gpt-5-thinking with gpt-5-thinking-2026-…, the dated variant of the same model",
    },
];

/// Whether `answered` is `asked` or a resolution of it listed in [`RESOLUTIONS`].
pub fn answers_as_asked(asked: &str, answered: &str) -> bool {
    asked == answered
        || RESOLUTIONS.iter().any(|r| {
            (r.asked == "*" || r.asked == asked)
                && match r.answers {
                    Answers::AnyModel => true,
                    Answers::DatedSnapshot => dated_snapshot_of(asked, answered),
                }
        })
}

/// `answered` is `asked` + `-` + a date (`YYYY-MM-DD` or `YYYYMMDD`, the year 20xx),
/// then nothing or `-` and more.
fn dated_snapshot_of(asked: &str, answered: &str) -> bool {
    let Some(rest) = answered
        .strip_prefix(asked)
        .and_then(|r| r.strip_prefix('-'))
    else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let parts: Vec<&str> = rest.split('-').collect();
    let long = parts[0].len() == 8 && digits(parts[0]) && parts[0].starts_with("20");
    let ymd = parts.len() >= 3
        && parts[0].len() == 4
        && parts[0].starts_with("20")
        && [parts[0], parts[1], parts[2]].iter().all(|p| digits(p))
        && parts[1].len() == 2
        && parts[2].len() == 2;
    long || ymd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_answers_as_asked_only_as_itself_or_a_listed_resolution() {
        assert!(answers_as_asked("gpt-5-thinking", "gpt-5-thinking"));
        assert!(answers_as_asked(
            "gpt-5-thinking",
            "gpt-5-thinking-2026-01-15"
        ));
        assert!(answers_as_asked(
            "gpt-5-thinking",
            "gpt-5-thinking-20260115"
        ));
        assert!(answers_as_asked("auto", "gpt-5-3"));
        assert!(!answers_as_asked("gpt-5-thinking", "gpt-5-thinking-mini"));
        assert!(!answers_as_asked("gpt-5-thinking", "gpt-5-2-thinking"));
        assert!(!answers_as_asked(
            "gpt-5-thinking",
            "gpt-5-thinking-1999-01-01x"
        ));
        assert!(!answers_as_asked("gpt-5-2-thinking", "gpt-5-mini"));
    }
}
