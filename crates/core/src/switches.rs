//! Environment variables that turn a feature off.

/// Whether the environment variable `name` turns a feature off (`off`, `0`,
/// `false` or `no`).
pub fn turned_off(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| matches!(v.trim(), "off" | "0" | "false" | "no"))
}
