//! How relevant each candidate session is to the new task: one batched
//! model call (the host's callback, or the Anthropic API), bounded by a
//! timeout, with an offline fallback for every way that can fail.

use super::candidate::{Candidate, Relevance};
use super::config::SelectionConfig;
use serde_json::Value;
use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// What a relevance call asks the model.
#[derive(Debug, Clone, PartialEq)]
pub struct RelevanceRequest {
    /// The whole prompt: the task, the numbered sessions and the JSON answer expected.
    pub prompt: String,
    /// The resolved model id.
    pub model: String,
    /// The caller's `relevanceMaxTokens`, as given.
    pub max_tokens: f64,
    /// How long the answer may take, in milliseconds.
    pub timeout_ms: u64,
}

/// Something that answers a relevance prompt with the model's text.
pub trait RelevanceSource: Send + Sync {
    /// The model's reply, or why there is none.
    fn complete(
        &self,
        request: RelevanceRequest,
    ) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send + '_>>;
}

/// The reference's model aliases.
pub fn resolve_model_id(model: &str) -> String {
    match model {
        "claude-haiku" => "claude-haiku-4-5-20251001",
        "claude-sonnet" => "claude-sonnet-4-6-20250514",
        "claude-opus" => "claude-opus-4-6-20250514",
        other => other,
    }
    .to_owned()
}

/// The original design's relevance prompt for `task` and the candidates.
pub fn relevance_prompt(task: &str, candidates: &[Candidate]) -> String {
    let list: Vec<String> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let desc = c.last_task.as_deref().unwrap_or(&c.first_message);
            format!("{}. [branch: {}] {desc}", i + 1, c.branch)
        })
        .collect();
    format!(
        "You are scoring task relevance for session selection.\n\nNEW TASK: {task}\n\nEXISTING SESSIONS:\n{}\n\n\
For each session, rate how relevant its previous work is to the new task.\n\
Consider: same feature area? same files likely touched? shared context valuable?\n\
A session about \"refactor webhook handler\" IS relevant to \"fix webhook error handling\".\n\
A session about \"add OAuth\" is NOT relevant to \"update README formatting\".\n\n\
Return JSON array: [{{\"index\": 1, \"relevance\": 0.0-1.0, \"reasoning\": \"one line\"}}]\n\
Relevance scale: 0.0 = unrelated, 0.3 = tangentially related, 0.6 = related work, 0.9 = same feature/task, 1.0 = exact continuation.",
        list.join("\n")
    )
}

/// The JSON of a reply: a fenced block, else the first `[` to the last `]`.
fn extract_json(text: &str) -> &str {
    if let Some(start) = text.find("```") {
        let after = &text[start + 3..];
        let after = after.strip_prefix("json").unwrap_or(after);
        if let Some(end) = after.find("```") {
            return after[..end].trim();
        }
    }
    match (text.find('['), text.rfind(']')) {
        (Some(a), Some(b)) if a < b => &text[a..=b],
        _ => text,
    }
}

/// Reads a reply into relevances by candidate. Entries with an index out of
/// range or a relevance that is not a number are dropped; `None` when the
/// reply holds no usable array at all.
pub fn parse_relevance_reply(
    text: &str,
    candidates: &[Candidate],
) -> Option<Vec<Option<Relevance>>> {
    let Value::Array(items) = serde_json::from_str(extract_json(text)).ok()? else {
        return None;
    };
    let mut out: Vec<Option<Relevance>> = vec![None; candidates.len()];
    for item in items {
        let index = item["index"]
            .as_f64()
            .filter(|i| i.fract() == 0.0 && *i >= 1.0);
        let Some(c) = index.and_then(|i| candidates.get(i as usize - 1)) else {
            continue;
        };
        let Some(r) = item["relevance"].as_f64().filter(|r| r.is_finite()) else {
            continue;
        };
        out[index.unwrap_or(1.0) as usize - 1] = Some(Relevance {
            session_id: c.session_id.clone(),
            relevance: r.clamp(0.0, 1.0),
            reasoning: item["reasoning"].as_str().unwrap_or("").to_owned(),
        });
    }
    Some(out)
}

/// The reference's `keywordFallback`, exactly: Jaccard of the lower-cased
/// words longer than 3 characters, doubled, at most 1.
pub fn keyword_fallback(task: &str, c: &Candidate) -> Relevance {
    let words = |s: &str| -> HashSet<String> {
        s.to_lowercase()
            .split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .filter(|w| w.encode_utf16().count() > 3)
            .map(str::to_owned)
            .collect()
    };
    let t = words(task);
    let s = words(c.last_task.as_deref().unwrap_or(&c.first_message));
    let inter = t.intersection(&s).count();
    let union = t.union(&s).count();
    let jaccard = if union > 0 {
        inter as f64 / union as f64
    } else {
        0.0
    };
    Relevance {
        session_id: c.session_id.clone(),
        relevance: (jaccard * 2.0).min(1.0),
        reasoning: format!("keyword overlap: {inter}/{union} words"),
    }
}

/// Words that say nothing about which part of a code base a task is about.
const STOPWORDS: [&str; 48] = [
    "the", "and", "for", "with", "this", "that", "from", "into", "onto", "our", "its", "are",
    "was", "were", "has", "have", "had", "not", "but", "all", "any", "can", "should", "would",
    "could", "will", "when", "then", "than", "also", "now", "please", "make", "sure", "some",
    "more", "new", "use", "using", "via", "per", "let", "get", "see", "too", "out", "just", "one",
];

/// A crude stem: enough to meet `handler`/`handlers`/`handling`/`handled`.
fn stem(word: &str) -> String {
    let w = word;
    for (suffix, keep) in [
        ("ations", 0),
        ("ation", 0),
        ("ings", 0),
        ("ing", 0),
        ("ies", 1),
        ("ers", 0),
        ("er", 0),
        ("ed", 0),
        ("es", 0),
        ("s", 0),
        ("ly", 0),
    ] {
        if let Some(base) = w.strip_suffix(suffix) {
            if base.len() >= 3 {
                return if keep == 1 {
                    format!("{base}y")
                } else {
                    base.to_owned()
                };
            }
        }
    }
    w.to_owned()
}

/// The stems of `text`: identifiers split at case changes, digits and
/// punctuation (`webhookHandler`, `webhook_handler`, `src/webhook-handler.ts`
/// all give `webhook`, `handl`), stop words dropped.
pub fn stems(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut word = String::new();
    let mut flush = |word: &mut String| {
        let lower = word.to_lowercase();
        if lower.len() >= 3
            && !STOPWORDS.contains(&lower.as_str())
            && !lower.chars().all(|c| c.is_ascii_digit())
        {
            out.insert(stem(&lower));
        }
        word.clear();
    };
    let chars: Vec<char> = text.chars().collect();
    for (i, &ch) in chars.iter().enumerate() {
        if !ch.is_alphanumeric() {
            flush(&mut word);
            continue;
        }
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        let camel = ch.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase() || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if camel {
            flush(&mut word);
        }
        word.push(ch);
    }
    flush(&mut word);
    out
}

/// The fallback `selectSession` uses: how much of the task's vocabulary the
/// session's own words (its tasks and prompts) and the files it touched
/// share, on stems and split identifiers rather than raw words.
pub fn semantic_fallback(task: &str, c: &Candidate) -> Relevance {
    let t = stems(task);
    let mut text = String::new();
    for part in [
        c.last_task.as_deref(),
        Some(c.first_message.as_str()),
        c.last_user_message.as_deref(),
        c.title.as_deref(),
    ]
    .into_iter()
    .flatten()
    {
        text.push_str(part);
        text.push('\n');
    }
    let s = stems(&text);
    let files: HashSet<String> = c.files_touched.iter().flat_map(|f| stems(f)).collect();
    let shared: Vec<&String> = t.iter().filter(|w| s.contains(*w)).collect();
    let via_files: Vec<&String> = t
        .iter()
        .filter(|w| files.contains(*w) && !s.contains(*w))
        .collect();
    let cosine = if t.is_empty() || s.is_empty() {
        0.0
    } else {
        shared.len() as f64 / ((t.len() * s.len()) as f64).sqrt()
    };
    let file_share = if t.is_empty() {
        0.0
    } else {
        via_files.len() as f64 / t.len() as f64
    };
    let relevance = (1.5 * cosine + 0.8 * file_share).min(1.0);
    let mut words: Vec<&str> = shared
        .iter()
        .chain(&via_files)
        .map(|w| w.as_str())
        .collect();
    words.sort_unstable();
    Relevance {
        session_id: c.session_id.clone(),
        relevance,
        reasoning: if words.is_empty() {
            "no shared terms".into()
        } else {
            format!("shared terms: {}", words.join(", "))
        },
    }
}

/// Relevance of every candidate: one call to `source` bounded by the
/// configured timeout; any candidate the reply leaves out, and all of them
/// when there is no source or the call fails, times out or answers garbage,
/// are scored by [`semantic_fallback`]. Never fails.
pub async fn assess_task_relevance(
    task: &str,
    candidates: &[Candidate],
    config: &SelectionConfig,
    source: Option<&dyn RelevanceSource>,
) -> Vec<Relevance> {
    let fallback = || {
        candidates
            .iter()
            .map(|c| semantic_fallback(task, c))
            .collect::<Vec<_>>()
    };
    if candidates.is_empty() {
        return Vec::new();
    }
    let Some(source) = source.filter(|_| config.enabled) else {
        return fallback();
    };
    let request = RelevanceRequest {
        prompt: relevance_prompt(task, candidates),
        model: resolve_model_id(&config.relevance_model),
        max_tokens: config.relevance_max_tokens,
        timeout_ms: config.relevance_timeout_ms,
    };
    let timeout = Duration::from_millis(config.relevance_timeout_ms);
    let reply = match tokio::time::timeout(timeout, source.complete(request)).await {
        Ok(Ok(text)) => text,
        _ => return fallback(),
    };
    match parse_relevance_reply(&reply, candidates) {
        Some(parsed) => parsed
            .into_iter()
            .zip(candidates)
            .map(|(r, c)| r.unwrap_or_else(|| semantic_fallback(task, c)))
            .collect(),
        None => fallback(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_split_identifiers_and_meet_word_forms() {
        let s =
            stems("Fix webhookHandler errors in src/webhook_handler.ts and HTTPServer handling");
        for w in ["webhook", "handl", "error", "src", "http", "serv"] {
            assert!(s.contains(w), "{w} in {s:?}");
        }
        assert!(!s.contains("the") && !s.contains("and"));
        assert_eq!(
            stems("handlers handled handling handler"),
            HashSet::from(["handl".to_owned()])
        );
    }

    #[test]
    fn replies_in_fences_or_prose_and_bad_entries() {
        let c = |id: &str| Candidate {
            session_id: id.into(),
            ..Candidate::default()
        };
        let cands = [c("a"), c("b"), c("c")];
        let fenced = "Here you go:\n```json\n[{\"index\": 2, \"relevance\": 1.7, \"reasoning\": \"same\"}]\n```";
        let parsed = parse_relevance_reply(fenced, &cands).unwrap();
        assert_eq!(parsed[1].as_ref().unwrap().relevance, 1.0);
        assert!(parsed[0].is_none() && parsed[2].is_none());
        let prose = "Scores: [{\"index\": 1, \"relevance\": -3, \"reasoning\": \"x\"}, {\"index\": 9, \"relevance\": 0.5}, {\"index\": 3, \"relevance\": \"high\"}] done";
        let parsed = parse_relevance_reply(prose, &cands).unwrap();
        assert_eq!(parsed[0].as_ref().unwrap().relevance, 0.0);
        assert!(parsed[2].is_none());
        assert!(parse_relevance_reply("no json here", &cands).is_none());
        assert!(parse_relevance_reply("{\"index\":1}", &cands).is_none());
    }
}
