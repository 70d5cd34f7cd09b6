//! A labelled set of task/session pairs: does a fallback rank a task's
//! related sessions above its unrelated ones? The reference's keyword
//! Jaccard against our fallback (stems, split identifiers, touched files).
//! Run with `--nocapture` to see both figures.

use session_intel_core::selection::relevance::{keyword_fallback, semantic_fallback};
use session_intel_core::selection::{Candidate, Relevance};

struct Case {
    task: &'static str,
    /// (related?, the session's last task, files it touched)
    sessions: &'static [(bool, &'static str, &'static [&'static str])],
}

const CASES: &[Case] = &[
    Case {
        task: "Fix webhook error handling when the signature is invalid",
        sessions: &[
            (
                true,
                "Refactor the webhook handler to use v2 payloads",
                &["src/webhooks/handler.ts"],
            ),
            (
                true,
                "Add retries to webhookHandler for transient failures",
                &["src/webhooks/handler.ts", "src/webhooks/retry.ts"],
            ),
            (false, "Update README formatting and badges", &["README.md"]),
            (false, "Add OAuth login with GitHub", &["src/auth/oauth.ts"]),
        ],
    },
    Case {
        task: "Speed up the checkout page load",
        sessions: &[
            (
                true,
                "Profile slow CheckoutPage render and memoize cart totals",
                &["web/checkout/CheckoutPage.tsx"],
            ),
            (
                true,
                "Lazy-load payment widgets on checkout",
                &["web/checkout/payment.tsx"],
            ),
            (
                false,
                "Write migration for orders.customer_id index",
                &["db/migrations/0042_orders_customer_idx.sql"],
            ),
            (
                false,
                "Fix typo in the privacy policy page",
                &["web/legal/privacy.md"],
            ),
        ],
    },
    Case {
        task: "orders table queries are slow, add the missing index",
        sessions: &[
            (
                true,
                "Write migration for orders.customer_id index",
                &["db/migrations/0042_orders_customer_idx.sql"],
            ),
            (
                true,
                "Investigate slow query on the orders listing endpoint",
                &["api/orders/list.rs", "db/queries/orders.sql"],
            ),
            (
                false,
                "Lazy-load payment widgets on checkout",
                &["web/checkout/payment.tsx"],
            ),
            (
                false,
                "Bump eslint and prettier versions",
                &["package.json"],
            ),
        ],
    },
    Case {
        task: "Rate limit the public product API",
        sessions: &[
            (
                true,
                "Implement rate limiting middleware for the products endpoints",
                &["api/middleware/rate_limit.rs", "api/products/mod.rs"],
            ),
            (
                true,
                "Add per-key request quotas to productApi",
                &["api/products/quota.rs"],
            ),
            (
                false,
                "Implement retry for flaky e2e tests",
                &["e2e/retry.ts"],
            ),
            (
                false,
                "Translate onboarding emails to German",
                &["emails/onboarding.de.mjml"],
            ),
        ],
    },
    Case {
        task: "The Phoenix server does not start after upgrading to 1.8",
        sessions: &[
            (
                true,
                "mix phx.server doesnt seem to start",
                &["config/dev.exs", "lib/spotter_web/endpoint.ex"],
            ),
            (
                true,
                "Upgrade Phoenix to 1.8 and fix deprecations",
                &["mix.exs", "mix.lock"],
            ),
            (
                false,
                "Add dark mode to the settings screen",
                &["assets/css/settings.css"],
            ),
            (
                false,
                "Document the deployment runbook",
                &["docs/runbook.md"],
            ),
        ],
    },
    Case {
        task: "Add tests for the session parser edge cases",
        sessions: &[
            (
                true,
                "Handle truncated last lines in parseSession",
                &["src/session/parser.rs"],
            ),
            (
                true,
                "Parser should skip blank lines and invalid UTF-8",
                &["src/session/parser.rs", "tests/parser.rs"],
            ),
            (false, "Add a dark theme toggle", &["ui/theme.ts"]),
            (
                false,
                "Rename the billing service",
                &["services/billing/mod.rs"],
            ),
        ],
    },
    Case {
        task: "Login fails with expired OAuth tokens",
        sessions: &[
            (true, "Add OAuth login with GitHub", &["src/auth/oauth.ts"]),
            (
                true,
                "Refresh access tokens before they expire",
                &["src/auth/token_refresh.ts"],
            ),
            (false, "Speed up image thumbnails", &["src/media/thumbs.ts"]),
            (
                false,
                "Fix the webhook signature check",
                &["src/webhooks/signature.ts"],
            ),
        ],
    },
    Case {
        task: "Make the CSV export include refunds",
        sessions: &[
            (
                true,
                "Build CSV export of transactions for accountants",
                &["reports/export_csv.py"],
            ),
            (
                true,
                "Model refunds as negative transactions",
                &["billing/refunds.py", "reports/export_csv.py"],
            ),
            (false, "Fix flaky cart test", &["tests/test_cart.py"]),
            (false, "Set up Sentry error reporting", &["app/sentry.py"]),
        ],
    },
    Case {
        task: "Flaky cart tests on CI",
        sessions: &[
            (
                true,
                "Fix flaky cart test that times out",
                &["tests/test_cart.py"],
            ),
            (
                true,
                "Stabilise CI: retry network-dependent tests",
                &[".github/workflows/ci.yml", "tests/conftest.py"],
            ),
            (
                false,
                "Build CSV export of transactions for accountants",
                &["reports/export_csv.py"],
            ),
            (
                false,
                "Add GraphQL schema for products",
                &["graphql/schema.graphql"],
            ),
        ],
    },
    Case {
        task: "Dark mode colours are wrong in the settings screen",
        sessions: &[
            (
                true,
                "Add dark mode to the settings screen",
                &["assets/css/settings.css", "assets/css/theme.css"],
            ),
            (
                true,
                "Introduce colour tokens for themes",
                &["assets/css/theme.css"],
            ),
            (
                false,
                "Write migration for orders.customer_id index",
                &["db/migrations/0042.sql"],
            ),
            (
                false,
                "Rate limit the login endpoint",
                &["api/auth/login.rs"],
            ),
        ],
    },
    Case {
        task: "Send the onboarding email in the user's language",
        sessions: &[
            (
                true,
                "Translate onboarding emails to German",
                &["emails/onboarding.de.mjml"],
            ),
            (
                true,
                "Add locale to user profile and mailer",
                &["app/models/user.rb", "app/mailers/onboarding_mailer.rb"],
            ),
            (
                false,
                "Speed up the checkout page",
                &["web/checkout/CheckoutPage.tsx"],
            ),
            (
                false,
                "Migrate CI to GitHub Actions",
                &[".github/workflows/ci.yml"],
            ),
        ],
    },
    Case {
        task: "Thumbnails are blurry on retina screens",
        sessions: &[
            (true, "Speed up image thumbnails", &["src/media/thumbs.ts"]),
            (
                true,
                "Serve 2x images via srcset in ImageGrid",
                &["src/components/ImageGrid.tsx", "src/media/thumbs.ts"],
            ),
            (
                false,
                "Refresh access tokens before they expire",
                &["src/auth/token_refresh.ts"],
            ),
            (
                false,
                "Document the deployment runbook",
                &["docs/runbook.md"],
            ),
        ],
    },
];

fn candidate(id: usize, last_task: &str, files: &[&str]) -> Candidate {
    Candidate {
        session_id: format!("s{id}"),
        first_message: last_task.into(),
        last_task: Some(last_task.into()),
        files_touched: files.iter().map(|f| f.to_string()).collect(),
        ..Candidate::default()
    }
}

/// The share of (related, unrelated) pairs of one task ranked correctly
/// (ties count half), over all tasks.
fn ranking_accuracy(score: fn(&str, &Candidate) -> Relevance) -> (f64, usize) {
    let (mut right, mut total) = (0.0, 0);
    for case in CASES {
        let scored: Vec<(bool, f64)> = case
            .sessions
            .iter()
            .enumerate()
            .map(|(i, (related, last, files))| {
                (
                    *related,
                    score(case.task, &candidate(i, last, files)).relevance,
                )
            })
            .collect();
        for (_, r) in scored.iter().filter(|(rel, _)| *rel) {
            for (_, u) in scored.iter().filter(|(rel, _)| !*rel) {
                total += 1;
                right += if r > u {
                    1.0
                } else if r == u {
                    0.5
                } else {
                    0.0
                };
            }
        }
    }
    (right / total as f64, total)
}

#[test]
fn our_fallback_ranks_related_sessions_above_unrelated_more_often_than_jaccard() {
    let pairs: usize = CASES.iter().map(|c| c.sessions.len()).sum();
    assert!(pairs >= 40, "{pairs} labelled pairs");
    let (jaccard, n) = ranking_accuracy(keyword_fallback);
    let (ours, _) = ranking_accuracy(semantic_fallback);
    println!("{pairs} labelled task/session pairs, {n} related-vs-unrelated comparisons:");
    println!(
        "  keyword Jaccard (reference keywordFallback): {:.1}% ranked correctly",
        jaccard * 100.0
    );
    println!(
        "  stems + identifiers + touched files:          {:.1}% ranked correctly",
        ours * 100.0
    );
    assert!(ours > jaccard, "ours {ours} vs jaccard {jaccard}");
    assert!(ours >= 0.9, "ours {ours}");
}
