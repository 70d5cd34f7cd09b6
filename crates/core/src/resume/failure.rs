//! Was a `claude --resume` rejected, and what should the caller do about it?
//!
//! Only positive evidence counts (docs/api/resume.md, "A failed resume"): the
//! structured stream-json `result` of a run that failed before any
//! API call (`is_error`, `num_turns == 0`, `duration_api_ms == 0`), the
//! "No conversation found with session ID" text, or a failed run that
//! reports a different session id than the one requested. Rate limits,
//! authentication and network failures never drop a session: the session is
//! fine, the moment was not.

use serde_json::Value;

/// What the caller knows about a finished run that asked for `--resume`.
#[derive(Debug, Clone, Default)]
pub struct RunOutcome {
    /// The id passed to `--resume`.
    pub requested_session_id: String,
    /// The stream-json `result` line, if one was printed.
    pub result_line: Option<String>,
    /// The tail of stderr, if any.
    pub stderr: Option<String>,
    /// The process exit code, as the host's JavaScript holds it; absent when
    /// not known. The run failed when it is given and is not 0 (as `code !== 0`
    /// reads it, so NaN is a failure, never a success).
    pub exit_code: Option<f64>,
}

/// The verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeFailure {
    /// The resume itself was refused, or the history cannot be replayed.
    pub rejected: bool,
    /// Retry this turn once as a fresh session: only when rejected and no tool
    /// ran (a retry reuses the work dir and has no idempotency key).
    pub retry_fresh: bool,
    /// The id to retire so that no later decision hands it out again: pass it
    /// to `retireSession`.
    pub retire_session_id: Option<String>,
    /// `resume_rejected`, `session_mismatch`, `failed_before_api`,
    /// `unresumable_history`, `rate_limited`, `auth_failed`, `network`,
    /// `succeeded` or `failed_other`.
    pub reason: &'static str,
}

const NO_CONVERSATION: &str = "no conversation found with session id";
/// Provider refusals of a replayed history: retrying the same session fails again.
const UNRESUMABLE: [&str; 3] = [
    "invalid signature in thinking block",
    "content must not be empty",
    "must have non-empty content",
];
const RATE_LIMITED: [&str; 6] = [
    "rate limit",
    "rate_limit",
    "429",
    "overloaded",
    "usage limit",
    "quota",
];
const AUTH: [&str; 6] = [
    "authentication",
    "401",
    "403",
    "invalid api key",
    "invalid x-api-key",
    "oauth token",
];
const NETWORK: [&str; 8] = [
    "econnreset",
    "econnrefused",
    "etimedout",
    "enotfound",
    "network",
    "fetch failed",
    "socket hang up",
    "502",
];

/// Classifies the outcome of a run that requested `--resume`.
///
/// Reasons: `resume_rejected` (no conversation found), `session_mismatch`
/// (a failed run reported another id), `failed_before_api` (structured local
/// failure with no turn), `unresumable_history` (the provider refuses the
/// replayed history), `rate_limited`, `auth_failed`, `network`, `succeeded`,
/// `failed_other` (a failure with no evidence against the session).
pub fn classify_resume_failure(outcome: &RunOutcome) -> ResumeFailure {
    let result: Option<Value> = outcome
        .result_line
        .as_deref()
        .and_then(|l| serde_json::from_str(l.trim()).ok())
        .filter(|v: &Value| v["type"] == "result");
    let is_error = result.as_ref().map(|r| r["is_error"] == true);
    let num_turns = result.as_ref().and_then(|r| r["num_turns"].as_u64());
    let api_ms = result.as_ref().and_then(|r| r["duration_api_ms"].as_u64());
    let emitted = result
        .as_ref()
        .and_then(|r| r["session_id"].as_str())
        .filter(|s| !s.is_empty());
    let failed = is_error == Some(true) || outcome.exit_code.is_some_and(|c| c != 0.0);

    let mut text = String::new();
    if let Some(stderr) = &outcome.stderr {
        text.push_str(stderr);
    }
    if let Some(r) = &result {
        for key in ["errors", "result", "subtype", "terminal_reason"] {
            text.push('\n');
            text.push_str(&match &r[key] {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            });
        }
    }
    let text = text.to_lowercase();
    let has = |needles: &[&str]| needles.iter().any(|n| text.contains(n));
    let no_tool_ran = num_turns.unwrap_or(0) == 0;
    let verdict = |rejected: bool, reason: &'static str| ResumeFailure {
        rejected,
        retry_fresh: rejected && no_tool_ran,
        retire_session_id: (rejected && !outcome.requested_session_id.is_empty())
            .then(|| outcome.requested_session_id.clone()),
        reason,
    };

    if !failed {
        return verdict(false, "succeeded");
    }
    if text.contains(NO_CONVERSATION) {
        return verdict(true, "resume_rejected");
    }
    // The session is fine; the moment was not. Checked before the
    // structural signals, which a refused API key can also produce.
    if has(&RATE_LIMITED) {
        return verdict(false, "rate_limited");
    }
    if has(&AUTH) {
        return verdict(false, "auth_failed");
    }
    if has(&NETWORK) {
        return verdict(false, "network");
    }
    if has(&UNRESUMABLE) {
        return verdict(true, "unresumable_history");
    }
    if emitted.is_some_and(|id| id != outcome.requested_session_id)
        && !outcome.requested_session_id.is_empty()
    {
        return verdict(true, "session_mismatch");
    }
    if is_error == Some(true) && num_turns == Some(0) && api_ms == Some(0) {
        return verdict(true, "failed_before_api");
    }
    verdict(false, "failed_other")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "8f2e6b1c-1d2a-4c55-9a77-0e6a3c9b1f00";

    fn outcome(line: Option<&str>, stderr: Option<&str>, exit: Option<f64>) -> RunOutcome {
        RunOutcome {
            requested_session_id: ID.into(),
            result_line: line.map(str::to_owned),
            stderr: stderr.map(str::to_owned),
            exit_code: exit,
        }
    }

    #[test]
    fn the_stream_json_rejection_of_claude_code_2_1_227() {
        // github-symphony #554: one stdout line, no init line before it.
        let line = format!(
            r#"{{"type":"result","subtype":"error_during_execution","duration_ms":0,"duration_api_ms":0,"is_error":true,"num_turns":0,"session_id":"{ID}","total_cost_usd":0,"errors":["No conversation found with session ID: {ID}"]}}"#
        );
        let v = classify_resume_failure(&outcome(Some(&line), None, Some(1.0)));
        assert_eq!(
            v,
            ResumeFailure {
                rejected: true,
                retry_fresh: true,
                retire_session_id: Some(ID.into()),
                reason: "resume_rejected"
            }
        );
    }

    #[test]
    fn stderr_only_and_a_fresh_id_on_the_failed_result() {
        let v = classify_resume_failure(&outcome(
            None,
            Some(&format!("No conversation found with session ID: {ID}\n")),
            Some(1.0),
        ));
        assert_eq!((v.rejected, v.reason), (true, "resume_rejected"));
        // glueclaw #37: the rejected result carried a new session id.
        let line = r#"{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":0,"duration_api_ms":0,"session_id":"11111111-2222-4333-8444-555555555555"}"#;
        let v = classify_resume_failure(&outcome(Some(line), None, Some(1.0)));
        assert_eq!(
            (v.rejected, v.reason, v.retry_fresh),
            (true, "session_mismatch", true)
        );
        assert_eq!(v.retire_session_id.as_deref(), Some(ID));
    }

    #[test]
    fn structural_failure_before_any_api_call() {
        let line = format!(
            r#"{{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":0,"duration_api_ms":0,"session_id":"{ID}"}}"#
        );
        let v = classify_resume_failure(&outcome(Some(&line), None, Some(1.0)));
        assert_eq!((v.rejected, v.reason), (true, "failed_before_api"));
    }

    #[test]
    fn transient_failures_never_drop_the_session() {
        for (stderr, reason) in [
            ("API Error: 429 rate_limit_error", "rate_limited"),
            ("Claude AI usage limit reached|1760000000", "rate_limited"),
            ("API Error: 529 Overloaded", "rate_limited"),
            ("Invalid API key · Please run /login", "auth_failed"),
            ("API Error: 401 authentication_error", "auth_failed"),
            (
                "request to https://api.anthropic.com failed, reason: ECONNRESET",
                "network",
            ),
        ] {
            let line = format!(
                r#"{{"type":"result","is_error":true,"num_turns":0,"duration_api_ms":0,"session_id":"{ID}"}}"#
            );
            let v = classify_resume_failure(&outcome(Some(&line), Some(stderr), Some(1.0)));
            assert_eq!(
                v,
                ResumeFailure {
                    rejected: false,
                    retry_fresh: false,
                    retire_session_id: None,
                    reason
                },
                "{stderr}"
            );
        }
    }

    #[test]
    fn unresumable_history_is_retired_but_retried_only_when_no_tool_ran() {
        let line = format!(
            r#"{{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":3,"duration_api_ms":900,"session_id":"{ID}","errors":["API Error: 400 invalid_request_error: messages.41: Invalid signature in thinking block"]}}"#
        );
        let v = classify_resume_failure(&outcome(Some(&line), None, Some(1.0)));
        assert_eq!(
            v,
            ResumeFailure {
                rejected: true,
                retry_fresh: false,
                retire_session_id: Some(ID.into()),
                reason: "unresumable_history"
            }
        );
    }

    #[test]
    fn success_and_unexplained_failures_keep_the_session() {
        let ok = format!(
            r#"{{"type":"result","subtype":"success","is_error":false,"num_turns":4,"duration_api_ms":5300,"session_id":"{ID}"}}"#
        );
        assert_eq!(
            classify_resume_failure(&outcome(Some(&ok), None, Some(0.0))).reason,
            "succeeded"
        );
        let v = classify_resume_failure(&outcome(None, Some("segmentation fault"), Some(139.0)));
        assert_eq!((v.rejected, v.reason), (false, "failed_other"));
        let v = classify_resume_failure(&outcome(Some("not json"), None, None));
        assert_eq!(v.reason, "succeeded");
        // Exit codes a wrapped i32 would read as 0 are failures.
        for code in [f64::NAN, 4294967296.0, -4294967296.0, 0.5] {
            let v = classify_resume_failure(&outcome(None, None, Some(code)));
            assert_eq!(v.reason, "failed_other", "{code}");
        }
    }
}
