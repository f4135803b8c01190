//! Times a reader can read: `<time>` elements that say the UTC time in words (what a page
//! without script shows) and carry the instant for the page's script, which shows it in the
//! reader's own time zone with the UTC time on hover. Also the parsing the timeline and the
//! durations need.

use super::escape::Html;

/// Milliseconds since 1970 for an ISO 8601 / RFC 3339 timestamp (`2026-11-30T08:16:33.625Z`,
/// `…+02:00`, or no zone, read as UTC); `None` for anything else.
pub(crate) fn parse_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    // Digits summed up (`str::parse` was most of this function's time, issue 14). A range that
    // cuts a character holds a byte that is not a digit, as `s.get` would have refused it.
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r)?;
        (!part.is_empty() && part.iter().all(u8::is_ascii_digit))
            .then(|| part.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut at = 19;
    let mut ms = 0;
    if b.get(at) == Some(&b'.') {
        let digits = b[at + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let frac = s.get(at + 1..at + 1 + digits.min(3))?;
        ms = frac.parse::<i64>().unwrap_or(0) * 10_i64.pow(3 - frac.len() as u32);
        at += 1 + digits;
    }
    let offset_min = match b.get(at) {
        None | Some(b'Z' | b'z') => 0,
        Some(c @ (b'+' | b'-')) => {
            let oh = num(at + 1..at + 3)?;
            let om = num(at + 4..at + 6)
                .or_else(|| num(at + 3..at + 5))
                .unwrap_or(0);
            let sign = if *c == b'+' { 1 } else { -1 };
            sign * (oh * 60 + om)
        }
        Some(_) => return None,
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + h * 3600 + mi * 60 + sec) - offset_min * 60) * 1000 + ms)
}

/// Milliseconds from `start` to `end` when both parse and `end` is later: the duration of a
/// call or a turn from the times of its first and last input lines.
pub(crate) fn span_ms(start: Option<&str>, end: Option<&str>) -> Option<u64> {
    let (s, e) = (parse_ms(start?)?, parse_ms(end?)?);
    (e > s).then(|| (e - s) as u64)
}

/// `2026-11-30 08:16:33 UTC` for milliseconds since 1970.
pub(crate) fn utc_words(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days (the inverse of the above).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    if !(0..=9999).contains(&y) {
        return format!(
            "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
            rem / 3600,
            rem % 3600 / 60,
            rem % 60
        );
    }
    // Digit by digit: `format!` with padding was a fortieth of a stream's page (issue 14).
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
    put(11, rem / 3600, 2);
    put(14, rem % 3600 / 60, 2);
    put(17, rem % 60, 2);
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

/// `850 ms`, `1.2 s`, `3 min 4 s`, `2 h 5 min`.
pub(crate) fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        let t = crate::render::ansi::tenths(ms);
        format!("{}.{} s", t / 10, t % 10)
    } else if ms < 3_600_000 {
        format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1000)
    } else {
        format!("{} h {} min", ms / 3_600_000, (ms % 3_600_000) / 60_000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_round_trip() {
        let ms = parse_ms("2026-11-30T08:16:33.625Z").unwrap();
        assert_eq!(utc_words(ms), "2026-11-30 08:16:33 UTC");
        assert_eq!(ms % 1000, 625);
        assert_eq!(parse_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_ms("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(parse_ms("2024-02-29T12:00:00"), Some(1_709_208_000_000));
        assert_eq!(parse_ms("yesterday"), None);
        assert_eq!(parse_ms("2026-13-01T00:00:00Z"), None);
    }

    #[test]
    fn utc_words_are_the_formatted_ones() {
        let formatted = |ms: i64| {
            let secs = ms.div_euclid(1000);
            let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
            let (y, m, d) = civil(days);
            format!(
                "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
                rem / 3600,
                rem % 3600 / 60,
                rem % 60
            )
        };
        for ms in [
            0,
            1_709_208_000_000,
            parse_ms("2026-11-30T08:16:33.625Z").unwrap(),
            parse_ms("9999-12-31T23:59:59Z").unwrap(),
            parse_ms("9999-12-31T23:59:59-01:00").unwrap(),
            parse_ms("0000-01-01T00:00:00+01:00").unwrap(),
            -1,
            253_402_300_799_999,
        ] {
            assert_eq!(utc_words(ms), formatted(ms), "{ms}");
        }
    }

    /// The civil date of a day count, written out again for the test.
    fn civil(days: i64) -> (i64, i64, i64) {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        (yoe + era * 400 + i64::from(m <= 2), m, d)
    }

    #[test]
    fn durations_in_words() {
        assert_eq!(duration(850), "850 ms");
        assert_eq!(duration(1200), "1.2 s");
        assert_eq!(duration(184_000), "3 min 4 s");
        assert_eq!(duration(7_500_000), "2 h 5 min");
    }
}
