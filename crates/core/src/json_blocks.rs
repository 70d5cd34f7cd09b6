//! Finding where a JSON string or container ends, 64 bytes at a time.
//!
//! Transcript lines hold long strings full of escapes (code, tool output), so
//! stopping at every quote is slow. Instead each 64-byte block is turned into
//! bit masks (quotes, backslashes, brackets); escaped quotes are removed with
//! the odd-length-backslash-run trick, string interiors found with a prefix
//! XOR, and only the brackets outside strings are looked at one by one.
//! Once a whole block lies inside one string (tool output, file contents),
//! the rest of that string is found by a lighter loop that looks only for
//! its closing quote.
//!
//! Kernels do the per-block work: a portable one (SSE2 on x86_64, which
//! every x86_64 CPU has; elsewhere plain code the compiler vectorises), and
//! on x86_64 CPUs that have them, AVX2 compares of 32 bytes or AVX-512BW
//! compares of 64 bytes straight into bit masks, with a carry-less
//! multiplication for the prefix XOR. The fastest one the CPU runs is chosen
//! once, at the first search.

const BLOCK: usize = 64;
const EVEN_BITS: u64 = 0x5555_5555_5555_5555;

/// Bit masks of one block.
struct Masks {
    quote: u64,
    backslash: u64,
    open: u64,
    close: u64,
    /// Raw newlines (computed by the compiler only where they are read).
    newline: u64,
}

/// How a block becomes [`Masks`], and how string interiors are found.
trait Kernel {
    fn masks(block: &[u8; BLOCK]) -> Masks;
    /// Bit `i` is set when an odd number of bits `0..=i` of `x` are.
    fn prefix_xor(x: u64) -> u64;
}

/// What every CPU of the target can run.
struct Portable;

impl Kernel for Portable {
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn masks(block: &[u8; BLOCK]) -> Masks {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86_64 baseline; loads are unaligned
        // and stay within the 64-byte array.
        unsafe {
            let eq = |v: __m128i, c: u8| {
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8))) as u16 as u64
            };
            let bit5 = _mm_set1_epi8(0x20);
            let (mut quote, mut backslash, mut open, mut close, mut newline) = (0, 0, 0, 0, 0);
            for i in 0..4 {
                let v = _mm_loadu_si128(block.as_ptr().add(16 * i) as *const __m128i);
                let folded = _mm_or_si128(v, bit5);
                quote |= eq(v, b'"') << (16 * i);
                backslash |= eq(v, b'\\') << (16 * i);
                open |= eq(folded, b'{') << (16 * i);
                close |= eq(folded, b'}') << (16 * i);
                newline |= eq(v, b'\n') << (16 * i);
            }
            Masks {
                quote,
                backslash,
                open,
                close,
                newline,
            }
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn masks(block: &[u8; BLOCK]) -> Masks {
        let (mut quote, mut backslash, mut open, mut close, mut newline) = (0, 0, 0, 0, 0);
        for (i, &b) in block.iter().enumerate() {
            quote |= ((b == b'"') as u64) << i;
            backslash |= ((b == b'\\') as u64) << i;
            // `{` 0x7B / `[` 0x5B and `}` 0x7D / `]` 0x5D differ only in bit 5.
            open |= (((b | 0x20) == b'{') as u64) << i;
            close |= (((b | 0x20) == b'}') as u64) << i;
            newline |= ((b == b'\n') as u64) << i;
        }
        Masks {
            quote,
            backslash,
            open,
            close,
            newline,
        }
    }

    #[inline(always)]
    fn prefix_xor(mut x: u64) -> u64 {
        x ^= x << 1;
        x ^= x << 2;
        x ^= x << 4;
        x ^= x << 8;
        x ^= x << 16;
        x ^= x << 32;
        x
    }
}

/// Defines, in a kernel's module, the two searches compiled for
/// `$features` (callable only when `available()`, which checks for them
/// with `$detect`), and for the tests their table.
#[cfg(target_arch = "x86_64")]
macro_rules! searches_compiled_for {
    ($kernel:ident, $name:literal, $features:literal, $detect:block) => {
        /// Whether this CPU has what the searches below are compiled for
        /// (detected once, then cached).
        #[inline]
        pub fn available() -> bool {
            $detect
        }

        /// [`super::string_rest`] with this kernel.
        #[target_feature(enable = $features)]
        pub fn string_rest<const IN_LINE: bool>(buf: &[u8], p: usize) -> Option<usize> {
            super::string_rest::<$kernel, IN_LINE>(buf, p)
        }

        /// [`super::container_end_with`] with this kernel.
        #[target_feature(enable = $features)]
        pub fn container_end<const IN_LINE: bool>(buf: &[u8], start: usize) -> Option<usize> {
            super::container_end_with::<$kernel, IN_LINE>(buf, start)
        }

        /// This kernel's searches, when this CPU runs them.
        #[cfg(test)]
        pub fn searches() -> Option<super::tests::Searches> {
            // SAFETY (of each call below): handed out only when this CPU
            // has the features the searches are compiled for.
            available().then_some(super::tests::Searches {
                name: $name,
                string_rest: [
                    |buf, p| unsafe { string_rest::<false>(buf, p) },
                    |buf, p| unsafe { string_rest::<true>(buf, p) },
                ],
                container_end: [
                    |buf, start| unsafe { container_end::<false>(buf, start) },
                    |buf, start| unsafe { container_end::<true>(buf, start) },
                ],
            })
        }
    };
}
#[cfg(target_arch = "x86_64")]
use searches_compiled_for;

/// Returns `$search::<$in_line>($buf, $at)` of the fastest kernel this CPU
/// runs, else `$portable` (the same search with the portable kernel).
macro_rules! with_fastest_kernel {
    ($search:ident::<$in_line:ident>($buf:expr, $at:expr), $portable:expr) => {{
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: each is called only on a CPU that has the features it
            // is compiled for.
            if avx512::available() {
                return unsafe { avx512::$search::<$in_line>($buf, $at) };
            }
            if avx2::available() {
                return unsafe { avx2::$search::<$in_line>($buf, $at) };
            }
        }
        $portable
    }};
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Kernel, Masks, BLOCK};
    use std::arch::x86_64::*;

    /// AVX2 and PCLMULQDQ. Only ever inlined into the searches compiled
    /// for them, which are only called when [`available`].
    pub struct Avx2;

    super::searches_compiled_for!(Avx2, "avx2", "avx2,pclmulqdq", {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("pclmulqdq")
    });

    impl Kernel for Avx2 {
        #[inline(always)]
        fn masks(block: &[u8; BLOCK]) -> Masks {
            // SAFETY: called only from code compiled for AVX2 on a CPU that
            // has it; loads are unaligned and stay within the array.
            unsafe {
                let eq = |v: __m256i, c: u8| {
                    _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8))) as u32
                        as u64
                };
                let bit5 = _mm256_set1_epi8(0x20);
                let lo = _mm256_loadu_si256(block.as_ptr() as *const __m256i);
                let hi = _mm256_loadu_si256(block.as_ptr().add(32) as *const __m256i);
                let both = |v: __m256i, w: __m256i, c: u8| eq(v, c) | eq(w, c) << 32;
                let (flo, fhi) = (_mm256_or_si256(lo, bit5), _mm256_or_si256(hi, bit5));
                Masks {
                    quote: both(lo, hi, b'"'),
                    backslash: both(lo, hi, b'\\'),
                    open: both(flo, fhi, b'{'),
                    close: both(flo, fhi, b'}'),
                    newline: both(lo, hi, b'\n'),
                }
            }
        }

        #[inline(always)]
        fn prefix_xor(x: u64) -> u64 {
            // SAFETY: as for `masks`, with PCLMULQDQ. Multiplying by all
            // ones without carries XORs every bit into all higher ones.
            unsafe {
                let product =
                    _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1), 0);
                _mm_cvtsi128_si64(product) as u64
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{avx2::Avx2, Kernel, Masks, BLOCK};
    use std::arch::x86_64::*;

    /// AVX-512BW and PCLMULQDQ: one compare per character class gives the
    /// block's mask directly. Only ever inlined into the searches compiled
    /// for them, which are only called when [`available`].
    pub struct Avx512;

    super::searches_compiled_for!(Avx512, "avx512", "avx512f,avx512bw,pclmulqdq", {
        std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("pclmulqdq")
    });

    impl Kernel for Avx512 {
        #[inline(always)]
        fn masks(block: &[u8; BLOCK]) -> Masks {
            // SAFETY: called only from code compiled for AVX-512BW on a CPU
            // that has it; the load is unaligned and covers the array.
            unsafe {
                let v = _mm512_loadu_si512(block.as_ptr() as *const __m512i);
                let folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
                let eq = |v: __m512i, c: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(c as i8));
                Masks {
                    quote: eq(v, b'"'),
                    backslash: eq(v, b'\\'),
                    open: eq(folded, b'{'),
                    close: eq(folded, b'}'),
                    newline: eq(v, b'\n'),
                }
            }
        }

        #[inline(always)]
        fn prefix_xor(x: u64) -> u64 {
            Avx2::prefix_xor(x)
        }
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
    fn strings<K: Kernel>(&mut self, quotes: u64) -> u64 {
        let inside = K::prefix_xor(quotes) ^ self.in_string;
        self.in_string = ((inside as i64) >> 63) as u64;
        inside
    }
}

/// The 64 bytes of `buf` from `pos`; past its end, `padded` holding what
/// is left of it and spaces.
#[inline(always)]
fn block_at<'b>(buf: &'b [u8], pos: usize, padded: &'b mut [u8; BLOCK]) -> &'b [u8; BLOCK] {
    match buf.get(pos..pos + BLOCK) {
        Some(b) => b.try_into().expect("64 bytes"),
        None => {
            let rest = buf.get(pos..).unwrap_or_default();
            *padded = [b' '; BLOCK];
            padded[..rest.len()].copy_from_slice(rest);
            padded
        }
    }
}

/// Calls `visit(block_start, masks_and_string_bits)` for each 64-byte block
/// from `start`; the last block is padded with spaces. Stops when `visit`
/// returns `Some`.
#[inline(always)]
fn blocks<K: Kernel, T>(
    buf: &[u8],
    start: usize,
    carry: &mut Carry,
    mut visit: impl FnMut(usize, &Masks, u64, u64) -> Option<T>,
) -> Option<T> {
    let mut pos = start;
    let mut padded = [b' '; BLOCK];
    while pos < buf.len() {
        let m = K::masks(block_at(buf, pos, &mut padded));
        let escaped = carry.escaped(m.backslash);
        let quotes = m.quote & !escaped;
        let inside = carry.strings::<K>(quotes);
        if let Some(found) = visit(pos, &m, quotes, inside) {
            return Some(found);
        }
        pos += BLOCK;
    }
    None
}

/// Given `buf[start] == b'"'`, the index just past the closing quote.
/// `IN_LINE`: the string must end before the next raw newline (`buf` runs on
/// past the end of the line being read), `None` when one comes first.
///
/// Short strings (keys, times) end within a 32-byte window, and ids (a
/// UUID is 36 bytes) within the next one when the first held no escape;
/// longer ones at the first quote `memchr` finds; a string that has shown a
/// few escaped quotes is finished block by block.
#[inline(always)]
pub fn string_end<const IN_LINE: bool>(buf: &[u8], start: usize) -> Option<usize> {
    match short_string_end::<IN_LINE>(buf, start + 1) {
        Short::Ends(end) => Some(end),
        Short::NewlineFirst => None,
        Short::Plain => string_end_past_window::<IN_LINE>(buf, start + 1 + SHORT),
        Short::Unsettled => long_string_end::<IN_LINE>(buf, start + 1),
    }
}

/// [`string_end`] for a string whose first window was plain, from `p` just
/// after it: one more window (ids end there), then the long way. Kept out
/// of line, as [`long_string_end`] is.
#[inline(never)]
fn string_end_past_window<const IN_LINE: bool>(buf: &[u8], p: usize) -> Option<usize> {
    match short_string_end::<IN_LINE>(buf, p) {
        Short::Ends(end) => Some(end),
        Short::NewlineFirst => None,
        Short::Plain | Short::Unsettled => long_string_end::<IN_LINE>(buf, p),
    }
}

/// [`string_end`] for what a short window does not settle, from `p` inside
/// the string with no escape pending (kept out of line, so the short path
/// inlines into its callers).
#[inline(never)]
fn long_string_end<const IN_LINE: bool>(buf: &[u8], mut p: usize) -> Option<usize> {
    for _ in 0..4 {
        let q = p + if IN_LINE {
            memchr::memchr2(b'"', b'\n', &buf[p..]).filter(|&i| buf[p + i] == b'"')?
        } else {
            memchr::memchr(b'"', &buf[p..])?
        };
        if !ends_escaping(&buf[p..q]) {
            return Some(q + 1);
        }
        p = q + 1;
    }
    with_fastest_kernel!(
        string_rest::<IN_LINE>(buf, p),
        string_rest::<Portable, IN_LINE>(buf, p)
    )
}

/// Whether string bytes `text` end in an odd run of backslashes, which
/// escapes the byte after them.
#[inline(always)]
fn ends_escaping(text: &[u8]) -> bool {
    text.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

/// What a short window says about a string.
enum Short {
    /// It ends just before this index.
    Ends(usize),
    /// A raw newline comes before its end (asked for only within a line).
    NewlineFirst,
    /// The whole window lies inside the string, without a backslash: it
    /// goes on after the window, with no escape pending.
    Plain,
    /// The window does not say: the long way.
    Unsettled,
}

/// The window of [`short_string_end`].
const SHORT: usize = 32;

/// The end of a string whose interior starts at `p`, when a quote closes it
/// within the next 32 bytes and no backslash (nor, within a line, newline)
/// comes before that quote. Most strings of a line (keys, times, short
/// values) end here, in a few compares, without a call. (A 64-byte window,
/// for ids and paths too, measured slower: most strings are short.)
#[inline(always)]
fn short_string_end<const IN_LINE: bool>(buf: &[u8], p: usize) -> Short {
    let Some(window) = buf
        .get(p..p + SHORT)
        .and_then(|w| <&[u8; SHORT]>::try_from(w).ok())
    else {
        return Short::Unsettled;
    };
    let (quote, backslash, newline) = short_masks(window);
    let before_quote = (quote & quote.wrapping_neg()).wrapping_sub(1);
    if IN_LINE && newline & before_quote != 0 {
        Short::NewlineFirst
    } else if quote != 0 && backslash & before_quote == 0 {
        Short::Ends(p + quote.trailing_zeros() as usize + 1)
    } else if quote | backslash == 0 {
        // (Within a line, a newline here was found just above.)
        Short::Plain
    } else {
        Short::Unsettled
    }
}

/// Quote, backslash and newline bits of 32 bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn short_masks(window: &[u8; 32]) -> (u32, u32, u32) {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86_64 baseline; the loads are unaligned
    // and stay within the 32-byte array.
    unsafe {
        let (mut quote, mut backslash, mut newline) = (0u32, 0u32, 0u32);
        for i in 0..2 {
            let v = _mm_loadu_si128(window.as_ptr().add(16 * i) as *const __m128i);
            let eq = |c: u8| _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8))) as u32;
            quote |= eq(b'"') << (16 * i);
            backslash |= eq(b'\\') << (16 * i);
            newline |= eq(b'\n') << (16 * i);
        }
        (quote, backslash, newline)
    }
}

/// Quote, backslash and newline bits of 32 bytes.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn short_masks(window: &[u8; 32]) -> (u32, u32, u32) {
    let (mut quote, mut backslash, mut newline) = (0u32, 0u32, 0u32);
    for (i, &b) in window.iter().enumerate() {
        quote |= ((b == b'"') as u32) << i;
        backslash |= ((b == b'\\') as u32) << i;
        newline |= ((b == b'\n') as u32) << i;
    }
    (quote, backslash, newline)
}

/// The end of a string whose interior goes on at `p` with no escape pending
/// (just past an escaped quote, or past a block that lay inside it); within
/// a line, `None` at a raw newline.
#[inline(always)]
fn string_rest<K: Kernel, const IN_LINE: bool>(buf: &[u8], p: usize) -> Option<usize> {
    let mut carry = Carry {
        escaped: 0,
        in_string: u64::MAX,
    };
    blocks::<K, _>(buf, p, &mut carry, |pos, m, quotes, _| {
        let before_quote = (quotes & quotes.wrapping_neg()).wrapping_sub(1);
        if IN_LINE && m.newline & before_quote != 0 {
            return Some(None);
        }
        (quotes != 0).then(|| Some(pos + quotes.trailing_zeros() as usize + 1))
    })
    .flatten()
    .filter(|&end| end <= buf.len())
}

/// Calls `visit(run_start, escaped)` for 64-byte runs of the interior of a
/// JSON string (`inner`, between its quotes) that together hold all its
/// escapes, in order, where bit `i` of `escaped` is set when
/// `inner[run_start + i]` is the byte an escaping backslash escapes (the
/// odd-length backslash-run rule). Past a run without a backslash, the next
/// one starts at the next backslash: the stretch between holds no escape
/// and is not visited. The last run is padded with spaces: a backslash
/// escaping nothing, at the very end, shows as an escaped byte at
/// `inner.len()`. Stops when `visit` returns `Some`.
///
/// The backslashes of a run are found with the portable kernel's compares,
/// so an escape-dense tool output (a backslash every few bytes) is walked
/// without a search per escape; a string with few escapes is passed over
/// at `memchr` speed.
pub fn escaped_bytes<T>(inner: &[u8], mut visit: impl FnMut(usize, u64) -> Option<T>) -> Option<T> {
    let mut carry = Carry::default();
    let mut pos = 0;
    let mut padded = [b' '; BLOCK];
    let mut sparse = true;
    loop {
        if sparse && carry.escaped == 0 {
            pos += memchr::memchr(b'\\', inner.get(pos..).unwrap_or_default())?;
        } else if pos >= inner.len() && (pos > inner.len() || carry.escaped == 0) {
            return None;
        }
        let backslash = Portable::masks(block_at(inner, pos, &mut padded)).backslash;
        let escaped = carry.escaped(backslash);
        if let Some(found) = visit(pos, escaped) {
            return Some(found);
        }
        sparse = backslash == 0;
        pos += BLOCK;
    }
}

/// Given `buf[start]` is `{` or `[`, the index just past its matching close.
/// `IN_LINE`: the value must end before the next raw newline (`buf` runs on
/// past the end of the line being read), `None` when one comes first.
pub fn container_end<const IN_LINE: bool>(buf: &[u8], start: usize) -> Option<usize> {
    with_fastest_kernel!(
        container_end::<IN_LINE>(buf, start),
        container_end_with::<Portable, IN_LINE>(buf, start)
    )
}

#[inline(always)]
fn container_end_with<K: Kernel, const IN_LINE: bool>(buf: &[u8], start: usize) -> Option<usize> {
    let mut depth: usize = 0;
    let mut from = start;
    loop {
        let step = blocks::<K, _>(buf, from, &mut Carry::default(), |pos, m, _, inside| {
            let mut structural = (m.open | m.close) & !inside;
            while structural != 0 {
                let bit = structural.trailing_zeros();
                structural &= structural - 1;
                if m.open >> bit & 1 == 1 {
                    depth += 1;
                } else {
                    let Some(outer) = depth.checked_sub(1) else {
                        return Some(Step::Fails);
                    };
                    depth = outer;
                    if depth == 0 {
                        if IN_LINE && m.newline & ((1 << bit) - 1) != 0 {
                            return Some(Step::Fails);
                        }
                        return Some(Step::Ends(pos + bit as usize + 1));
                    }
                }
            }
            if IN_LINE && m.newline != 0 {
                Some(Step::Fails)
            } else {
                // A whole block inside one string: a long one (tool output,
                // file contents), finished by the lighter string loop.
                (inside == u64::MAX).then_some(Step::InLongString(pos + BLOCK))
            }
        })?;
        match step {
            Step::Ends(end) => return Some(end).filter(|&end| end <= buf.len()),
            Step::Fails => return None,
            Step::InLongString(p) => from = long_string_rest::<K, IN_LINE>(buf, p)?,
        }
    }
}

/// Where a container walk goes from one block.
enum Step {
    /// The container ends just before this index.
    Ends(usize),
    /// It does not end well: unbalanced, or (within a line) a newline first.
    Fails,
    /// The block lay inside a string that goes on at this index.
    InLongString(usize),
}

/// The end of a string that goes on at `p`, where a block that lay wholly
/// inside it ended (a backslash run at its end may escape `buf[p]`).
#[inline(always)]
fn long_string_rest<K: Kernel, const IN_LINE: bool>(buf: &[u8], p: usize) -> Option<usize> {
    let escapes_next = ends_escaping(buf.get(..p)?);
    if escapes_next && IN_LINE && buf.get(p) == Some(&b'\n') {
        return None;
    }
    string_rest::<K, IN_LINE>(buf, p + usize::from(escapes_next))
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

    /// A search from `buf[at]`: the index just past what it finds.
    type Search = fn(&[u8], usize) -> Option<usize>;

    /// One kernel's searches, each anywhere (`[0]`) and within a line (`[1]`).
    pub(super) struct Searches {
        pub name: &'static str,
        pub string_rest: [Search; 2],
        pub container_end: [Search; 2],
    }

    /// Every kernel this CPU runs, with its searches.
    fn runnable_searches() -> Vec<Searches> {
        let mut all = vec![Searches {
            name: "portable",
            string_rest: [
                string_rest::<Portable, false>,
                string_rest::<Portable, true>,
            ],
            container_end: [
                container_end_with::<Portable, false>,
                container_end_with::<Portable, true>,
            ],
        }];
        #[cfg(target_arch = "x86_64")]
        all.extend([avx2::searches(), avx512::searches()].into_iter().flatten());
        all
    }

    /// What a search within a line finds: what the search anywhere finds,
    /// unless a raw newline comes first.
    fn in_line(buf: &[u8], from: usize, end: Option<usize>) -> Option<usize> {
        end.filter(|&end| !buf[from..end].contains(&b'\n'))
    }

    #[test]
    fn matches_the_byte_at_a_time_scanner_across_block_boundaries() {
        // Backslash runs of every length, quotes, brackets and raw newlines,
        // placed so they straddle 64-byte boundaries at every offset.
        let pieces: [&[u8]; 10] = [
            b"\n",
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
            s.extend_from_slice(b" \n trailing");
            let text = String::from_utf8_lossy(&s);
            let string = slow_string_end(&s, 5);
            assert_eq!(string_end::<false>(&s, 5), string, "{text}");
            assert_eq!(string_end::<true>(&s, 5), in_line(&s, 5, string), "{text}");
            for Searches {
                name,
                string_rest: [string_rest, string_in_line],
                ..
            } in runnable_searches()
            {
                assert_eq!(string_rest(&s, 6), string, "{name}: {text}");
                assert_eq!(
                    string_in_line(&s, 6),
                    in_line(&s, 6, string),
                    "{name}: {text}"
                );
            }
            assert_container_ends_match(&s);
        }
    }

    #[test]
    fn strings_running_past_a_plain_window_end_where_the_byte_scanner_says() {
        // A plain run of every length up to past two windows, then what
        // settles or unsettles the window it ends in.
        let endings: [&[u8]; 6] = [b"\"", b"\\\"x\"", b"\\\\\"", b"\nx\"", b"\\n\"", b"x"];
        for run in 0..100 {
            for ending in endings {
                let mut s = b"{\"k\":\"".to_vec();
                s.resize(s.len() + run, b'a');
                s.extend_from_slice(ending);
                s.extend_from_slice(b",\"z\":1}\n trailing");
                let text = String::from_utf8_lossy(&s);
                let string = slow_string_end(&s, 5);
                assert_eq!(string_end::<false>(&s, 5), string, "{text}");
                assert_eq!(string_end::<true>(&s, 5), in_line(&s, 5, string), "{text}");
            }
        }
    }

    /// Every container search (dispatched and per kernel, anywhere and
    /// within a line) against the byte-at-a-time one, on the object at the
    /// start of `s`.
    fn assert_container_ends_match(s: &[u8]) {
        let text = String::from_utf8_lossy(s);
        let container = slow_container_end(s, 0);
        assert_eq!(container_end::<false>(s, 0), container, "{text}");
        assert_eq!(
            container_end::<true>(s, 0),
            in_line(s, 0, container),
            "{text}"
        );
        for Searches {
            name,
            container_end: [anywhere, within_line],
            ..
        } in runnable_searches()
        {
            assert_eq!(anywhere(s, 0), container, "{name}: {text}");
            assert_eq!(
                within_line(s, 0),
                in_line(s, 0, container),
                "{name}: {text}"
            );
        }
    }

    #[test]
    fn long_strings_resume_after_a_backslash_run_at_any_block_end() {
        // Strings long enough to cover whole blocks, with a backslash run
        // (even or odd) ending at every offset around block boundaries, and
        // then a quote, a letter or a raw newline (escaped or not).
        for filler in 50..210 {
            for run in 0..6 {
                for next in [b'"', b'x', b'\n'] {
                    let mut s = b"{\"k\":[\"".to_vec();
                    s.resize(s.len() + filler, b'a');
                    s.resize(s.len() + run, b'\\');
                    s.push(next);
                    s.extend_from_slice(b"tail\"]} \n{\"next\":1}");
                    assert_container_ends_match(&s);
                }
            }
        }
    }

    #[test]
    fn escaped_bytes_are_the_bytes_a_backslash_escapes() {
        // Backslash runs of every length at every offset around block
        // boundaries, against the byte-at-a-time walk.
        for filler in 0..140 {
            for run in 0..6 {
                for next in [b'"', b'n', b'\\'] {
                    let mut s = vec![b'a'; filler];
                    s.resize(s.len() + run, b'\\');
                    s.push(next);
                    s.extend_from_slice(br#"x\\y\"z"#);
                    for end in [s.len(), filler + run] {
                        let inner = &s[..end];
                        let mut expected = Vec::new();
                        let mut i = 0;
                        while i < inner.len() {
                            if inner[i] == b'\\' {
                                expected.push(i + 1);
                                i += 1;
                            }
                            i += 1;
                        }
                        let mut found = Vec::new();
                        escaped_bytes(inner, |pos, mut escaped| {
                            while escaped != 0 {
                                found.push(pos + escaped.trailing_zeros() as usize);
                                escaped &= escaped - 1;
                            }
                            None::<()>
                        });
                        assert_eq!(found, expected, "{}", String::from_utf8_lossy(inner));
                    }
                }
            }
        }
    }

    #[test]
    fn unterminated_values_end_nowhere() {
        assert_eq!(string_end::<false>(br#""abc"#, 0), None);
        assert_eq!(string_end::<false>(br#""abc\""#, 0), None);
        assert_eq!(container_end::<false>(br#"{"a":[1,2}"#, 0), None);
        assert_eq!(container_end::<false>(br#"{"a":"}"#, 0), None);
        assert_eq!(container_end::<false>(b"]", 0), None);
        let long = format!("\"{}\"", "x".repeat(200));
        assert_eq!(string_end::<false>(long.as_bytes(), 0), Some(202));
    }
}
