//! Times a reader can read: `<time>` elements that say the UTC time in words (what a page
//! without script shows) and carry the instant for the page's script, which shows it in the
//! reader's own time zone with the UTC time on hover. Also the parsing the timeline and the
//! durations need.

use super::escape::Html;

pub(crate) use crate::model::time::parse_ms;

/// Milliseconds from `start` to `end` when both parse and `end` is later: the duration of a
/// call or a turn from the times of its first and last input lines.
pub(crate) fn span_ms(start: Option<&str>, end: Option<&str>) -> Option<u64> {
    let (s, e) = (parse_ms(start?)?, parse_ms(end?)?);
    (e > s).then(|| (e - s) as u64)
}

/// `2026-11-30 08:16:33 UTC` for milliseconds since 1970.
pub(crate) fn utc_words(ms: i64) -> String {
    let Some([y, m, d, hh, mm, ss]) = crate::model::time::utc_fields(ms) else {
        return format!("{ms} ms since 1970 UTC");
    };
    if !(0..=9999).contains(&y) {
        return format!("{y:04}-{m:02}-{d:02} {hh:02}:{mm:02}:{ss:02} UTC");
    }
    // Digit by digit: `format!` with padding is a visible part of a stream's page.
    let mut out = [0u8; 23];
    let mut put = |at: usize, n: i64, width: usize| {
        let mut n = n;
        for k in (at..at + width).rev() {
            out[k] = b'0' + (n % 10) as u8;
            n /= 10;
        }
    };
    put(0, y, 4);
    put(5, m, 2);
    put(8, d, 2);
    put(11, hh, 2);
    put(14, mm, 2);
    put(17, ss, 2);
    for (at, c) in [(4, b'-'), (7, b'-'), (10, b' '), (13, b':'), (16, b':')] {
        out[at] = c;
    }
    out[19..].copy_from_slice(b" UTC");
    String::from_utf8_lossy(&out).into_owned()
}

/// Writes a `<time>`: the UTC time in words, the instant in `datetime` for the script. A
/// timestamp that does not parse is shown as it is.
pub(crate) fn push_time(h: &mut Html, iso: &str) {
    push_time_as(h, iso, "ts");
}

/// [`push_time`] with another class (`end`: the end of a range, shown as a time of day).
pub(crate) fn push_time_as(h: &mut Html, iso: &str, class: &'static str) {
    match parse_ms(iso) {
        Some(ms) => {
            h.raw_trusted("<time class=\"")
                .raw_trusted(class)
                .raw_trusted("\" datetime=\"")
                .attr(iso)
                .raw_trusted("\">")
                .text(&utc_words(ms))
                .raw_trusted("</time>");
        }
        None => {
            h.raw_trusted("<time class=\"")
                .raw_trusted(class)
                .raw_trusted("\">")
                .text(iso)
                .raw_trusted("</time>");
        }
    }
}

/// `850 ms`, `1.2 s`, `3 min 4 s`, `2 h 5 min`, as words of its own.
pub(crate) fn duration(ms: u64) -> String {
    let mut h = Html::default();
    push_duration(&mut h, ms);
    h.into_string()
}

/// Writes [`duration`]'s words straight into the page (a card or a turn shows one or two).
pub(crate) fn push_duration(h: &mut Html, ms: u64) -> &mut Html {
    if ms < 1000 {
        h.num(ms).raw_trusted(" ms")
    } else if ms < 60_000 {
        let t = crate::render::figures::tenths(ms);
        h.num(t / 10).raw_trusted(".").num(t % 10).raw_trusted(" s")
    } else if ms < 3_600_000 {
        h.num(ms / 60_000)
            .raw_trusted(" min ")
            .num((ms % 60_000) / 1000)
            .raw_trusted(" s")
    } else {
        h.num(ms / 3_600_000)
            .raw_trusted(" h ")
            .num((ms % 3_600_000) / 60_000)
            .raw_trusted(" min")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_words_are_the_formatted_ones() {
        let formatted = |ms: i64| {
            let [y, m, d, hh, mm, ss] = crate::model::time::utc_fields(ms).unwrap();
            format!("{y:04}-{m:02}-{d:02} {hh:02}:{mm:02}:{ss:02} UTC")
        };
        for ms in [
            0,
            1_709_208_000_000,
            parse_ms("2026-11-30T08:16:33.625Z").unwrap(),
            parse_ms("9999-12-30T21:59:59Z").unwrap(),
            parse_ms("0000-01-01T00:00:00+01:00").unwrap(),
            -1,
            253_402_207_199_999,
        ] {
            assert_eq!(utc_words(ms), formatted(ms), "{ms}");
        }
    }

    #[test]
    fn durations_in_words() {
        assert_eq!(duration(850), "850 ms");
        assert_eq!(duration(1200), "1.2 s");
        assert_eq!(duration(184_000), "3 min 4 s");
        assert_eq!(duration(7_500_000), "2 h 5 min");
    }
}
