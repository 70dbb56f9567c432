//! How long to wait before reconnecting, for both ends of tabwire's links: the host's
//! link to the relay and the extension's native-messaging port.

use std::time::Duration;

/// Delays between reconnection attempts that double from `first` up to `max`; a
/// connection that proved healthy starts the sequence over ([`Backoff::reset`]).
/// Pure: the caller sleeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    /// A back-off whose first delay is `first` and whose delays never pass `max`.
    pub const fn new(first: Duration, max: Duration) -> Self {
        Self {
            first,
            max,
            next: first,
        }
    }

    /// The delay to wait now; the one after it is twice as long (at most `max`).
    pub fn next_delay(&mut self) -> Duration {
        let delay = self.next.min(self.max);
        self.next = delay.saturating_mul(2).min(self.max);
        delay
    }

    /// Starts over at the first delay.
    pub fn reset(&mut self) {
        self.next = self.first;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn delays_double_up_to_the_cap() {
        let mut backoff = Backoff::new(100 * MS, 1000 * MS);
        let delays: Vec<_> = (0..6).map(|_| backoff.next_delay()).collect();
        assert_eq!(
            delays,
            [100 * MS, 200 * MS, 400 * MS, 800 * MS, 1000 * MS, 1000 * MS]
        );
    }

    #[test]
    fn reset_starts_over() {
        let mut backoff = Backoff::new(500 * MS, 30_000 * MS);
        for _ in 0..10 {
            backoff.next_delay();
        }
        assert_eq!(backoff.next_delay(), 30_000 * MS);
        backoff.reset();
        assert_eq!(backoff.next_delay(), 500 * MS);
        assert_eq!(backoff.next_delay(), 1000 * MS);
    }

    #[test]
    fn no_delay_passes_the_cap_nor_overflows() {
        let mut backoff = Backoff::new(5 * MS, 3 * MS);
        assert_eq!(backoff.next_delay(), 3 * MS);
        let mut huge = Backoff::new(Duration::MAX, Duration::MAX);
        assert_eq!(huge.next_delay(), Duration::MAX);
        assert_eq!(huge.next_delay(), Duration::MAX);
    }
}
