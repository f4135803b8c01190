//! Instants as the logs write them and as scribe writes them back, through `jiff`: one place for
//! the calendar, so that no layer does date arithmetic of its own.

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::Offset;

/// Milliseconds since 1970 for an RFC 3339 / ISO 8601 timestamp (`2026-11-30T08:16:33.625Z`,
/// `…+02:00`, or no offset, read as UTC); `None` for anything else.
pub(crate) fn parse_ms(s: &str) -> Option<i64> {
    if let Ok(ts) = s.parse::<Timestamp>() {
        return Some(ts.as_millisecond());
    }
    let civil: DateTime = s.parse().ok()?;
    Offset::UTC
        .to_timestamp(civil)
        .ok()
        .map(Timestamp::as_millisecond)
}

/// The UTC calendar date and time of milliseconds since 1970: year, month, day, hour, minute,
/// second; `None` outside the years -9999 to 9999.
pub(crate) fn utc_fields(ms: i64) -> Option<[i64; 6]> {
    let dt = Offset::UTC.to_datetime(Timestamp::from_millisecond(ms).ok()?);
    Some([
        i64::from(dt.year()),
        i64::from(dt.month()),
        i64::from(dt.day()),
        i64::from(dt.hour()),
        i64::from(dt.minute()),
        i64::from(dt.second()),
    ])
}

/// Milliseconds since 1970 as RFC 3339 in UTC with milliseconds (`2026-11-30T08:15:59.643Z`).
pub(crate) fn iso_millis(ms: u64) -> String {
    i64::try_from(ms)
        .ok()
        .and_then(|ms| Timestamp::from_millisecond(ms).ok())
        .map_or_else(String::new, |ts| {
            ts.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_parse_with_and_without_an_offset() {
        let ms = parse_ms("2026-11-30T08:16:33.625Z").unwrap();
        assert_eq!(ms % 1000, 625);
        assert_eq!(parse_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_ms("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(parse_ms("2024-02-29T12:00:00"), Some(1_709_208_000_000));
        assert_eq!(parse_ms("2024-02-29 12:00:00.5"), Some(1_709_208_000_500));
        assert_eq!(parse_ms("yesterday"), None);
        assert_eq!(parse_ms("2026-13-01T00:00:00Z"), None);
        assert_eq!(parse_ms("2026-02-31T00:00:00Z"), None);
    }

    #[test]
    fn fields_and_rfc3339_in_utc() {
        assert_eq!(utc_fields(0), Some([1970, 1, 1, 0, 0, 0]));
        assert_eq!(utc_fields(-1), Some([1969, 12, 31, 23, 59, 59]));
        assert_eq!(iso_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_millis(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso_millis(1_796_026_559_643), "2026-11-30T08:15:59.643Z");
    }
}
