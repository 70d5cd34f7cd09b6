//! Blockers, decisions, insights and accomplishments in an agent's messages.
//!
//! The original design's first-match regexes call "Fixed the crash" a blocker and "done"
//! in any sentence an accomplishment. Here each sentence is matched against
//! phrase sets compiled once; a sentence that reports a fix is never a
//! blocker, questions count for less, and greetings and thanks are skipped.

use regex::{Regex, RegexSet};
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

/// One pattern of the captured messages (the original design's `PatternNote`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PatternNote {
    /// Stable for one message and type: capturing twice gives the same id.
    pub id: String,
    #[serde(rename = "type")]
    /// What kind of pattern the message shows: `blocker`, `decision`,
    /// `insight`, `accomplishment`, `scope_creep` or `task_created`.
    pub kind: String,
    /// The sentence that showed it, at most 200 characters.
    pub content: String,
    /// When it was captured (ISO-8601 string).
    pub timestamp: String,
    /// 0.5 (a weak phrase or a question) to 0.9 (an explicit phrase).
    pub confidence: f64,
    /// Line of the transcript the message is on.
    pub source_message_index: u32,
    /// Blockers: whether a later message of the window reports an
    /// accomplishment; absent (or null) for other types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved: Option<bool>,
}

/// The kind of a detected pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PatternType {
    /// Something stands in the way.
    Blocker,
    /// Something was decided.
    Decision,
    /// Something was learnt.
    Insight,
    /// Something was done.
    Accomplishment,
}

impl PatternType {
    /// `"blocker"`, `"decision"`, `"insight"`, `"accomplishment"`.
    pub fn as_str(self) -> &'static str {
        match self {
            PatternType::Blocker => "blocker",
            PatternType::Decision => "decision",
            PatternType::Insight => "insight",
            PatternType::Accomplishment => "accomplishment",
        }
    }
}

/// One pattern found in a message.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectedPattern {
    /// What kind of pattern it is.
    pub kind: PatternType,
    /// 0.5 (a weak phrase or a question) to 0.9 (an explicit phrase).
    pub confidence: f64,
    /// The sentence that showed it, at most 200 characters.
    pub content: String,
}

/// Phrase sets of one type: explicit phrases, then weaker ones.
struct Phrases {
    kind: PatternType,
    strong: RegexSet,
    weak: RegexSet,
}

fn set(patterns: &[&str]) -> RegexSet {
    RegexSet::new(patterns.iter().map(|p| format!(r"(?i)\b(?:{p})")))
        .expect("the pattern phrases compile")
}

static PHRASES: LazyLock<[Phrases; 4]> = LazyLock::new(|| {
    [
        Phrases {
            kind: PatternType::Blocker,
            strong: set(&[
                r"stuck (?:on|with)\b",
                r"blocked (?:by|on)\b",
                r"(?:can't|cannot|can not|unable to|couldn't) (?:get|make|find|figure|reproduce|connect|build|start|run|load|install|push|deploy)",
                r"(?:still|keeps?) (?:fail|failing|broken|crash|crashing|timing out|erroring)",
                r"(?:doesn't|does not|won't|isn't|is not|not) (?:work|working|compile|start|build|load)\b",
                r"(?:is|are|was|got) broken\b",
                r"fails? with\b",
                r"(?:panic|segfault|stack overflow|deadlock|out of memory)",
            ]),
            weak: set(&[
                r"(?:crash(?:es|ed|ing)?|fail(?:s|ed|ing)?|error(?:s)?|bug)\b",
                r"timed? ?out\b",
                r"regression\b",
            ]),
        },
        Phrases {
            kind: PatternType::Decision,
            strong: set(&[
                r"(?:let's|let us) (?:use|go with|do|switch|keep|stick|move|drop|try)\b",
                r"we(?:'ll| will| should| are going to|'re going to) (?:use|go with|switch|keep|stick|drop|move|adopt|replace)\b",
                r"(?:i|we) (?:decided|chose|picked|settled on|opted)\b",
                r"decided to\b",
                r"going (?:to|with) (?:use|implement|go with)\b",
                r"(?:decision|the plan) is\b",
                r"instead of\b",
            ]),
            weak: set(&[
                r"how about we\b",
                r"i think we should\b",
                r"(?:should|shall) we (?:use|go with|switch)\b",
            ]),
        },
        Phrases {
            kind: PatternType::Insight,
            strong: set(&[
                r"i (?:just )?(?:learned|realized|realised|discovered|figured out|found out)\b",
                r"turns out\b",
                r"the (?:root )?cause (?:is|was)\b",
                r"the (?:reason|problem|issue) (?:is|was) (?:that|because)\b",
                r"(?:that|which|this) explains\b",
                r"explains why\b",
                r"so that's why\b",
                r"now i (?:understand|see)\b",
            ]),
            weak: set(&[
                r"apparently\b",
                r"it seems (?:that )?\w+ (?:only|always|never)\b",
            ]),
        },
        Phrases {
            kind: PatternType::Accomplishment,
            strong: set(&[
                r"(?:fixed|resolved|solved|implemented|shipped|merged|deployed|completed|finished|released)\b",
                r"(?:is|are) (?:now )?working(?: now)?\b",
                r"works now\b",
                r"got (?:[\w-]+ ){1,4}(?:working|running|passing|green)\b",
                r"(?:all )?(?:\d+ )?tests? (?:now )?(?:pass|passes|passed|passing|are green)\b",
                r"successfully\b",
            ]),
            weak: set(&[
                r"(?:added|built|created|wrote|refactored|migrated|cleaned up)\b",
                r"done\b",
            ]),
        },
    ]
});

/// Sentences that report a fix: never a blocker.
static RESOLVED: LazyLock<RegexSet> = LazyLock::new(|| {
    set(&[
        r"(?:fixed|resolved|solved|no longer|works now|is now working|are now working|tests? (?:now )?pass)",
    ])
});

/// A message that is only a greeting, thanks or applause.
static CASUAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\W*(?:hey|hi|hello|yo|what's up|good (?:morning|night|evening)|nice|cool|awesome|great|thanks|thank you|thx|ok|okay|lol|haha|sounds good|perfect)\b")
        .expect("the casual phrases compile")
});

/// Sentence ends: `.`, `!`, `?` followed by a space, and line breaks.
static SENTENCE_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[.!?]+(?:\s+|$)|\n+").expect("the sentence split compiles"));

/// Messages shorter than this many words after a casual opener are chatter.
const CASUAL_MAX_WORDS: usize = 8;

/// The patterns of one message, at most one per type (the most confident,
/// earliest sentence), in type order. Greetings, thanks and short casual
/// replies give none.
pub fn detect_patterns(text: &str) -> Vec<DetectedPattern> {
    let text = text.trim();
    if is_chatter(text) {
        return Vec::new();
    }
    let mut found: Vec<DetectedPattern> = Vec::new();
    for sentence in sentences(text).into_iter().filter(|s| s.len() > 3) {
        let question = sentence.ends_with('?');
        let resolved = RESOLVED.is_match(sentence);
        for phrases in PHRASES.iter() {
            if phrases.kind == PatternType::Blocker && resolved {
                continue;
            }
            // A question only half-asserts: a strong phrase counts as weak,
            // a weak one not at all.
            let confidence = match (phrases.strong.is_match(sentence), question) {
                (true, false) => 0.9,
                (true, true) => 0.6,
                (false, false) if phrases.weak.is_match(sentence) => 0.6,
                _ => continue,
            };
            match found.iter_mut().find(|p| p.kind == phrases.kind) {
                Some(p) if p.confidence >= confidence => {}
                Some(p) => {
                    p.confidence = confidence;
                    p.content = clip(sentence);
                }
                None => found.push(DetectedPattern {
                    kind: phrases.kind,
                    confidence,
                    content: clip(sentence),
                }),
            }
        }
    }
    found.sort_by_key(|p| p.kind);
    found
}

/// The sentences of `text`, trimmed, with their closing punctuation: split
/// after `.`, `!` or `?` followed by a space, and at line breaks.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for end in SENTENCE_END.find_iter(text) {
        out.push(text[start..end.end()].trim());
        start = end.end();
    }
    out.push(text[start..].trim());
    out
}

/// Whether a message is empty, or only a greeting, thanks or a short casual
/// reply: nothing worth carrying to the next session.
pub fn is_chatter(text: &str) -> bool {
    let text = text.trim();
    text.is_empty() || (CASUAL.is_match(text) && text.split_whitespace().count() < CASUAL_MAX_WORDS)
}

/// At most 200 characters, cut on a character boundary.
fn clip(sentence: &str) -> String {
    clip_chars(sentence, 200)
}

/// At most `max` characters of `text`, cut on a character boundary, with
/// `…` when something was cut.
pub fn clip_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}
