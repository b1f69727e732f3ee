//! Parsers for the arguments several commands share.

use std::time::Duration;

/// The code of a time limit that is not a positive number of seconds.
const BAD_SECONDS: &str = "E0402";

/// A number of seconds as a duration (`--timeout`, `--solver-timeout`). Anything positive
/// is accepted; a value too large for a duration (such as `1e20`) is the longest one,
/// i.e. no limit. Never panics, unlike `Duration::from_secs_f64`.
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    let bad = || {
        format!(
            "[{BAD_SECONDS}]: a time limit must be a positive number of seconds, not `{text}` \
             (see `holi explain {BAD_SECONDS}`)"
        )
    };
    let seconds: f64 = text.trim().parse().map_err(|_| bad())?;
    if seconds.is_nan() || seconds <= 0.0 {
        return Err(bad());
    }
    Ok(Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_never_panic() {
        assert_eq!(parse_seconds("1e20"), Ok(Duration::MAX));
        assert_eq!(parse_seconds("inf"), Ok(Duration::MAX));
        assert_eq!(parse_seconds("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_seconds("1e-5"), Ok(Duration::from_micros(10)));
        for bad in ["0", "-1", "NaN", "ten", ""] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
    }
}
