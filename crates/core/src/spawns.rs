//! The Claude Code spawns of a gateway: what the host reports of each, the
//! state that makes of it at a given moment, and the numbers by which the
//! host side tracks spawns ([`SPAWN_POLICY`]).
//!
//! The host (the OpenClaw plugin) only records facts: when it let a spawn
//! through, whether the host was seen starting it, its Claude Code session
//! once learned, and that the host reported its run ended (such a spawn is
//! no longer in flight; one whose session is not learned yet is still
//! handed over, [`InFlightSpawn::run_ended`], so that its session is found
//! by its nonce and its last writes are not taken for work). Whether a spawn in flight still counts as running is
//! decided here ([`InFlightSpawn::state`]), and what it is doing by what
//! its session shows ([`InFlightSpawn::phase`]): the one state the busy
//! guard of the pre-flight (`preflight::busy`) and the spawn outcomes
//! (`spawn_outcome`) use. A spawn whose turn has ended makes no repository
//! busy, also within its start grace.

use std::time::{Duration, SystemTime};

/// A spawn of this gateway that the host has not reported ended, as the
/// host side tracks it. [`Default`] is one the caller vouches for: seen
/// starting, with no start time.
#[derive(Debug, Clone)]
pub struct InFlightSpawn {
    /// The repository root `preflightSpawn` returned for it (else its cwd).
    pub repo_path: Option<String>,
    /// Its `cwd`.
    pub cwd: String,
    /// Its Claude Code session id, once known.
    pub claude_session_id: Option<String>,
    /// OpenClaw's child session key, once known.
    pub child_session_key: Option<String>,
    /// When the pre-flight let it through. `None`: it is
    /// [`SpawnState::Starting`] until the caller leaves it out.
    pub started_at: Option<SystemTime>,
    /// The host was seen starting it: its child session was reported, or
    /// its transcript found (default true). One never seen starting stops
    /// counting once its start grace has passed.
    pub started: bool,
    /// Its nonce (the `spawn=` pair of its origin marker), by which its
    /// transcript is found before the host has learned its session.
    pub nonce: Option<String>,
    /// The host reported its run ended (or is delivering its answer)
    /// before its Claude Code session was learned (default false): it makes
    /// no repository busy, and its session, found by its nonce, counts as
    /// ended, so that its last writes are not taken for work.
    pub run_ended: bool,
}

impl Default for InFlightSpawn {
    fn default() -> Self {
        InFlightSpawn {
            repo_path: None,
            cwd: String::new(),
            claude_session_id: None,
            child_session_key: None,
            started_at: None,
            started: true,
            nonce: None,
            run_ended: false,
        }
    }
}

/// What a spawn in flight counts as at a given moment
/// ([`InFlightSpawn::state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpawnState {
    /// Let through less than [`SpawnPolicy::start_grace`] ago: running on
    /// the host's word alone, long enough for the ACP backend to start
    /// Claude Code.
    Starting,
    /// Seen starting, its Claude Code session not learned yet: running
    /// while its session is looked for ([`SpawnPolicy::learn_for`]). A
    /// session really at work shows it by itself too (its liveness record,
    /// its transcript's writes).
    Unlearned,
    /// Seen starting, its Claude Code session known: running only while
    /// that session shows it runs, since OpenClaw reports no end of a spawn
    /// made through `POST /tools/invoke`.
    Learned,
    /// Not running: the host was never seen starting it within the start
    /// grace (a spawn OpenClaw refused through `tools.invoke` fires no
    /// hook), or its session was not learned within the learning window.
    Lapsed,
}

impl InFlightSpawn {
    /// The spawn's state at `now`, by the policy's times.
    pub fn state(&self, now: SystemTime, policy: &SpawnPolicy) -> SpawnState {
        let Some(at) = self.started_at else {
            return SpawnState::Starting;
        };
        let age = now.duration_since(at).unwrap_or_default();
        if age < policy.start_grace {
            SpawnState::Starting
        } else if !self.started {
            SpawnState::Lapsed
        } else if self.claude_session_id.is_some() {
            SpawnState::Learned
        } else if age < policy.learn_for {
            SpawnState::Unlearned
        } else {
            SpawnState::Lapsed
        }
    }
}

/// What a spawn's Claude Code session shows, for [`InFlightSpawn::phase`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SessionSignals {
    /// Its Claude Code process is alive (its liveness record).
    pub live: bool,
    /// Its transcript was written within the busy window.
    pub written_recently: bool,
    /// Its transcript's last turn has ended (a response that stopped for
    /// another reason than a tool call), written since the spawn started:
    /// the spawn has given its answer.
    pub turn_ended: bool,
}

/// What a spawn is doing: the one state of a spawn, which the busy rule
/// and the spawn outcomes use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpawnPhase {
    /// Let through, its session not at work yet (within the start grace).
    Starting,
    /// Its session is at work on its turn.
    Running,
    /// Its turn has ended; its Claude Code process lives on, waiting for a
    /// next prompt.
    Waiting,
    /// Its turn has ended and its process is gone, or the host reported
    /// it ended.
    Ended,
    /// It never started, its session stopped mid-turn, or the host
    /// reported it failed.
    Failed,
}

impl SpawnPhase {
    /// The name the binding reports.
    pub fn as_str(self) -> &'static str {
        match self {
            SpawnPhase::Starting => "starting",
            SpawnPhase::Running => "running",
            SpawnPhase::Waiting => "waiting",
            SpawnPhase::Ended => "ended",
            SpawnPhase::Failed => "failed",
        }
    }

    /// Whether a spawn in this phase makes its repository busy.
    pub fn is_busy(self) -> bool {
        matches!(self, SpawnPhase::Starting | SpawnPhase::Running)
    }
}

impl InFlightSpawn {
    /// What the spawn is doing at `now`: its turn ended since it started,
    /// or the host reported its run ended, it waits (process alive) or has
    /// ended, whatever its age; its session
    /// shows it at work (process alive, transcript just written), it runs;
    /// else its [`state`](InFlightSpawn::state) decides: starting, running
    /// while its session is looked for, else failed (its session stopped
    /// mid-turn, or never started).
    pub fn phase(
        &self,
        now: SystemTime,
        policy: &SpawnPolicy,
        session: SessionSignals,
    ) -> SpawnPhase {
        if session.turn_ended || self.run_ended {
            return if session.live {
                SpawnPhase::Waiting
            } else {
                SpawnPhase::Ended
            };
        }
        if session.live || session.written_recently {
            return SpawnPhase::Running;
        }
        match self.state(now, policy) {
            SpawnState::Starting => SpawnPhase::Starting,
            SpawnState::Unlearned => SpawnPhase::Running,
            SpawnState::Learned | SpawnState::Lapsed => SpawnPhase::Failed,
        }
    }
}

/// The numbers by which the host side tracks its spawns; the one value is
/// [`SPAWN_POLICY`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpawnPolicy {
    /// How long after the pre-flight let it through a spawn counts as
    /// running on the host's word alone ([`SpawnState::Starting`]); also how
    /// long a spawn the host has not been seen starting may still be
    /// matched to a child session the host reports.
    pub start_grace: Duration,
    /// How long after its start a spawn's Claude Code session is looked for
    /// (by the nonce in its transcript); a spawn seen starting whose session
    /// is not learned by then no longer counts as running.
    pub learn_for: Duration,
    /// How often the sessions not learned yet are looked for.
    pub learn_every: Duration,
    /// How long before a spawn's start its transcript may have been
    /// written (clock and timestamp granularity), when it is looked for.
    pub lookup_slack: Duration,
    /// How long after its start a spawn is forgotten whatever it shows.
    pub forget_after: Duration,
    /// How many sessions of ended spawns are remembered as ended (their
    /// last writes are no sign of a session running now).
    pub finished_kept: usize,
}

/// The spawn tracking numbers.
pub const SPAWN_POLICY: SpawnPolicy = SpawnPolicy {
    start_grace: Duration::from_secs(60),
    learn_for: Duration::from_secs(15 * 60),
    learn_every: Duration::from_secs(2),
    lookup_slack: Duration::from_secs(5),
    forget_after: Duration::from_secs(24 * 3600),
    finished_kept: 200,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn spawn(age: Option<Duration>, started: bool, session: bool) -> (InFlightSpawn, SystemTime) {
        let now = SystemTime::now();
        let s = InFlightSpawn {
            cwd: "/repo".into(),
            started_at: age.map(|a| now - a),
            started,
            claude_session_id: session.then(|| "s".to_owned()),
            ..Default::default()
        };
        (s, now)
    }

    fn state(age: Option<Duration>, started: bool, session: bool) -> SpawnState {
        let (s, now) = spawn(age, started, session);
        s.state(now, &SPAWN_POLICY)
    }

    #[test]
    fn a_spawn_is_starting_within_the_grace_whatever_the_host_said() {
        let p = SPAWN_POLICY;
        for (started, session) in [(false, false), (false, true), (true, false), (true, true)] {
            assert_eq!(state(None, started, session), SpawnState::Starting);
            assert_eq!(
                state(Some(Duration::ZERO), started, session),
                SpawnState::Starting
            );
            let just_in = p.start_grace - Duration::from_millis(1);
            assert_eq!(state(Some(just_in), started, session), SpawnState::Starting);
        }
    }

    #[test]
    fn past_the_grace_a_spawn_never_seen_starting_has_lapsed() {
        let past = SPAWN_POLICY.start_grace;
        assert_eq!(state(Some(past), false, false), SpawnState::Lapsed);
        assert_eq!(state(Some(past), false, true), SpawnState::Lapsed);
    }

    #[test]
    fn past_the_grace_a_started_spawn_is_learned_or_looked_for_until_the_window_closes() {
        let p = SPAWN_POLICY;
        assert_eq!(state(Some(p.start_grace), true, true), SpawnState::Learned);
        assert_eq!(
            state(Some(p.learn_for * 4), true, true),
            SpawnState::Learned
        );
        assert_eq!(
            state(Some(p.start_grace), true, false),
            SpawnState::Unlearned
        );
        let closing = p.learn_for - Duration::from_millis(1);
        assert_eq!(state(Some(closing), true, false), SpawnState::Unlearned);
        assert_eq!(state(Some(p.learn_for), true, false), SpawnState::Lapsed);
    }

    #[test]
    fn a_start_in_the_future_is_a_start_now() {
        let (mut s, now) = spawn(None, true, true);
        s.started_at = Some(now + Duration::from_secs(3600));
        assert_eq!(s.state(now, &SPAWN_POLICY), SpawnState::Starting);
    }

    #[test]
    fn a_spawn_whose_turn_ended_is_not_busy_even_within_its_start_grace() {
        let (s, now) = spawn(Some(Duration::ZERO), true, true);
        let ended = SessionSignals {
            turn_ended: true,
            ..Default::default()
        };
        assert_eq!(s.phase(now, &SPAWN_POLICY, ended), SpawnPhase::Ended);
        let waiting = SessionSignals {
            live: true,
            ..ended
        };
        assert_eq!(s.phase(now, &SPAWN_POLICY, waiting), SpawnPhase::Waiting);
        assert!(!SpawnPhase::Waiting.is_busy() && !SpawnPhase::Ended.is_busy());
        let quiet = SessionSignals::default();
        assert_eq!(s.phase(now, &SPAWN_POLICY, quiet), SpawnPhase::Starting);
        let later = now + SPAWN_POLICY.start_grace;
        assert_eq!(s.phase(later, &SPAWN_POLICY, quiet), SpawnPhase::Failed);
        let at_work = SessionSignals {
            live: true,
            ..quiet
        };
        assert_eq!(s.phase(later, &SPAWN_POLICY, at_work), SpawnPhase::Running);
    }

    #[test]
    fn the_windows_nest() {
        let p = SPAWN_POLICY;
        assert!(p.learn_every < p.start_grace);
        assert!(p.start_grace < p.learn_for);
        assert!(p.learn_for < p.forget_after);
    }
}
