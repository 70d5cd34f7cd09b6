//! The persistent scan cache, on a real Claude Code project folder (the
//! spotter fixture: a session with subagents) copied into a temporary config
//! dir. A new `DiscoveryCache` stands for a fresh process; every result with the
//! cache is compared with a scan that has none. Also what a process keeps
//! between calls (folder listings, results), on the same fixture.

use crate::util::spotter::*;
use session_intel_core::claude_code::cache::scan_store::{self, cache_file, MAGIC};
use session_intel_core::claude_code::records::registry::{Registry, SaveMeta};
use session_intel_core::claude_code::{
    discover_sessions, discover_sessions_as, DiscoverOptions, DiscoveredSession, DiscoveryCache,
    PersistentCache, SessionSource,
};
use session_intel_core::repo_path::RepoPath;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// Rewrites every `from` as `to` (the same length) between the first and
/// the last 4 KiB of the file, keeping its inode, size and modification
/// time.
fn rewrite_middle_in_place(path: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let modified = fs::metadata(path).unwrap().modified().unwrap();
    let text = fs::read_to_string(path).unwrap();
    let (start, end) = (4096, text.len() - 4096);
    let middle = text[start..end].replace(from, to);
    assert_ne!(middle, text[start..end], "nothing to change");
    fs::write(path, format!("{}{middle}{}", &text[..start], &text[end..])).unwrap();
    set_mtime(path, modified);
}

#[test]
fn a_fresh_process_uses_the_saved_scans_and_agrees_with_a_full_scan() {
    let s = Setup::new();
    assert!(!s.cache_file().exists());
    let first = s.cached();
    assert!(!first.is_empty());
    assert_eq!(shown(&first), shown(&s.uncached()));
    assert!(s.cache_file().exists(), "a cold scan saves the cache");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(s.cache_file()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "it holds prompts: owner only");
        let dir_mode = fs::metadata(&s.cache_dir).unwrap().permissions().mode();
        assert_eq!(dir_mode & 0o777, 0o700);
    }
    assert_eq!(shown(&s.cached()), shown(&first));

    // Proof that the second process did not read the file: a change the
    // prefix check cannot see (the middle of the file, same size, inode and
    // time) is reported by a full scan only.
    let before = s.uncached()[0].tokens.cache_read;
    rewrite_middle_in_place(
        &s.main_file(),
        "\"cache_read_input_tokens\":",
        "\"cache_read_input_tokenz\":",
    );
    assert_ne!(s.uncached()[0].tokens.cache_read, before);
    assert_eq!(s.cached()[0].tokens.cache_read, before);
}

#[test]
fn appended_lines_shrunk_and_replaced_files_are_read_again() {
    let s = Setup::new();
    s.cached();
    let file = s.main_file();
    let original = fs::read(&file).unwrap();
    let modified = fs::metadata(&file).unwrap().modified().unwrap();

    // An appended line (and a half-written one after it).
    let line = concat!(
        r#"{"type":"user","sessionId":"ae4a77f8-aedd-4bc1-888f-c94edc91af04","message":{"role":"user","content":"one more thing"},"uuid":"00000000-0000-4000-8000-00000000ffff","timestamp":"2026-11-01T10:00:00.000Z"}"#,
        "\n",
        r#"{"type":"assistant""#
    );
    fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap()
        .write_all(line.as_bytes())
        .unwrap();
    let appended = s.cached();
    assert_eq!(
        appended[0].last_user_message.as_deref(),
        Some("one more thing")
    );
    assert_eq!(shown(&appended), shown(&s.uncached()));

    // A cache that claims more than the file holds: the file cut back to a
    // prefix with its old time.
    fs::write(&file, &original[..original.len() / 3]).unwrap();
    set_mtime(&file, modified);
    assert_eq!(shown(&s.cached()), shown(&s.uncached()));

    // The same size and time, another head: the prefix check sees it.
    let mut other = original.clone();
    other[10..20].copy_from_slice(b"XXXXXXXXXX");
    fs::write(&file, &other).unwrap();
    set_mtime(&file, modified);
    assert_eq!(shown(&s.cached()), shown(&s.uncached()));

    // A new file under the same name (a new inode).
    fs::remove_file(&file).unwrap();
    fs::write(&file, &original).unwrap();
    assert_eq!(shown(&s.cached()), shown(&s.uncached()));

    // A deleted session goes, from the results and from the saved cache.
    fs::remove_file(&file).unwrap();
    let gone = s.cached();
    assert!(gone
        .iter()
        .all(|x| x.session_id != MAIN.trim_end_matches(".jsonl")));
    assert_eq!(shown(&gone), shown(&s.uncached()));
}

#[test]
fn damaged_foreign_and_unreadable_caches_are_ignored_and_replaced() {
    let s = Setup::new();
    let truth = shown(&s.uncached());
    s.cached();
    let good = fs::read(s.cache_file()).unwrap();
    assert!(good.starts_with(MAGIC));
    let mut flipped = good.clone();
    let at = flipped.len() / 2;
    flipped[at] ^= 0xff;
    let mut foreign = good.clone();
    foreign[MAGIC.len()] = foreign[MAGIC.len()].wrapping_add(1); // another format
    let damaged: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("truncated", good[..good.len() - 7].to_vec()),
        ("a flipped byte", flipped),
        ("another format", foreign),
        ("garbage", b"not a cache at all\n".repeat(100)),
    ];
    for (what, bytes) in damaged {
        fs::write(s.cache_file(), &bytes).unwrap();
        assert_eq!(shown(&s.cached()), truth, "{what}");
        assert!(
            scan_store::load(&s.cache_file(), &s.config).is_some(),
            "{what}: replaced by a whole cache"
        );
    }
    // A directory where the file goes: results stay right, nothing breaks.
    fs::remove_file(s.cache_file()).unwrap();
    fs::create_dir_all(s.cache_file()).unwrap();
    assert_eq!(shown(&s.cached()), truth);
    assert!(s.cache_file().is_dir());
}

#[test]
fn config_dirs_sharing_a_cache_folder_keep_their_own_files() {
    let a = Setup::new();
    let b = Setup::new();
    // B keeps its cache in A's folder.
    let in_a = |s: &Setup| {
        let options = s.options(PersistentCache::In(a.cache_dir.clone()));
        discover_sessions(&RepoPath::resolve(REPO), &options, &DiscoveryCache::new())
    };
    // B's copy of the session differs from A's.
    let b_file = b.main_file();
    let text = fs::read_to_string(&b_file).unwrap();
    fs::write(
        &b_file,
        text.replacen("\"output_tokens\":", "\"output_tokenz\":", 3),
    )
    .unwrap();
    let (truth_a, truth_b) = (shown(&a.uncached()), shown(&b.uncached()));
    assert_ne!(truth_a, truth_b);
    for _ in 0..2 {
        assert_eq!(shown(&in_a(&a)), truth_a);
        assert_eq!(shown(&in_a(&b)), truth_b);
    }
    assert_ne!(
        cache_file(&a.cache_dir, &a.config),
        cache_file(&a.cache_dir, &b.config)
    );
    assert!(scan_store::load(&cache_file(&a.cache_dir, &a.config), &a.config).is_some());
    assert!(scan_store::load(&cache_file(&a.cache_dir, &b.config), &b.config).is_some());
}

#[test]
fn off_writes_nothing() {
    let s = Setup::new();
    s.uncached();
    assert!(!s.cache_dir.exists());
}

#[test]
fn stale_temporary_files_of_killed_writers_are_removed() {
    let s = Setup::new();
    s.cached();
    let name = s
        .cache_file()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    // Left by a writer that is gone (no pid is this large), by one that is
    // running (pid 1) an hour ago, and by a running one now.
    let dead = s.cache_dir.join(format!(".{name}.tmp-4194305-1"));
    let stale = s.cache_dir.join(format!(".{name}.tmp-1-1"));
    let fresh = s.cache_dir.join(format!(".{name}.tmp-1-2"));
    for p in [&dead, &stale, &fresh] {
        fs::write(p, b"half").unwrap();
    }
    set_mtime(&stale, SystemTime::now() - Duration::from_secs(3600));
    // The next save (a changed file) sweeps the first two only: the fresh
    // one may be another process's save in progress.
    fs::OpenOptions::new()
        .append(true)
        .open(s.main_file())
        .unwrap()
        .write_all(&vec![b'\n'; 2 << 20])
        .unwrap();
    s.cached();
    assert!(!dead.exists());
    assert!(!stale.exists());
    assert!(fresh.exists());
}

#[test]
fn listings_kept_between_calls_see_added_sessions_subagents_and_appends() {
    let s = Setup::new();
    let project = s.config.join("projects").join(SLUG);
    let session_dir = project.join(MAIN.trim_end_matches(".jsonl"));
    let subagents = session_dir.join("subagents");
    // Folders quiet for a minute: their listings are kept.
    let quiet = SystemTime::now() - Duration::from_secs(60);
    for dir in [&project, &session_dir, &subagents] {
        fs::File::open(dir).unwrap().set_modified(quiet).unwrap();
    }
    let process = DiscoveryCache::new();
    let options = s.options(PersistentCache::Off);
    let call = || discover_sessions(&RepoPath::resolve(REPO), &options, &process);
    let first = call();
    assert_eq!(shown(&first), shown(&s.uncached()));
    let subagent_count = first[0].subagent_count;

    let agent = fs::read_dir(&subagents)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    fs::copy(&agent, subagents.join("agent-a0000000000000001.jsonl")).unwrap();
    let added = call();
    assert_eq!(added[0].subagent_count, subagent_count + 1);
    assert_eq!(shown(&added), shown(&s.uncached()));

    // An append changes no folder.
    append_response(&agent);
    let appended = call();
    assert!(appended[0].tokens.output > added[0].tokens.output);
    assert_eq!(shown(&appended), shown(&s.uncached()));

    fs::copy(
        s.main_file(),
        project.join("00000000-0000-4000-8000-000000000001.jsonl"),
    )
    .unwrap();
    let more = call();
    assert_eq!(more.len(), first.len() + 1);
    assert_eq!(shown(&more), shown(&s.uncached()));

    fs::remove_file(subagents.join("agent-a0000000000000001.jsonl")).unwrap();
    let removed = call();
    let original = removed.iter().find(|x| x.session_id == first[0].session_id);
    assert_eq!(original.unwrap().subagent_count, subagent_count);
}

#[test]
fn a_repeat_call_returns_the_same_result_until_any_of_its_inputs_changes() {
    let s = Setup::new();
    let process = DiscoveryCache::new();
    let options = s.options(PersistentCache::Off);
    let call =
        |options: &DiscoverOptions| discover_sessions(&RepoPath::resolve(REPO), options, &process);
    let first = call(&options);
    assert!(
        Arc::ptr_eq(&first, &call(&options)),
        "nothing changed: the result is not built again"
    );
    let id = first[0].session_id.clone();
    // Each form a caller makes of the sessions is kept apart.
    let render = |sessions: Vec<DiscoveredSession>| format!("{} sessions", sessions.len());
    let text = discover_sessions_as(&RepoPath::resolve(REPO), &options, &process, render);
    assert_eq!(*text, format!("{} sessions", first.len()));
    assert!(Arc::ptr_eq(
        &text,
        &discover_sessions_as(
            &RepoPath::resolve(REPO),
            &options,
            &process,
            |_| unreachable!("made again")
        )
    ));
    assert!(Arc::ptr_eq(&first, &call(&options)));

    // The registry changes, no transcript does.
    let registry = Registry::new(s.config.parent().unwrap().join("state"));
    let meta = SaveMeta {
        task: Some("fix the login".into()),
        ..SaveMeta::default()
    };
    registry
        .save("main", REPO, &id, &meta, "2026-01-02T03:04:05.000Z")
        .unwrap();
    let saved = call(&options);
    assert!(!Arc::ptr_eq(&first, &saved));
    assert_eq!(saved[0].source, SessionSource::Openclaw);
    assert_eq!(saved[0].last_task.as_deref(), Some("fix the login"));
    assert_eq!(shown(&saved), shown(&s.uncached()));
    assert!(Arc::ptr_eq(&saved, &call(&options)));
    registry
        .update_stats("main", REPO, Some(3.0), None)
        .unwrap();
    let counted = call(&options);
    assert_eq!(counted[0].total_turns, Some(3.0));
    assert_eq!(shown(&counted), shown(&s.uncached()));

    // What the host says is running is an input too; each set of options
    // keeps its own result.
    let running = DiscoverOptions {
        running_session_ids: vec![id.clone()],
        ..s.options(PersistentCache::Off)
    };
    let busy = DiscoverOptions {
        repo_busy: true,
        ..s.options(PersistentCache::Off)
    };
    for other in [&running, &busy] {
        let found = call(other);
        assert!(
            found
                .iter()
                .find(|x| x.session_id == id)
                .unwrap()
                .is_running
        );
        assert!(
            !counted
                .iter()
                .find(|x| x.session_id == id)
                .unwrap()
                .is_running
        );
        assert!(Arc::ptr_eq(&found, &call(other)));
    }
    assert!(Arc::ptr_eq(&counted, &call(&options)));

    // A transcript grows.
    append_response(&s.main_file());
    let grown = call(&options);
    assert!(grown[0].tokens.output > counted[0].tokens.output);
    assert_eq!(shown(&grown), shown(&s.uncached()));
}

#[test]
fn a_result_the_change_monitor_vouches_for_stands_until_anything_happens_in_its_folders() {
    let s = Setup::new();
    let projects = s.config.join("projects");
    let project = projects.join(SLUG);
    let subagents = project
        .join(MAIN.trim_end_matches(".jsonl"))
        .join("subagents");
    let agent = fs::read_dir(&subagents)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let process = DiscoveryCache::new();
    let options = s.options(PersistentCache::Off);
    let call = || discover_sessions(&RepoPath::resolve(REPO), &options, &process);
    // A first call reads the folders, the next one watches them, and from
    // the third on nothing is read while nothing is reported.
    let settled = || {
        let result = call();
        assert!(Arc::ptr_eq(&result, &call()));
        assert!(Arc::ptr_eq(&result, &call()));
        assert_eq!(shown(&result), shown(&s.uncached()));
        result
    };
    let seen = |before: &[DiscoveredSession], what: &str| {
        let after = call();
        assert_ne!(shown(before), shown(&after), "{what}: not seen");
        assert_eq!(shown(&after), shown(&s.uncached()), "{what}");
    };

    let before = settled();
    append_response(&s.main_file());
    seen(&before, "a line appended to a main transcript");

    let before = settled();
    append_response(&agent);
    seen(&before, "a line appended to a subagent transcript");

    let before = settled();
    set_mtime(&s.main_file(), SystemTime::now() + Duration::from_secs(60));
    seen(&before, "a transcript touched");

    // Something written in the folders that is no transcript: their
    // transcripts are stat'ed again, none changed, and the result stands,
    // vouched for again.
    let notes = subagents.join("notes.txt");
    fs::write(&notes, "first").unwrap();
    let before = settled();
    fs::write(&notes, "second").unwrap();
    assert!(Arc::ptr_eq(&before, &call()), "no transcript changed");
    assert!(Arc::ptr_eq(&before, &call()), "nothing reported since");
    append_response_as(&agent, "later");
    seen(&before, "a line appended after that");

    // More files written at once than the monitor keeps the names of:
    // every file of the folder is stat'ed again.
    let many: Vec<_> = (0..40)
        .map(|i| subagents.join(format!("notes-{i}.txt")))
        .collect();
    for file in &many {
        fs::write(file, "first").unwrap();
    }
    let before = settled();
    append_response_as(&agent, "amid-many");
    for file in &many {
        fs::write(file, "second").unwrap();
    }
    seen(&before, "a line appended amid many other writes");

    // A session without subagents: its `subagents` folder is looked for on
    // every call, since no watched folder reports its creation.
    let other = "00000000-0000-4000-8000-000000000001";
    fs::copy(s.main_file(), project.join(format!("{other}.jsonl"))).unwrap();
    fs::create_dir(project.join(other)).unwrap();
    let before = settled();
    let other_subagents = project.join(other).join("subagents");
    fs::create_dir(&other_subagents).unwrap();
    fs::copy(
        &agent,
        other_subagents.join("agent-a0000000000000001.jsonl"),
    )
    .unwrap();
    seen(
        &before,
        "a subagents folder created in an unwatched session folder",
    );

    // The folders above the project folder are not watched: a project
    // folder put in place of another is noticed by its identity.
    let before = settled();
    let moved = s.config.join("projects-before");
    fs::rename(&projects, &moved).unwrap();
    copy_dir(&moved, &projects);
    fs::remove_file(project.join(format!("{other}.jsonl"))).unwrap();
    seen(&before, "the project folder replaced along with its parent");

    let before = settled();
    fs::remove_dir_all(&subagents).unwrap();
    seen(&before, "a subagents folder removed");

    // A transcript that is a symbolic link: its target's folder is not
    // watched.
    let target = s.config.join("kept-elsewhere.jsonl");
    fs::copy(s.main_file(), &target).unwrap();
    std::os::unix::fs::symlink(
        &target,
        project.join("00000000-0000-4000-8000-000000000002.jsonl"),
    )
    .unwrap();
    let before = settled();
    append_response(&target);
    seen(&before, "a line appended to a symbolic link's target");

    // A registry session whose transcript is not in the repository's
    // folders is looked for on every call, in every project folder (it may
    // have been resumed from elsewhere), and found when it appears there.
    let registry = Registry::new(s.config.parent().unwrap().join("state"));
    registry
        .save(
            "main",
            REPO,
            other,
            &SaveMeta::default(),
            "2026-01-02T03:04:05.000Z",
        )
        .unwrap();
    let elsewhere = projects.join("-home-USER-projects-elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    let before = settled();
    let resumed = elsewhere.join(format!("{other}.jsonl"));
    fs::copy(s.main_file(), &resumed).unwrap();
    seen(
        &before,
        "a registry session's transcript written in another project folder",
    );
    let before = settled();
    append_response(&resumed);
    seen(
        &before,
        "a line appended to a transcript outside the repository's folders",
    );
}
