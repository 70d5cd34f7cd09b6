//! The Anthropic Messages API as a relevance source (what the reference
//! calls when the host gives no callback).

use super::relevance::{RelevanceRequest, RelevanceSource};
use serde_json::json;
use std::future::Future;
use std::pin::Pin;

/// Calls `POST {base}/v1/messages` with an API key.
#[derive(Debug, Clone)]
pub struct AnthropicApi {
    base_url: String,
    api_key: String,
    client: reqwest::Client,
}

impl AnthropicApi {
    /// From `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL` (default
    /// `https://api.anthropic.com`); `None` without a key.
    pub fn from_env() -> Option<AnthropicApi> {
        let api_key = std::env::var("ANTHROPIC_API_KEY")
            .ok()
            .filter(|k| !k.is_empty())?;
        let base_url = std::env::var("ANTHROPIC_BASE_URL")
            .ok()
            .filter(|b| !b.is_empty())
            .unwrap_or_else(|| "https://api.anthropic.com".into());
        Some(AnthropicApi::new(base_url, api_key))
    }

    /// A client for `base_url` with `api_key`.
    pub fn new(base_url: impl Into<String>, api_key: impl Into<String>) -> AnthropicApi {
        AnthropicApi {
            base_url: base_url.into().trim_end_matches('/').to_owned(),
            api_key: api_key.into(),
            client: reqwest::Client::new(),
        }
    }

    async fn call(&self, r: RelevanceRequest) -> Result<String, String> {
        let body = json!({
            "model": r.model,
            "max_tokens": crate::js_number::to_json(r.max_tokens),
            "temperature": 0,
            "messages": [{ "role": "user", "content": r.prompt }],
        });
        let response = self
            .client
            .post(format!("{}/v1/messages", self.base_url))
            .header("x-api-key", &self.api_key)
            .header("anthropic-version", "2023-06-01")
            .header("content-type", "application/json")
            .timeout(std::time::Duration::from_millis(r.timeout_ms))
            .json(&body)
            .send()
            .await
            .map_err(|e| format!("request failed: {e}"))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("Anthropic API error: {status}"));
        }
        let data: serde_json::Value = response
            .json()
            .await
            .map_err(|e| format!("bad JSON: {e}"))?;
        data["content"]
            .as_array()
            .and_then(|blocks| blocks.iter().find(|b| b["type"] == "text"))
            .and_then(|b| b["text"].as_str())
            .map(str::to_owned)
            .ok_or_else(|| "no text in the API response".into())
    }
}

impl RelevanceSource for AnthropicApi {
    fn complete(
        &self,
        request: RelevanceRequest,
    ) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send + '_>> {
        Box::pin(self.call(request))
    }
}
