//! The origin marker OpenClaw puts in front of a task it hands to Claude
//! Code, so that any scan of the transcript can tell who started a session.
//!
//! `[openclaw:agent=main]` as in the reference, or with more attribution
//! `[openclaw:agent=main,channel=telegram,user=fonz]`. Keys and values are
//! percent-escaped (`%`, `,`, `=`, `[`, `]`, control characters), so no value
//! can end the marker or split a pair.

const OPEN: &str = "[openclaw:";

/// `%XX` for every byte that would break the marker syntax.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' | ',' | '=' | '[' | ']' => out.push_str(&format!("%{:02X}", c as u32)),
            c if c.is_control() => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

fn unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The marker for `agent_id` and any further `(key, value)` pairs.
pub fn origin_marker_for(agent_id: &str, extra: &[(String, String)]) -> String {
    let mut marker = format!("{OPEN}agent={}", escape(agent_id));
    for (k, v) in extra.iter().filter(|(k, _)| k != "agent") {
        marker.push(',');
        marker.push_str(&escape(k));
        marker.push('=');
        marker.push_str(&escape(v));
    }
    marker.push(']');
    marker
}

/// The task as OpenClaw sends it: the marker, a blank line, the task.
pub fn build_task_content(task: &str, agent_id: &str, extra: &[(String, String)]) -> String {
    format!("{}\n\n{task}", origin_marker_for(agent_id, extra))
}

/// Every `(key, value)` pair of the first origin marker in `text` (the
/// agent first), or `None` when there is none.
pub fn parse_origin_marker(text: &str) -> Option<Vec<(String, String)>> {
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let body_start = at + OPEN.len();
        let end = rest[body_start..].find(']')? + body_start;
        let body = &rest[body_start..end];
        let pairs: Vec<(String, String)> = body
            .split(',')
            .filter_map(|pair| {
                pair.split_once('=')
                    .map(|(k, v)| (unescape(k), unescape(v)))
            })
            .collect();
        if pairs
            .first()
            .is_some_and(|(k, v)| k == "agent" && !v.is_empty())
        {
            return Some(pairs);
        }
        rest = &rest[end..];
    }
    None
}

/// The `(key, value)` pairs of a marker.
pub type MarkerPairs = Vec<(String, String)>;

/// Where the first origin marker of `text` is: its byte range and pairs.
fn find_marker(text: &str) -> Option<(std::ops::Range<usize>, MarkerPairs)> {
    let mut from = 0;
    while let Some(at) = text[from..].find(OPEN).map(|i| i + from) {
        let body_start = at + OPEN.len();
        let end = text[body_start..].find(']')? + body_start;
        let pairs = parse_origin_marker(&text[at..=end]);
        if let Some(pairs) = pairs.filter(|_| !text[body_start..end].contains(OPEN)) {
            return Some((at..end + 1, pairs));
        }
        from = body_start;
    }
    None
}

/// The line that separates a task from the briefing after it.
pub const BRIEFING_SEPARATOR: &str = "---";

/// A prompt split from its origin: what the person (or model) asked, and
/// the marker's pairs. Two layouts carry a marker: the reference's, marker
/// first and the task after a blank line (the task is what follows it), and
/// the spawn pre-flight's, the task first and the marker opening the
/// briefing after it (the task is what precedes it, without the
/// [`BRIEFING_SEPARATOR`] line). Text without a marker is returned as it is.
pub fn split_origin(text: &str) -> (&str, Option<MarkerPairs>) {
    let Some((range, pairs)) = find_marker(text) else {
        return (text, None);
    };
    let before = text[..range.start].trim_end();
    let before = before
        .strip_suffix(BRIEFING_SEPARATOR)
        .map_or(before, str::trim_end);
    let prompt = if before.is_empty() {
        text[range.end..].trim()
    } else {
        before
    };
    (prompt, Some(pairs))
}

/// The agent id of the first origin marker in `text`.
pub fn origin_agent(text: &str) -> Option<String> {
    parse_origin_marker(text)
        .and_then(|pairs| pairs.into_iter().next())
        .map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn plain_markers_are_the_references() {
        assert_eq!(
            build_task_content("Fix it.", "main", &[]),
            "[openclaw:agent=main]\n\nFix it."
        );
        assert_eq!(
            origin_agent("[openclaw:agent=main]\n\nFix it."),
            Some("main".into())
        );
        assert_eq!(origin_agent("no marker"), None);
        assert_eq!(
            origin_agent("[openclaw:agent=] then [openclaw:agent=ops]"),
            Some("ops".into())
        );
        assert_eq!(origin_agent("[openclaw:agent=unterminated"), None);
    }

    #[test]
    fn hostile_values_round_trip() {
        let extra = pairs(&[
            ("channel", "tele]gram"),
            ("user", "a,b=c"),
            ("task_id", "100%\n[x]"),
            ("weird=key", "ü"),
        ]);
        let text = build_task_content("Do [it], now.", "ops-1", &extra);
        assert_eq!(
            text.lines().next().unwrap().matches(']').count(),
            1,
            "one ] closes the marker: {text}"
        );
        let mut expected = pairs(&[("agent", "ops-1")]);
        expected.extend(extra);
        assert_eq!(parse_origin_marker(&text), Some(expected));
        assert_eq!(origin_agent(&text), Some("ops-1".into()));
        assert!(text.ends_with("\n\nDo [it], now."));
    }

    #[test]
    fn split_origin_gives_the_task_in_either_layout() {
        let reference = build_task_content("Refactor the cart", "main", &[]);
        let (prompt, pairs) = split_origin(&reference);
        assert_eq!(prompt, "Refactor the cart");
        assert_eq!(pairs, Some(pairs_of(&[("agent", "main")])));
        let briefed = "Refactor the cart\n\n---\n[openclaw:agent=main,spawn=n1]\nRepository: /r";
        let (prompt, pairs) = split_origin(briefed);
        assert_eq!(prompt, "Refactor the cart");
        assert_eq!(pairs.unwrap()[1], ("spawn".to_string(), "n1".to_string()));
        assert_eq!(split_origin("plain task"), ("plain task", None));
        // A bracket that is not a marker is part of the task.
        assert_eq!(
            split_origin("[openclaw:note] keep it").0,
            "[openclaw:note] keep it"
        );
    }

    fn pairs_of(list: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs(list)
    }

    #[test]
    fn an_agent_id_needing_escapes_survives_too() {
        let text = build_task_content("t", "we]ird,agent", &[]);
        assert_eq!(origin_agent(&text), Some("we]ird,agent".into()));
    }
}
