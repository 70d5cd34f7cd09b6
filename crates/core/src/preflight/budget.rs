//! The pre-flight's time: the budget a host gives the whole pre-flight
//! (it lets the spawn go ahead unbriefed past it) and the shares of it that
//! the two reads and the checkout whose time the pre-flight does not
//! control may take.

use std::time::Duration;

/// The budget a host gives the pre-flight unless configured otherwise.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(3);

/// The shortest share: a budget of a millisecond still waits that long.
const SHORTEST: Duration = Duration::from_millis(1);

/// How long the working tree's status is waited for within `budget`:
/// three quarters of it, so that a huge work tree's status is left out of
/// the briefing rather than the whole briefing.
pub fn status_share(budget: Duration) -> Duration {
    (budget * 3 / 4).max(SHORTEST)
}

/// How long making a spawn's worktree may take within `budget`, counted
/// from the pre-flight's start: three quarters of it, so that a checkout
/// that does not fit ends (and is undone) while the pre-flight can still
/// answer with the busy guard inside its budget.
pub fn isolation_share(budget: Duration) -> Duration {
    (budget * 3 / 4).max(SHORTEST)
}

/// How long `gh` may take within `budget`: as `asked`, at most half of it.
pub fn github_share(asked: Duration, budget: Duration) -> Duration {
    asked.min(budget / 2).max(SHORTEST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_and_the_worktree_get_three_quarters_and_gh_at_most_half() {
        let ms = Duration::from_millis;
        assert_eq!(status_share(DEFAULT_BUDGET), ms(2250));
        assert_eq!(isolation_share(DEFAULT_BUDGET), ms(2250));
        assert_eq!(isolation_share(ms(1)), ms(1));
        assert_eq!(github_share(ms(1500), DEFAULT_BUDGET), ms(1500));
        assert_eq!(github_share(ms(1500), ms(2000)), ms(1000));
        assert_eq!(github_share(ms(100), ms(14_000)), ms(100));
        assert_eq!(status_share(ms(1)), ms(1));
        assert_eq!(github_share(ms(1500), ms(1)), ms(1));
        assert_eq!(github_share(Duration::ZERO, ms(3000)), ms(1));
    }
}
