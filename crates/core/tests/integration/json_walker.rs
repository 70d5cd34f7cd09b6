//! The selective walker must agree with a full JSON parser on every member it
//! hands out, for objects full of escapes, nesting and long strings that cross
//! its 64-byte blocks.

use serde_json::{json, Map, Value};
use session_intel_core::json_scan::{as_str, field_start, Elements, Fields};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn string(r: &mut Rng) -> String {
    const PIECES: [&str; 12] = [
        "a",
        "\"",
        "\\",
        "\\\\\"",
        "}",
        "]",
        "{[",
        "\n",
        "\u{2192}",
        "\u{1F600}",
        "x y z",
        "\t\"",
    ];
    let len = match r.below(10) {
        0 => 200 + r.below(300),
        _ => r.below(12),
    };
    (0..len)
        .map(|_| PIECES[r.below(PIECES.len() as u64) as usize])
        .collect()
}

fn value(r: &mut Rng, depth: u32) -> Value {
    match if depth > 3 { r.below(4) } else { r.below(7) } {
        0 => Value::String(string(r)),
        1 => json!(r.below(1 << 40)),
        2 => json!(r.below(2) == 0),
        3 => Value::Null,
        4 | 5 => {
            let mut m = Map::new();
            for i in 0..r.below(6) {
                m.insert(format!("k{i}{}", string(r)), value(r, depth + 1));
            }
            Value::Object(m)
        }
        _ => Value::Array((0..r.below(6)).map(|_| value(r, depth + 1)).collect()),
    }
}

#[test]
fn fields_and_elements_agree_with_serde_json() {
    let mut r = Rng(7);
    let mut checked = 0;
    for _ in 0..3000 {
        let mut obj = Map::new();
        for i in 0..1 + r.below(8) {
            obj.insert(format!("m{i}{}", string(&mut r)), value(&mut r, 0));
        }
        let text = serde_json::to_string(&Value::Object(obj.clone())).unwrap();
        let pretty = serde_json::to_string_pretty(&Value::Object(obj.clone())).unwrap();
        for text in [&text, &pretty] {
            let walked: Vec<(String, Value)> = Fields::new(text.as_bytes())
                .map(|(k, v)| {
                    let key: String = serde_json::from_slice(&[b"\"", k, b"\""].concat()).unwrap();
                    (
                        key,
                        serde_json::from_slice(v)
                            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(v))),
                    )
                })
                .collect();
            let expected: Vec<(String, Value)> =
                obj.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            assert_eq!(walked, expected, "{text}");
            checked += walked.len();
            // Lazy lookups see the same values.
            for (k, v) in &expected {
                if let Value::Array(items) = v {
                    let raw_key = serde_json::to_string(k).unwrap();
                    let raw_key = &raw_key.as_bytes()[1..raw_key.len() - 1];
                    let start = field_start(text.as_bytes(), raw_key).unwrap();
                    assert_eq!(Elements::new(start).count(), items.len());
                }
                if let Value::String(s) = v {
                    let raw = serde_json::to_string(s).unwrap();
                    assert_eq!(as_str(raw.as_bytes()).unwrap(), s.as_str());
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked} members checked");
}
