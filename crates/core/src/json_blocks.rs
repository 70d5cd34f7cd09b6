//! Finding where a JSON string or container ends, 64 bytes at a time.
//!
//! Transcript lines hold long strings full of escapes (code, tool output), so
//! stopping at every quote is slow. Instead each 64-byte block is turned into
//! bit masks (quotes, backslashes, brackets); escaped quotes are removed with
//! the odd-length-backslash-run trick, string interiors found with a prefix
//! XOR, and only the brackets outside strings are looked at one by one. The
//! mask building is written so the compiler vectorises it.

const BLOCK: usize = 64;
const EVEN_BITS: u64 = 0x5555_5555_5555_5555;

/// Bit masks of one block.
struct Masks {
    quote: u64,
    backslash: u64,
    open: u64,
    close: u64,
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn masks(block: &[u8; BLOCK]) -> Masks {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86_64 baseline; loads are unaligned and
    // stay within the 64-byte array.
    unsafe {
        let eq = |v: __m128i, c: u8| {
            _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8))) as u16 as u64
        };
        let bit5 = _mm_set1_epi8(0x20);
        let (mut quote, mut backslash, mut open, mut close) = (0u64, 0u64, 0u64, 0u64);
        for i in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * i) as *const __m128i);
            let folded = _mm_or_si128(v, bit5);
            quote |= eq(v, b'"') << (16 * i);
            backslash |= eq(v, b'\\') << (16 * i);
            open |= eq(folded, b'{') << (16 * i);
            close |= eq(folded, b'}') << (16 * i);
        }
        Masks {
            quote,
            backslash,
            open,
            close,
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn masks(block: &[u8; BLOCK]) -> Masks {
    let (mut quote, mut backslash, mut open, mut close) = (0u64, 0u64, 0u64, 0u64);
    for (i, &b) in block.iter().enumerate() {
        quote |= ((b == b'"') as u64) << i;
        backslash |= ((b == b'\\') as u64) << i;
        // `{` 0x7B / `[` 0x5B and `}` 0x7D / `]` 0x5D differ only in bit 5.
        open |= (((b | 0x20) == b'{') as u64) << i;
        close |= (((b | 0x20) == b'}') as u64) << i;
    }
    Masks {
        quote,
        backslash,
        open,
        close,
    }
}

/// Carries what a block boundary cuts through: an escape and a string.
#[derive(Default)]
struct Carry {
    /// The first byte of the next block is escaped.
    escaped: u64,
    /// The next block starts inside a string (all ones) or not (zero).
    in_string: u64,
}

impl Carry {
    /// Bits of the characters escaped by a backslash (the odd-length
    /// backslash-run rule: in `\\\"` the quote is escaped, in `\\"` it is not).
    #[inline(always)]
    fn escaped(&mut self, backslash: u64) -> u64 {
        let backslash = backslash & !self.escaped;
        let follows_escape = (backslash << 1) | self.escaped;
        let odd_starts = backslash & !EVEN_BITS & !follows_escape;
        let (even_runs, overflow) = odd_starts.overflowing_add(backslash);
        self.escaped = overflow as u64;
        let invert = even_runs << 1;
        (EVEN_BITS ^ invert) & follows_escape
    }

    /// Bits inside strings (opening quote included, closing quote excluded).
    #[inline(always)]
    fn strings(&mut self, quotes: u64) -> u64 {
        let mut x = quotes;
        x ^= x << 1;
        x ^= x << 2;
        x ^= x << 4;
        x ^= x << 8;
        x ^= x << 16;
        x ^= x << 32;
        let inside = x ^ self.in_string;
        self.in_string = ((inside as i64) >> 63) as u64;
        inside
    }
}

/// Calls `visit(block_start, masks_and_string_bits)` for each 64-byte block
/// from `start`; the last block is padded with spaces. Stops when `visit`
/// returns `Some`.
#[inline(always)]
fn blocks<T>(
    buf: &[u8],
    start: usize,
    carry: &mut Carry,
    mut visit: impl FnMut(usize, &Masks, u64, u64) -> Option<T>,
) -> Option<T> {
    let mut pos = start;
    let mut padded;
    while pos < buf.len() {
        let block: &[u8; BLOCK] = match buf.get(pos..pos + BLOCK) {
            Some(b) => b.try_into().expect("64 bytes"),
            None => {
                padded = [b' '; BLOCK];
                padded[..buf.len() - pos].copy_from_slice(&buf[pos..]);
                &padded
            }
        };
        let m = masks(block);
        let escaped = carry.escaped(m.backslash);
        let quotes = m.quote & !escaped;
        let inside = carry.strings(quotes);
        if let Some(found) = visit(pos, &m, quotes, inside) {
            return Some(found);
        }
        pos += BLOCK;
    }
    None
}

/// Given `buf[start] == b'"'`, the index just past the closing quote.
///
/// Short strings (keys, ids) end at the first quote `memchr` finds; a string
/// that has shown a few escaped quotes is finished block by block.
pub fn string_end(buf: &[u8], start: usize) -> Option<usize> {
    let mut p = start + 1;
    for _ in 0..4 {
        let q = p + memchr::memchr(b'"', &buf[p..])?;
        let backslashes = buf[p..q].iter().rev().take_while(|&&b| b == b'\\').count();
        if backslashes % 2 == 0 {
            return Some(q + 1);
        }
        p = q + 1;
    }
    // `p` follows an escaped quote: inside the string, no escape pending.
    let mut carry = Carry {
        escaped: 0,
        in_string: u64::MAX,
    };
    blocks(buf, p, &mut carry, |pos, _, quotes, _| {
        (quotes != 0).then(|| pos + quotes.trailing_zeros() as usize + 1)
    })
    .filter(|&end| end <= buf.len())
}

/// Given `buf[start]` is `{` or `[`, the index just past its matching close.
pub fn container_end(buf: &[u8], start: usize) -> Option<usize> {
    let mut depth: usize = 0;
    blocks(buf, start, &mut Carry::default(), |pos, m, _, inside| {
        let mut structural = (m.open | m.close) & !inside;
        while structural != 0 {
            let bit = structural.trailing_zeros();
            structural &= structural - 1;
            if m.open >> bit & 1 == 1 {
                depth += 1;
            } else {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(Some(pos + bit as usize + 1));
                }
            }
        }
        None
    })
    .flatten()
    .filter(|&end| end <= buf.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The obvious byte-at-a-time version, to compare against.
    fn slow_string_end(buf: &[u8], start: usize) -> Option<usize> {
        let mut i = start + 1;
        while i < buf.len() {
            match buf[i] {
                b'\\' => i += 2,
                b'"' => return Some(i + 1),
                _ => i += 1,
            }
        }
        None
    }

    fn slow_container_end(buf: &[u8], start: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut i = start;
        while i < buf.len() {
            match buf[i] {
                b'"' => {
                    i = slow_string_end(buf, i)?;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        None
    }

    #[test]
    fn matches_the_byte_at_a_time_scanner_across_block_boundaries() {
        // Backslash runs of every length, quotes and brackets, placed so they
        // straddle 64-byte boundaries at every offset.
        let pieces: [&[u8]; 9] = [
            br#"\\"#,
            br#"\""#,
            br#"\\\""#,
            br#"\\\\"#,
            b"[",
            b"]",
            b"{x}",
            b"abc",
            br#""s\"t""#,
        ];
        let mut seed = 12345u64;
        for _ in 0..4000 {
            let mut s = b"{\"k\":\"".to_vec();
            let mut inner = Vec::new();
            for _ in 0..(seed % 60) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let p = pieces[(seed >> 33) as usize % pieces.len()];
                if !p.starts_with(b"\"")
                    && !p.starts_with(b"[")
                    && !p.starts_with(b"]")
                    && !p.starts_with(b"{")
                {
                    inner.extend_from_slice(p);
                }
            }
            s.extend_from_slice(&inner);
            s.extend_from_slice(b"\",\"a\":[1,{\"b\":\"]}\"}],\"c\":\"\\\\\"}");
            s.extend_from_slice(b" trailing");
            assert_eq!(
                string_end(&s, 5),
                slow_string_end(&s, 5),
                "{}",
                String::from_utf8_lossy(&s)
            );
            assert_eq!(
                container_end(&s, 0),
                slow_container_end(&s, 0),
                "{}",
                String::from_utf8_lossy(&s)
            );
        }
    }

    #[test]
    fn unterminated_values_end_nowhere() {
        assert_eq!(string_end(br#""abc"#, 0), None);
        assert_eq!(string_end(br#""abc\""#, 0), None);
        assert_eq!(container_end(br#"{"a":[1,2}"#, 0), None);
        assert_eq!(container_end(br#"{"a":"}"#, 0), None);
        assert_eq!(container_end(b"]", 0), None);
        let long = format!("\"{}\"", "x".repeat(200));
        assert_eq!(string_end(long.as_bytes(), 0), Some(202));
    }
}
