//! Dates worded the way `git log --format=%ar` words them.

/// How long ago `then` was at `now` (both Unix seconds), in git's words:
/// `"3 hours ago"`, `"1 year, 2 months ago"`, `"in the future"`.
pub fn relative_date(then: i64, now: i64) -> String {
    if now < then {
        return "in the future".into();
    }
    let plural = |n: i64, unit: &str| {
        if n == 1 {
            format!("{n} {unit}")
        } else {
            format!("{n} {unit}s")
        }
    };
    let mut diff = now - then;
    if diff < 90 {
        return format!("{} ago", plural(diff, "second"));
    }
    diff = (diff + 30) / 60; // minutes
    if diff < 90 {
        return format!("{} ago", plural(diff, "minute"));
    }
    diff = (diff + 30) / 60; // hours
    if diff < 36 {
        return format!("{} ago", plural(diff, "hour"));
    }
    diff = (diff + 12) / 24; // days
    if diff < 14 {
        return format!("{} ago", plural(diff, "day"));
    }
    if diff < 70 {
        return format!("{} ago", plural((diff + 3) / 7, "week"));
    }
    if diff < 365 {
        return format!("{} ago", plural((diff + 15) / 30, "month"));
    }
    if diff < 1825 {
        let total_months = (diff * 12 * 2 + 365) / (365 * 2);
        let (years, months) = (total_months / 12, total_months % 12);
        return if months > 0 {
            format!("{}, {} ago", plural(years, "year"), plural(months, "month"))
        } else {
            format!("{} ago", plural(years, "year"))
        };
    }
    format!("{} ago", plural((diff + 183) / 365, "year"))
}

#[cfg(test)]
mod tests {
    use super::relative_date;

    #[test]
    fn words_like_git() {
        let now = 1_800_000_000;
        let ago = |s: i64| relative_date(now - s, now);
        assert_eq!(ago(0), "0 seconds ago");
        assert_eq!(ago(1), "1 second ago");
        assert_eq!(ago(89), "89 seconds ago");
        assert_eq!(ago(90), "2 minutes ago");
        assert_eq!(ago(60 * 60), "60 minutes ago");
        assert_eq!(ago(3 * 3600), "3 hours ago");
        assert_eq!(ago(35 * 3600), "35 hours ago");
        assert_eq!(ago(3 * 86400), "3 days ago");
        assert_eq!(ago(20 * 86400), "3 weeks ago");
        assert_eq!(ago(100 * 86400), "3 months ago");
        assert_eq!(ago(365 * 86400), "1 year ago");
        assert_eq!(ago(400 * 86400), "1 year, 1 month ago");
        assert_eq!(ago(3000 * 86400), "8 years ago");
        assert_eq!(relative_date(now + 10, now), "in the future");
    }
}
