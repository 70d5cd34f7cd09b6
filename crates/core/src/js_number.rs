//! Numbers that JavaScript callers give: a napi `u32` would wrap them
//! (modulo 2^32), so they arrive as `f64` and are read here.

use crate::error::{Error, ErrorCode, Result};

/// A count or percentage a caller gave as a JavaScript number: a whole
/// number from 0 to `u32::MAX`, else `E_INVALID_ARGUMENT`. A plain
/// conversion would wrap it instead (-1 to 4294967295, 1e300 to 0, which
/// removes every tool call).
pub fn whole_number(name: &str, value: f64) -> Result<u32> {
    if value.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&value) {
        Ok(value as u32)
    } else {
        Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "{name} must be a whole number from 0 to {}, not {value}",
                u32::MAX
            ),
        )
        .with_hint(format!("give {name} as a count such as 10")))
    }
}

/// [`whole_number`] of an option the caller may leave out.
pub fn optional_whole_number(name: &str, value: Option<f64>) -> Result<Option<u32>> {
    value.map(|v| whole_number(name, v)).transpose()
}

/// The delay a JavaScript timer would wait for `value` ms, as Node's
/// `setTimeout` reads it: below 1, above 2^31-1 or not a number is 1 ms,
/// and a fraction is cut off. Bounds on a host's or model's answer follow
/// it, so that a caller's -1 waits as briefly as the reference's timer
/// would, not the 49 days a wrapped u32 would.
pub fn timer_ms(value: f64) -> u64 {
    if (1.0..=2_147_483_647.0).contains(&value) {
        value as u64
    } else {
        1
    }
}

/// Where `list.slice(start)` begins in a list of `len` items, as
/// JavaScript's `Array.prototype.slice` reads `start`: a fraction is cut
/// toward zero, not-a-number is 0, a negative start counts from the end.
/// So the reference's `slice(-maxMessages)` keeps everything for 0 or NaN
/// and drops the first n items for -n; drop-in callers get the same.
pub fn slice_start(start: f64, len: usize) -> usize {
    let start = if start.is_nan() { 0.0 } else { start.trunc() };
    if start < 0.0 {
        // `len + start`, never below 0 (and -Infinity is 0 too).
        len.saturating_sub((-start).min(len as f64) as usize)
    } else {
        start.min(len as f64) as usize
    }
}

/// `value` as `JSON.stringify` writes a number: a whole number without a
/// fraction (`500`, not serde's `500.0`), any other finite number as it is,
/// and not-a-number or an infinity as `null`. A drop-in caller's value then
/// reaches an API exactly as the reference would have sent it.
pub fn to_json(value: f64) -> serde_json::Value {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if value.fract() == 0.0 && value.abs() <= EXACT {
        serde_json::Value::from(value as i64)
    } else {
        serde_json::Number::from_f64(value).map_or(serde_json::Value::Null, Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_are_taken_and_nothing_else_is_wrapped() {
        assert_eq!(whole_number("n", 0.0).unwrap(), 0);
        assert_eq!(whole_number("n", -0.0).unwrap(), 0);
        assert_eq!(whole_number("n", 4294967295.0).unwrap(), u32::MAX);
        assert_eq!(optional_whole_number("n", None).unwrap(), None);
        assert_eq!(optional_whole_number("n", Some(7.0)).unwrap(), Some(7));
        assert!(optional_whole_number("n", Some(-1.0)).is_err());
        for bad in [-1.0, 4294967296.0, 1e300, 2.5, f64::NAN, f64::INFINITY] {
            let err = whole_number("keepTurnsWithTools", bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidArgument);
            assert!(err
                .message
                .starts_with("keepTurnsWithTools must be a whole number"));
        }
    }

    #[test]
    fn timers_wait_as_long_as_nodes_would() {
        assert_eq!(timer_ms(3000.0), 3000);
        assert_eq!(timer_ms(2.9), 2);
        assert_eq!(timer_ms(2_147_483_647.0), 2_147_483_647);
        for odd in [
            -1.0,
            0.0,
            0.5,
            2_147_483_648.0,
            1e300,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert_eq!(timer_ms(odd), 1, "{odd}");
        }
    }

    #[test]
    fn slices_start_where_javascript_would() {
        let from_end = |n: f64, len: usize| slice_start(-n, len);
        assert_eq!(from_end(2.0, 5), 3);
        assert_eq!(from_end(2.9, 5), 3, "slice(-2.9) keeps 2");
        assert_eq!(from_end(9.0, 5), 0);
        assert_eq!(from_end(0.0, 5), 0, "slice(-0) keeps everything");
        assert_eq!(from_end(f64::NAN, 5), 0);
        assert_eq!(from_end(f64::INFINITY, 5), 0);
        assert_eq!(from_end(-2.0, 5), 2, "slice(2) drops the first two");
        assert_eq!(from_end(-9.0, 5), 5);
        assert_eq!(from_end(f64::NEG_INFINITY, 5), 5);
        assert_eq!(from_end(1e300, 0), 0);
    }

    #[test]
    fn numbers_are_written_as_json_stringify_writes_them() {
        let text = |v: f64| to_json(v).to_string();
        assert_eq!(text(500.0), "500");
        assert_eq!(text(-1.0), "-1");
        assert_eq!(text(-0.0), "0");
        assert_eq!(text(2.5), "2.5");
        assert_eq!(text(4294967296.0), "4294967296");
        assert!(to_json(1e300).as_f64() == Some(1e300));
        assert_eq!(text(f64::NAN), "null");
        assert_eq!(text(f64::INFINITY), "null");
    }
}
