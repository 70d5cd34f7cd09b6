//! The selective JSON walker against serde_json: on every object serde
//! accepts, the walker hands out every member, each raw value parses to
//! what serde parsed, and the string and number decoders agree with serde.
//! On anything else it must simply not panic. A walk within a line that
//! reports the object as the whole first line handed out what a walk of that
//! line alone does.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use session_intel_core::json_scan::{as_str, as_u64, value_len, Elements, Fields};
use std::collections::HashMap;

fuzz_target!(|data: &[u8]| {
    let members: Vec<(&[u8], &[u8])> = Fields::new(data).collect();
    for (_, raw) in &members {
        // A raw value is exactly one value.
        assert_eq!(value_len(raw), Some(raw.len()));
    }
    let _ = Elements::new(data).map(|e| value_len(e)).count();
    let mut in_line = Fields::in_line(data);
    let through: Vec<(&[u8], &[u8])> = in_line.by_ref().collect();
    if let Some(nl) = in_line.line_end() {
        assert_eq!(data[nl], b'\n');
        assert!(!data[..nl].contains(&b'\n'));
        let mut alone = Fields::new(&data[..nl]);
        assert_eq!(alone.by_ref().collect::<Vec<_>>(), through);
        assert!(alone.closed());
    }
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    // The last occurrence of a key wins, as in serde's map.
    let mut last: HashMap<String, &[u8]> = HashMap::new();
    for (key, raw) in &members {
        let quoted = [&b"\""[..], key, b"\""].concat();
        let key: String = serde_json::from_slice(&quoted).expect("a key serde accepted");
        last.insert(key, raw);
    }
    assert_eq!(last.len(), map.len(), "every member walked");
    for (key, value) in &map {
        let raw = last[key.as_str()];
        let alone: Value = serde_json::from_slice(raw).expect("a member value alone");
        assert_eq!(&alone, value, "member {key}");
        if let Value::String(s) = value {
            assert_eq!(as_str(raw).as_deref(), Some(s.as_str()));
        }
        if let Some(n) = value.as_u64() {
            assert_eq!(as_u64(raw), Some(n));
        }
        if let Value::Array(items) = value {
            assert_eq!(Elements::new(raw).count(), items.len());
        }
    }
});
