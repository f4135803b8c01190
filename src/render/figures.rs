//! How every view writes a figure: a count with thousands grouped, a duration in seconds.
//! One place, so that the terminal view, Markdown, the page and the totals say a number alike.

/// `12,345`. Digit by digit into a string of the right size, without a `to_string` and a push
/// per character: a page writes a count for every turn.
pub(crate) fn thousands(n: u64) -> String {
    // The digits, last first.
    let mut digits = [0u8; 20];
    let mut len = 0;
    let mut rest = n;
    loop {
        digits[len] = b'0' + (rest % 10) as u8;
        len += 1;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let mut out = String::with_capacity(len + len / 3);
    // `i`: the digits that follow this one.
    for i in (0..len).rev() {
        out.push(char::from(digits[i]));
        if i > 0 && i % 3 == 0 {
            out.push(',');
        }
    }
    out
}

/// `ms` in tenths of a second, rounded as `format!("{:.1}", ms as f64 / 1000.0)` rounds (to the
/// nearest, an exact half to even, where the quotient as a double lies), without formatting a
/// float: a page writes a time for every turn and call. Exact for `ms` below 2^53.
pub(crate) fn tenths(ms: u64) -> u64 {
    let (t, rest) = (ms / 100, ms % 100);
    let up = match rest.cmp(&50) {
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Equal => {
            // The double nearest ms / 1000 against the half: one rounding, so the sign is right.
            let off = (ms as f64 / 1000.0).mul_add(1000.0, -(ms as f64));
            if off == 0.0 { t % 2 == 1 } else { off > 0.0 }
        }
    };
    t + u64::from(up)
}

/// `1 turn`, `3 turns`: a count and its noun, plural unless the count is one.
pub(crate) fn count<N: std::fmt::Display + PartialEq + From<u8>>(n: N, noun: &str) -> String {
    let s = if n == N::from(1) { "" } else { "s" };
    format!("{n} {noun}{s}")
}

/// The pronoun for `n` things a note says an option shows: `it` or `them`.
pub(crate) fn them(n: u64) -> &'static str {
    if n == 1 { "it" } else { "them" }
}

/// `4.2s`, `3m 05s`.
pub(crate) fn seconds(ms: u64) -> String {
    if ms < 60_000 {
        let t = tenths(ms);
        format!("{}.{}s", t / 10, t % 10)
    } else {
        format!("{}m {:02}s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenths_round_as_the_float_format_does() {
        for ms in 0..120_000u64 {
            let t = tenths(ms);
            assert_eq!(
                format!("{}.{}", t / 10, t % 10),
                format!("{:.1}", ms as f64 / 1000.0),
                "{ms}"
            );
        }
    }

    #[test]
    fn thousands_are_grouped_by_three() {
        let by_chars = |n: u64| {
            let s = n.to_string();
            let mut out = String::new();
            for (i, c) in s.chars().enumerate() {
                if i > 0 && (s.len() - i) % 3 == 0 {
                    out.push(',');
                }
                out.push(c);
            }
            out
        };
        assert_eq!(thousands(12_345), "12,345");
        for n in [0, 7, 999, 1_000, 100_000, 1_234_567, 999_999_999, u64::MAX] {
            assert_eq!(thousands(n), by_chars(n), "{n}");
        }
    }
}
