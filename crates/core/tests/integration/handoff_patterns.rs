//! `detect_patterns` on a labelled set of agent and user messages of the kind
//! OpenClaw transcripts hold: each with the pattern types it should yield,
//! including chatter and near misses that should yield none.

use session_intel_core::handoff::patterns::{detect_patterns, PatternType};
use PatternType::{Accomplishment as A, Blocker as B, Decision as D, Insight as I};

const LABELLED: &[(&str, &[PatternType])] = &[
    // Blockers.
    (
        "I'm stuck on the OAuth callback, it returns 400 every time.",
        &[B],
    ),
    ("The build is broken on main since the last merge.", &[B]),
    ("Can't get the websocket to connect behind the proxy.", &[B]),
    (
        "mix test still fails with a timeout in the payment suite",
        &[B],
    ),
    (
        "Deploy to staging is blocked by the missing DATABASE_URL secret.",
        &[B],
    ),
    (
        "The worker panicked: index out of bounds in the scheduler.",
        &[B],
    ),
    ("Login doesn't work on Safari.", &[B]),
    (
        "We hit a deadlock when two jobs update the same cart.",
        &[B],
    ),
    ("The importer crashed halfway through the CSV.", &[B]),
    ("The webhook keeps timing out after 30 seconds", &[B]),
    // Decisions.
    ("Let's use Postgres advisory locks for the queue.", &[D]),
    ("We decided to drop the Redis cache for now.", &[D]),
    (
        "We'll go with server-side rendering for the dashboard.",
        &[D],
    ),
    (
        "Going to implement the retry with exponential backoff.",
        &[D],
    ),
    (
        "I chose SQLite for the local store because it needs no server.",
        &[D],
    ),
    ("The plan is to split the monolith after the release.", &[D]),
    ("Use the official SDK instead of raw HTTP calls.", &[D]),
    ("I think we should keep the API versioned under /v2.", &[D]),
    // Insights.
    ("Turns out the cron ran in UTC, not local time.", &[I]),
    ("I realized the cache key never included the locale.", &[I]),
    (
        "The root cause was a stale lock file left by a crashed process.",
        &[I, B],
    ),
    ("That explains why the tests only fail on CI.", &[I, B]),
    ("Now I understand how the session tree is linked.", &[I]),
    (
        "The reason is that Claude Code writes the summary line first.",
        &[I],
    ),
    (
        "So that's why the counts doubled: progress lines repeat the usage.",
        &[I],
    ),
    // Accomplishments.
    ("Fixed the crash in the CSV importer.", &[A]),
    ("The checkout flow is working now.", &[A]),
    ("All 212 tests pass.", &[A]),
    ("Implemented the webhook retries and merged the PR.", &[A]),
    ("Got the dev server running on port 4000.", &[A]),
    ("Deployed 1.4.2 to production successfully.", &[A]),
    ("Resolved the flaky test by seeding the clock.", &[A]),
    ("Added pagination to the sessions endpoint.", &[A]),
    (
        "The OAuth bug is fixed and login works now on Safari.",
        &[A],
    ),
    // Several at once.
    (
        "Fixed the migration. Next we should use a feature flag for the rollout.",
        &[D, A],
    ),
    (
        "Turns out the API was rate limiting us. Let's use a token bucket.",
        &[D, I],
    ),
    (
        "Refactored the parser, but the fuzz test still fails on empty input.",
        &[B, A],
    ),
    // Chatter and near misses: nothing.
    ("hey", &[]),
    ("Thanks!", &[]),
    ("cool, sounds good", &[]),
    ("Good morning! How are you?", &[]),
    ("ok", &[]),
    ("haha nice one", &[]),
    ("What's the weather like in Berlin today?", &[]),
    ("Can you read the README and summarise it?", &[]),
    ("Here is the file you asked for.", &[]),
    ("Should we use Redis?", &[]),
    ("Does the login fail?", &[]),
];

#[test]
fn every_labelled_message_yields_its_types() {
    assert!(LABELLED.len() >= 40);
    let mut wrong = Vec::new();
    for (text, expected) in LABELLED {
        let got: Vec<PatternType> = detect_patterns(text).iter().map(|p| p.kind).collect();
        let mut want = expected.to_vec();
        want.sort();
        if got != want {
            wrong.push(format!("{text:?}: got {got:?}, want {want:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} wrong:\n{}",
        wrong.len(),
        LABELLED.len(),
        wrong.join("\n")
    );
}

#[test]
fn confidence_and_content() {
    let p = detect_patterns(
        "Some context first. Let's use Postgres advisory locks for the queue. Thanks.",
    );
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].confidence, 0.9);
    assert_eq!(
        p[0].content,
        "Let's use Postgres advisory locks for the queue."
    );
    let weak = detect_patterns("Added a test for the parser.");
    assert_eq!(weak[0].confidence, 0.6);
    let long = format!("Fixed {}", "é".repeat(400));
    let clipped = &detect_patterns(&long)[0].content;
    assert_eq!(clipped.chars().count(), 201);
    assert!(detect_patterns("").is_empty());
    // A long message that opens casually is still read.
    assert_eq!(detect_patterns("Thanks! I realized the cache key never included the locale, which explains the wrong prices.")[0].kind, PatternType::Insight);
}
