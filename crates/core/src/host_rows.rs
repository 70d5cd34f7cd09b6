//! A paired node's page of sessions as the gateway lists it
//! (`hostPageRowsJson`): the page's JSON text, as `hostSessionsPageJson`
//! writes it on the node (or as the plugin makes it of OpenClaw's session
//! catalog), read into the rows of `claude_code_sessions`
//! ([`session_list_payload`]), each with the folder it lies in on that node
//! and the host it came from, and written back as JSON text. One pass of
//! serde on a worker thread: the gateway's event loop only parses the rows
//! (about half the page's text) instead of parsing the page and handing
//! every session to the addon and back.

use crate::error::{Error, ErrorCode, Result};
use crate::mcp::{session_list_payload, ListedSession, SessionFacts};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The host a page came from, as each of its rows names it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RowHost {
    /// `node:<nodeId>`, or `gateway`.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// The page was made of OpenClaw's session catalog (the node does not
    /// run the plugin).
    pub fallback: bool,
}

/// A time as a page gives it: milliseconds since the epoch, or ISO text.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum PageTime {
    Millis(f64),
    Text(String),
}

impl PageTime {
    /// The time; the epoch when it is not one.
    fn at(&self) -> DateTime<Utc> {
        let parsed = match self {
            PageTime::Millis(ms) if ms.is_finite() => DateTime::from_timestamp_millis(*ms as i64),
            PageTime::Millis(_) => None,
            PageTime::Text(text) => DateTime::parse_from_rfc3339(text)
                .ok()
                .map(|d| d.with_timezone(&Utc)),
        };
        parsed.unwrap_or_default()
    }
}

/// What a row needs of a session on a page (every other field is skipped
/// unread).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PageSession {
    session_id: String,
    source: Option<String>,
    agent_id: Option<String>,
    origin_marker: Option<String>,
    branch: Option<String>,
    first_message: Option<String>,
    last_modified: Option<PageTime>,
    message_count: Option<f64>,
    total_cost_usd: Option<f64>,
    total_turns: Option<f64>,
    last_task: Option<String>,
    last_user_message: Option<String>,
    running: Option<bool>,
    is_running: Option<bool>,
    slim_savings_tokens: Option<f64>,
    project_path: Option<String>,
}

impl PageSession {
    /// The facts the session list payload is made of (`running`, else
    /// `isRunning`; a missing branch `unknown`, a missing first prompt
    /// `(no message)`, as discovery writes them).
    fn facts(&self) -> SessionFacts {
        SessionFacts {
            session_id: self.session_id.clone(),
            source: self.source.clone(),
            agent_id: self.agent_id.clone(),
            origin_marker: self.origin_marker.clone(),
            branch: self.branch.clone().unwrap_or_else(|| "unknown".into()),
            first_message: self
                .first_message
                .clone()
                .unwrap_or_else(|| "(no message)".into()),
            last_modified: self
                .last_modified
                .as_ref()
                .map(PageTime::at)
                .unwrap_or_default(),
            // `as` saturates: a negative count or NaN is 0.
            message_count: self.message_count.unwrap_or_default() as u64,
            total_cost_usd: self.total_cost_usd,
            total_turns: self.total_turns,
            last_task: self.last_task.clone(),
            last_user_message: self.last_user_message.clone(),
            is_running: self.running.or(self.is_running).unwrap_or_default(),
            slim_savings_tokens: self.slim_savings_tokens.unwrap_or_default() as u64,
        }
    }
}

/// A page as a node answers it: sessions, or an error.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Page {
    #[serde(default)]
    repositories: Vec<String>,
    #[serde(default)]
    sessions: Vec<PageSession>,
    #[serde(default)]
    next_cursor: Option<String>,
    #[serde(default)]
    truncated: bool,
    #[serde(default)]
    error: Option<Value>,
}

/// One row: the session as `claude_code_sessions` lists it, its folder on
/// the node and its host.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Row<'a> {
    #[serde(flatten)]
    listed: &'a ListedSession,
    project_path: Option<&'a str>,
    host: &'a RowHost,
}

/// The rows of a page, with what the page said of the rest.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RowsPage<'a> {
    v: u32,
    repositories: &'a [String],
    session_count: usize,
    next_cursor: &'a Option<String>,
    truncated: bool,
    rows: Vec<Row<'a>>,
}

/// The page `page_json` (a node's answer) as JSON text of
/// `{ v, repositories, sessionCount, nextCursor, truncated, rows }`: `rows`
/// are its sessions in its order as `claude_code_sessions` lists them
/// (without the sessions OpenClaw did not spawn unless `include_native`),
/// each with `projectPath` and `host`; `sessionCount` counts the page's
/// sessions. An answer that is an error (`{ v, error }`) is given back as
/// `{ v, error }`. Fails with `E_PARSE` when the text is not a page.
pub fn host_page_rows_json(
    page_json: &str,
    host: &RowHost,
    include_native: bool,
) -> Result<String> {
    let page: Page = serde_json::from_str(page_json).map_err(|e| {
        Error::new(ErrorCode::Parse, format!("the node's page is not one: {e}"))
            .with_hint("the node runs another version of the plugin; update it there")
    })?;
    if let Some(error) = page.error {
        return Ok(serde_json::json!({ "v": 1, "error": error }).to_string());
    }
    let facts: Vec<SessionFacts> = page.sessions.iter().map(PageSession::facts).collect();
    let listed = session_list_payload(&facts, include_native).sessions;
    // The payload keeps the page's order and drops only what it filters out.
    let mut where_ = page
        .sessions
        .iter()
        .map(|s| (&s.session_id, s.project_path.as_deref()));
    let rows = listed
        .iter()
        .map(|l| {
            let project_path = where_
                .find(|(id, _)| **id == l.session_id)
                .and_then(|(_, p)| p);
            Row {
                listed: l,
                project_path,
                host,
            }
        })
        .collect();
    let out = RowsPage {
        v: 1,
        repositories: &page.repositories,
        session_count: page.sessions.len(),
        next_cursor: &page.next_cursor,
        truncated: page.truncated,
        rows,
    };
    serde_json::to_string(&out).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host() -> RowHost {
        RowHost {
            id: "node:ab".into(),
            name: "laptop".into(),
            fallback: false,
        }
    }

    #[test]
    fn rows_keep_the_page_order_folder_and_host_and_read_both_time_forms() {
        let page = r#"{"v":1,"repositories":["/l/shop"],"sessions":[
            {"sessionId":"a","source":"native-only","branch":"main","firstMessage":"x","lastModified":1767225600000,"messageCount":3,"running":true,"projectPath":"/l/shop","filesTouched":["f"]},
            {"sessionId":"b","source":"openclaw","agentId":"main","lastModified":"2026-01-01T00:00:00.500Z","projectPath":"/l/shop2"}
        ],"nextCursor":"ff","truncated":true}"#;
        let out: Value =
            serde_json::from_str(&host_page_rows_json(page, &host(), true).unwrap()).unwrap();
        assert_eq!(out["sessionCount"], 2);
        assert_eq!(out["nextCursor"], "ff");
        assert_eq!(out["truncated"], true);
        let rows = out["rows"].as_array().unwrap();
        assert_eq!(rows[0]["lastModified"], "2026-01-01T00:00:00Z");
        assert_eq!(rows[0]["isRunning"], true);
        assert_eq!(rows[0]["projectPath"], "/l/shop");
        assert_eq!(rows[0]["host"]["name"], "laptop");
        assert!(rows[0].get("agent").is_none(), "absent fields are left out");
        assert_eq!(rows[1]["branch"], "unknown");
        assert_eq!(rows[1]["firstMessage"], "(no message)");
        assert_eq!(rows[1]["agent"], "main");
        assert_eq!(rows[1]["projectPath"], "/l/shop2");
        let only: Value =
            serde_json::from_str(&host_page_rows_json(page, &host(), false).unwrap()).unwrap();
        assert_eq!(only["rows"].as_array().unwrap().len(), 1);
        assert_eq!(only["rows"][0]["projectPath"], "/l/shop2");
        assert_eq!(only["sessionCount"], 2);
    }

    #[test]
    fn an_error_answer_comes_back_and_a_non_page_fails() {
        let out = host_page_rows_json(
            r#"{"v":1,"error":{"code":"E_IO","message":"gone"}}"#,
            &host(),
            true,
        )
        .unwrap();
        assert_eq!(out, r#"{"v":1,"error":{"code":"E_IO","message":"gone"}}"#);
        for bad in [
            "not json",
            r#"{"sessions":[{"branch":"main"}]}"#,
            r#"{"sessions":5}"#,
        ] {
            assert_eq!(
                host_page_rows_json(bad, &host(), true).unwrap_err().code,
                ErrorCode::Parse,
                "{bad}"
            );
        }
    }
}
