//! Real git repositories for the status tests: made with the git CLI in
//! temporary directories, and read as the gateway reads them.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `git` with `args` in `dir` (see [`git_env`]); its standard output.
pub fn git_in(dir: &Path, args: &[&str]) -> String {
    git_env(dir, args, &[])
}

/// `git` with `args` and `env` in `dir`, with a fixed identity and no
/// system or user configuration; its standard output.
pub fn git_env(dir: &Path, args: &[&str], env: &[(&str, String)]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "protocol.file.allow=always",
            "-c",
            "user.name=Tester",
            "-c",
            "user.email=t@example.com",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap();
    assert!(
        out.status.success() || args[0] == "status" || args[0] == "log" || args[0] == "stash",
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A commit of what is staged, dated `seconds_ago`.
pub fn commit(dir: &Path, message: &str, seconds_ago: i64) {
    let when = format!("@{} +0000", chrono::Utc::now().timestamp() - seconds_ago);
    git_env(
        dir,
        &["commit", "-q", "--allow-empty", "-m", message],
        &[
            ("GIT_AUTHOR_DATE", when.clone()),
            ("GIT_COMMITTER_DATE", when),
        ],
    );
}

/// A new repository `base/name`.
pub fn new_repo(base: &Path, name: &str) -> PathBuf {
    let dir = base.join(name);
    fs::create_dir_all(&dir).unwrap();
    git_in(&dir, &["init", "-q"]);
    dir
}

/// Writes `text` to `dir/rel`, making its folders.
pub fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// The status lines of a whole briefing, as the gateway asks for them (the
/// repository kept open between asks, listings reused).
#[cfg(unix)]
pub fn status_lines(dir: &Path) -> Vec<String> {
    use session_intel_core::claude_code::DiscoveryCache;
    use session_intel_core::project_status::{gather_project_status, ProjectStatusOptions};
    let mut options = ProjectStatusOptions::default();
    options.discover.claude_config_dir = Some(dir.join(".git/no-claude"));
    options.discover.registry_root = Some(dir.join(".git/no-state"));
    let brief = gather_project_status(
        dir.to_str().unwrap(),
        None,
        &options,
        &DiscoveryCache::new(),
    );
    brief.unwrap().git.status.lines
}

/// Sets the modification time of the file at `path`.
#[cfg(unix)]
pub fn set_mtime(path: &Path, time: std::time::SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

/// Sets the `origin` remote of the repository at `dir` to `url`, adding it
/// when the repository has none.
pub fn set_origin(dir: &Path, url: &str) {
    let has = git_in(dir, &["remote"]).lines().any(|r| r == "origin");
    git_in(
        dir,
        &["remote", if has { "set-url" } else { "add" }, "origin", url],
    );
}
