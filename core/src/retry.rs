//! How store calls are retried: a short, capped exponential pause.

use std::time::Duration;

/// Pause after failed store attempt `n` (1-based): 20 ms, 40 ms, 80 ms …
/// capped at 500 ms.
pub(crate) fn backoff(attempt: u32) -> Duration {
    Duration::from_millis((20u64 << attempt.saturating_sub(1).min(5)).min(500))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        assert_eq!(backoff(1), Duration::from_millis(20));
        assert_eq!(backoff(2), Duration::from_millis(40));
        assert_eq!(backoff(30), Duration::from_millis(500));
    }
}
