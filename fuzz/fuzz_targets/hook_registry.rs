//! Hook registry validation and the settings merge: never panic, and a
//! registry with problems is never resolved into settings.
#![no_main]

use libfuzzer_sys::fuzz_target;
use session_intel_core::hooks::settings::{resolve_hook_settings, validate_hook_registry};

fuzz_target!(|data: &[u8]| {
    let Ok(registry) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let problems = validate_hook_registry(&registry);
    for agent in ["main", "ops", ""] {
        let settings = resolve_hook_settings(&registry, agent);
        if !problems.is_empty() {
            assert!(settings.is_err(), "an invalid registry resolved");
        }
    }
});
