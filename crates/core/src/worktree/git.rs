//! The `git` CLI, run with its arguments as a list (never through a
//! shell), with no prompt, and killed when it does not finish by its
//! deadline.

use crate::error::{Error, ErrorCode, Result};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a finished `git` printed.
#[derive(Debug, Clone)]
pub struct GitOutput {
    /// It exited with status 0.
    pub ok: bool,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error, trimmed.
    pub stderr: String,
}

impl GitOutput {
    /// Its standard output when it succeeded, else an error naming `what`
    /// with git's own message.
    pub fn into_result(self, what: &str) -> Result<String> {
        if self.ok {
            Ok(self.stdout)
        } else {
            Err(failed(what, &self.stderr))
        }
    }
}

/// An `E_WRITE_FAILED` error for the git operation `what`, with git's message.
pub fn failed(what: &str, stderr: &str) -> Error {
    let detail = stderr.lines().next_back().unwrap_or("").trim();
    Error::new(
        ErrorCode::WriteFailed,
        if detail.is_empty() {
            format!("{what} failed")
        } else {
            format!("{what} failed: {detail}")
        },
    )
    .with_hint("run the same git command in the repository to see why")
}

/// Runs `git args…` in `dir` and waits for it until `deadline`; past it
/// git is killed and the call fails with `E_WRITE_FAILED`.
pub fn git(dir: &Path, args: &[&str], deadline: Instant) -> Result<GitOutput> {
    let mut child = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("LC_ALL", "C")
        .spawn()
        .map_err(|e| {
            Error::new(ErrorCode::WriteFailed, format!("could not run git: {e}"))
                .with_hint("install git and put it on PATH")
        })?;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut out);
            }
            String::from_utf8_lossy(&out).into_owned()
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::new(
                    ErrorCode::WriteFailed,
                    format!("git {} did not finish in time", args.first().unwrap_or(&"")),
                )
                .with_hint("the repository may be very large or locked by another git process"));
            }
        }
    };
    Ok(GitOutput {
        ok: status.success(),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default().trim().to_owned(),
    })
}
