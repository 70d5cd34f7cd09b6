//! Every constant and branch of the score, and the decision order.

use chrono::{DateTime, Duration, Utc};
use session_intel_core::claude_code::records::registry::{Registry, SaveMeta};
use session_intel_core::selection::scoring::score_session;
use session_intel_core::selection::{
    select_session, Candidate, Relevance, SelectionConfig, SelectionRequest,
};

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-22T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

/// A healthy session on `main`, 30 minutes old.
fn cand() -> Candidate {
    Candidate {
        session_id: "s".into(),
        agent_id: Some("main".into()),
        branch: "main".into(),
        first_message: "fix webhook".into(),
        last_modified: now() - Duration::minutes(30),
        message_count: 100.0,
        file_size_bytes: 1000.0,
        total_input_tokens: 1000.0,
        total_output_tokens: 1000.0,
        ..Candidate::default()
    }
}

fn rel(r: f64) -> Relevance {
    Relevance {
        session_id: "s".into(),
        relevance: r,
        reasoning: "why".into(),
    }
}

fn approx(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn hard_ceilings() {
    let cases: Vec<(Candidate, f64, Option<f64>, &str)> = vec![
        (
            Candidate {
                compaction_count: 3.0,
                ..cand()
            },
            1.0,
            None,
            "Force fresh \u{2014} session compacted 3 times (context too degraded)",
        ),
        (
            Candidate {
                budget_used_pct: Some(0.7),
                ..cand()
            },
            1.0,
            None,
            "Force fresh \u{2014} session used 70% of budget",
        ),
        // budgetUsedPct filled from totalCostUsd / maxBudgetUsd.
        (
            Candidate {
                total_cost_usd: Some(7.5),
                ..cand()
            },
            1.0,
            Some(10.0),
            "Force fresh \u{2014} session used 75% of budget",
        ),
        (
            Candidate {
                message_count: 201.0,
                ..cand()
            },
            0.05,
            None,
            "Force fresh \u{2014} unrelated task (why) + large session (201 messages)",
        ),
    ];
    for (c, r, max, reason) in cases {
        let s = score_session(&c, "main", &rel(r), max, 0.6, now());
        assert_eq!(
            (s.score, s.recommendation, s.reason.as_str()),
            (0.0, "fresh", reason)
        );
        assert_eq!(
            s.factors.branch_match + s.factors.recency + s.factors.context_capacity,
            0.0
        );
    }
    // Just under each ceiling: scored normally.
    for c in [
        Candidate {
            compaction_count: 2.0,
            ..cand()
        },
        Candidate {
            budget_used_pct: Some(0.69),
            ..cand()
        },
        Candidate {
            message_count: 200.0,
            ..cand()
        },
    ] {
        assert!(
            score_session(&c, "main", &rel(0.05), None, 0.6, now())
                .factors
                .recency
                > 0.0
        );
    }
}

#[test]
fn recency_bands() {
    for (hours, expected) in [
        (0.5, 0.2),
        (1.5, 0.16),
        (5.9, 0.16),
        (23.0, 0.12),
        (71.0, 0.08),
        (167.0, 0.04),
        (169.0, 0.0),
    ] {
        let c = Candidate {
            last_modified: now() - Duration::minutes((hours * 60.0) as i64),
            ..cand()
        };
        let s = score_session(&c, "main", &rel(0.7), None, 0.6, now());
        assert!(
            approx(s.factors.recency, expected),
            "{hours}h: {}",
            s.factors.recency
        );
    }
}

#[test]
fn relevance_bands() {
    for (r, expected) in [
        (1.0, 0.25),
        (0.6, 0.25),
        (0.45, 0.175),
        (0.3, 0.1),
        (0.29, 0.0),
        (0.1, 0.0),
        (0.09, -0.15),
        (0.0, -0.15),
    ] {
        let s = score_session(&cand(), "main", &rel(r), None, 0.6, now());
        assert!(
            approx(s.factors.task_relevance, expected),
            "{r}: {}",
            s.factors.task_relevance
        );
    }
}

#[test]
fn health_and_capacity_penalties() {
    let h = |c: Candidate| score_session(&c, "main", &rel(0.7), None, 0.6, now()).factors;
    assert!(approx(h(cand()).session_health, 0.15));
    assert!(approx(
        h(Candidate {
            message_count: 501.0,
            ..cand()
        })
        .session_health,
        0.08
    ));
    assert!(approx(
        h(Candidate {
            file_size_bytes: 5_000_001.0,
            ..cand()
        })
        .session_health,
        0.11
    ));
    assert!(approx(
        h(Candidate {
            last_modified: now() - Duration::hours(170),
            ..cand()
        })
        .session_health,
        0.11
    ));
    assert!(approx(
        h(Candidate {
            message_count: 501.0,
            file_size_bytes: 6e6,
            last_modified: now() - Duration::hours(170),
            ..cand()
        })
        .session_health,
        0.0
    ));
    assert!(approx(h(cand()).context_capacity, 0.15));
    assert!(approx(
        h(Candidate {
            compaction_count: 1.0,
            ..cand()
        })
        .context_capacity,
        0.11
    ));
    assert!(approx(
        h(Candidate {
            compaction_count: 2.0,
            ..cand()
        })
        .context_capacity,
        0.06
    ));
    assert!(approx(
        h(Candidate {
            budget_used_pct: Some(0.51),
            ..cand()
        })
        .context_capacity,
        0.11
    ));
    assert!(approx(
        h(Candidate {
            budget_used_pct: Some(0.31),
            ..cand()
        })
        .context_capacity,
        0.13
    ));
    assert!(approx(
        h(Candidate {
            budget_used_pct: Some(0.3),
            ..cand()
        })
        .context_capacity,
        0.15
    ));
    assert!(approx(
        h(Candidate {
            total_input_tokens: 400_101.0,
            ..cand()
        })
        .context_capacity,
        0.12
    ));
    assert!(approx(
        h(Candidate {
            compaction_count: 2.0,
            budget_used_pct: Some(0.6),
            total_input_tokens: 1e9,
            ..cand()
        })
        .context_capacity,
        0.0
    ));
}

#[test]
fn branch_sum_floor_threshold_and_reason() {
    let best = score_session(&cand(), "main", &rel(0.9), None, 0.6, now());
    assert!(approx(best.score, 1.0));
    assert_eq!(best.recommendation, "resume");
    assert_eq!(
        best.reason,
        "Resume (score: 1.00) \u{2014} same branch, recent, related: why"
    );
    let other = score_session(&cand(), "feature/x", &rel(0.9), None, 0.6, now());
    assert!(approx(other.factors.branch_match, 0.0) && approx(other.score, 0.75));
    // The caller's threshold decides (the reference always used 0.6).
    let s = score_session(&cand(), "feature/x", &rel(0.2), None, 0.5, now());
    assert!(approx(s.score, 0.5));
    assert_eq!(s.recommendation, "resume");
    assert_eq!(
        score_session(&cand(), "feature/x", &rel(0.2), None, 0.6, now()).recommendation,
        "fresh"
    );
    // Floored at zero.
    let bad = Candidate {
        branch: "x".into(),
        last_modified: now() - Duration::days(30),
        message_count: 600.0,
        file_size_bytes: 6e6,
        compaction_count: 2.0,
        budget_used_pct: Some(0.6),
        total_input_tokens: 1e9,
        ..cand()
    };
    let s = score_session(&bad, "main", &rel(0.15), None, 0.6, now());
    assert_eq!(s.score, 0.0);
    assert_eq!(s.reason, "Start fresh (score: 0.00) \u{2014} stale (>1 week), large/unhealthy session, low context capacity, 2x compacted, 60% budget used");
}

fn request(recent: Vec<Candidate>) -> SelectionRequest {
    SelectionRequest {
        task: "fix webhook retries".into(),
        repo_path: "/repo".into(),
        agent_id: "main".into(),
        current_branch: "main".into(),
        active_count: 0,
        recent,
        label: None,
        max_budget_usd: None,
        config: SelectionConfig {
            enabled: false,
            ..SelectionConfig::default()
        },
    }
}

#[tokio::test]
async fn decision_order() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::new(dir.path().join("state"));
    let claude = dir.path().join("claude");
    let decide = |req: SelectionRequest| {
        let registry = registry.clone();
        let claude = claude.clone();
        async move {
            select_session(&req, &registry, &claude, None, now())
                .await
                .unwrap()
        }
    };
    // 1. A label is looked up directly, whatever else is true.
    let labelled = SelectionRequest {
        label: Some("ui".into()),
        active_count: 3,
        ..request(vec![cand()])
    };
    let d = decide(labelled.clone()).await;
    assert_eq!(
        (d.action, d.reason.as_str()),
        ("fresh", "New labeled session \"ui\"")
    );
    let id = "0b6c5e1a-1111-4222-8333-444455556666";
    registry
        .save(
            "main",
            "/repo",
            id,
            &SaveMeta {
                label: Some("ui".into()),
                ..SaveMeta::default()
            },
            "2026-11-22T10:00:00.000Z",
        )
        .unwrap();
    let folder = claude.join("projects").join("-repo");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join(format!("{id}.jsonl")), "{}\n").unwrap();
    let d = decide(labelled).await;
    assert_eq!((d.action, d.session_id.as_deref()), ("resume", Some(id)));
    // 2. A running session queues.
    assert_eq!(
        decide(SelectionRequest {
            active_count: 1,
            ..request(vec![cand()])
        })
        .await
        .action,
        "queue"
    );
    // 3. Only the agent's own sessions are candidates.
    let theirs = Candidate {
        agent_id: Some("ops".into()),
        ..cand()
    };
    let d = decide(request(vec![
        theirs,
        Candidate {
            agent_id: None,
            ..cand()
        },
    ]))
    .await;
    assert_eq!(
        (d.action, d.reason.as_str()),
        ("fresh", "No previous sessions found")
    );
    // 4. The best own session resumes when it reaches the threshold.
    let strong = Candidate {
        session_id: "strong".into(),
        first_message: "fix the webhook retries".into(),
        ..cand()
    };
    let weak = Candidate {
        session_id: "weak".into(),
        branch: "old".into(),
        first_message: "update README".into(),
        last_modified: now() - Duration::days(9),
        ..cand()
    };
    let d = decide(request(vec![weak.clone(), strong])).await;
    assert_eq!(
        (d.action, d.session_id.as_deref()),
        ("resume", Some("strong"))
    );
    let scores = d.scores.unwrap();
    assert_eq!(scores.len(), 2);
    assert!(scores[0].score >= scores[1].score);
    let d = decide(request(vec![weak])).await;
    assert_eq!(d.action, "fresh");
    assert!(d.reason.starts_with("Start fresh (score: "));
}

/// Claude Code 2.1 pads transcripts with bookkeeping lines: where discovery
/// counted prompts and responses, the long-conversation rules read those,
/// not the line count; a session without them keeps the reference's rule.
#[test]
fn long_conversation_rules_read_prompts_and_responses_when_counted() {
    let padded = |prompts: Option<f64>, responses: Option<f64>| Candidate {
        message_count: 940.0,
        prompt_count: prompts,
        response_count: responses,
        ..cand()
    };
    // 940 lines but 40 prompts and 60 responses: no soft ceiling, healthy.
    let short = score_session(
        &padded(Some(40.0), Some(60.0)),
        "main",
        &rel(0.05),
        None,
        0.6,
        now(),
    );
    assert!(short.score > 0.0, "{}", short.reason);
    assert_eq!(short.factors.session_health, 0.15);
    // The reference's line count alone: both rules fire.
    let lines = score_session(&padded(None, None), "main", &rel(0.05), None, 0.6, now());
    assert_eq!(lines.score, 0.0);
    assert!(lines.reason.contains("940 messages"), "{}", lines.reason);
    let lines = score_session(&padded(None, None), "main", &rel(0.9), None, 0.6, now());
    assert!(approx(lines.factors.session_health, 0.08));
    // A long conversation by its counts: 150 prompts, 360 responses.
    let long = score_session(
        &padded(Some(150.0), Some(360.0)),
        "main",
        &rel(0.05),
        None,
        0.6,
        now(),
    );
    assert_eq!(long.score, 0.0);
    assert!(long.reason.contains("510 messages"), "{}", long.reason);
    let long = score_session(
        &padded(Some(150.0), Some(360.0)),
        "main",
        &rel(0.9),
        None,
        0.6,
        now(),
    );
    assert!(approx(long.factors.session_health, 0.08));
}

/// Tokens per message weigh against the session model's window: 10,000 per
/// message is dense for 200,000 tokens, not for 1,000,000.
#[test]
fn token_density_is_measured_against_the_models_context_window() {
    let dense = |window: Option<f64>| Candidate {
        message_count: 10.0,
        total_input_tokens: 50_000.0,
        total_output_tokens: 50_000.0,
        context_window: window,
        ..cand()
    };
    let capacity = |c: &Candidate| {
        score_session(c, "main", &rel(0.9), None, 0.6, now())
            .factors
            .context_capacity
    };
    assert!(approx(capacity(&dense(None)), 0.12));
    assert!(approx(capacity(&dense(Some(200_000.0))), 0.12));
    assert!(approx(capacity(&dense(Some(1_000_000.0))), 0.15));
    // Just at the line: 4,000 per message of a 200,000 window is not dense.
    let edge = Candidate {
        total_input_tokens: 20_000.0,
        total_output_tokens: 20_000.0,
        ..dense(None)
    };
    assert!(approx(capacity(&edge), 0.15));
}
