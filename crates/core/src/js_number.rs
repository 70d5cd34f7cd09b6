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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_are_taken_and_nothing_else_is_wrapped() {
        assert_eq!(whole_number("n", 0.0).unwrap(), 0);
        assert_eq!(whole_number("n", -0.0).unwrap(), 0);
        assert_eq!(whole_number("n", 4294967295.0).unwrap(), u32::MAX);
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
}
