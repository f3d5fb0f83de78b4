//! Deterministic time and id generation.
//!
//! The clock starts at 2026-01-01T00:00:00.000Z and moves forward exactly one
//! millisecond per reading, so every timestamp the agent hands out is distinct
//! and ordered. Ids come from per-kind counters.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Serialize, Serializer};

/// 2026-01-01T00:00:00.000Z in milliseconds since the Unix epoch.
pub const START_MILLIS: u64 = 1_767_225_600_000;

/// A point in time with millisecond precision (milliseconds since the Unix epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub u64);

impl Timestamp {
    /// Parses an RFC 3339 timestamp (`Z` or a numeric offset); sub-millisecond digits are dropped.
    pub fn parse_rfc3339(text: &str) -> Option<Timestamp> {
        let (utc, offset_minutes) = split_offset(text)?;
        let time = humantime::parse_rfc3339(&utc).ok()?;
        let millis = i128::try_from(time.duration_since(UNIX_EPOCH).ok()?.as_millis()).ok()?;
        let millis = millis - i128::from(offset_minutes) * 60_000;
        u64::try_from(millis).ok().map(Timestamp)
    }

    fn system_time(self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.0)
    }
}

/// Splits a trailing `±HH:MM` offset off `text`, returning the UTC form (`...Z`)
/// and the offset in minutes.
fn split_offset(text: &str) -> Option<(String, i32)> {
    if let Some(stripped) = text.strip_suffix(['Z', 'z']) {
        return Some((format!("{stripped}Z"), 0));
    }
    let split = text.len().checked_sub(6)?;
    let (head, offset) = (text.get(..split)?, text.get(split..)?);
    let sign = match offset.as_bytes() {
        [b'+', h1, h2, b':', m1, m2] | [b'-', h1, h2, b':', m1, m2]
            if [h1, h2, m1, m2].iter().all(|b| b.is_ascii_digit()) =>
        {
            let hours = i32::from(h1 - b'0') * 10 + i32::from(h2 - b'0');
            let minutes = i32::from(m1 - b'0') * 10 + i32::from(m2 - b'0');
            let sign = if offset.starts_with('-') { -1 } else { 1 };
            sign * (hours * 60 + minutes)
        }
        _ => return None,
    };
    Some((format!("{head}Z"), sign))
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&humantime::format_rfc3339_millis(self.system_time()), f)
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A clock that advances by exactly one millisecond on every reading.
#[derive(Debug, Clone)]
pub struct Clock {
    next: u64,
}

impl Default for Clock {
    fn default() -> Self {
        Clock::starting_at(Timestamp(START_MILLIS))
    }
}

impl Clock {
    /// A clock whose first reading is `start`.
    pub fn starting_at(start: Timestamp) -> Self {
        Clock { next: start.0 }
    }

    /// Reads the clock, then moves it forward by one millisecond.
    pub fn now(&mut self) -> Timestamp {
        let now = Timestamp(self.next);
        self.next += 1;
        now
    }
}

/// Counters for every kind of id the agent generates.
#[derive(Debug, Clone, Default)]
pub struct Ids {
    task: u64,
    context: u64,
    message: u64,
    page: u64,
    sequence: u64,
}

fn next(counter: &mut u64, prefix: &str) -> String {
    *counter += 1;
    format!("{prefix}-{counter:06}")
}

impl Ids {
    /// `task-000001`, `task-000002`, ...
    pub fn task(&mut self) -> String {
        next(&mut self.task, "task")
    }

    /// `ctx-000001`, ...
    pub fn context(&mut self) -> String {
        next(&mut self.context, "ctx")
    }

    /// `msg-000001`, ...
    pub fn message(&mut self) -> String {
        next(&mut self.message, "msg")
    }

    /// Opaque ListTasks page tokens.
    pub fn page_token(&mut self) -> String {
        next(&mut self.page, "page")
    }

    /// A creation sequence number (orders tasks created in the same millisecond).
    pub fn sequence(&mut self) -> u64 {
        self.sequence += 1;
        self.sequence
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn clock_starts_in_2026_and_ticks_one_milli() {
        let mut clock = Clock::default();
        assert_eq!(clock.now().to_string(), "2026-01-01T00:00:00.000Z");
        assert_eq!(clock.now().to_string(), "2026-01-01T00:00:00.001Z");
    }

    #[test]
    fn ids_are_zero_padded_counters() {
        let mut ids = Ids::default();
        assert_eq!(ids.task(), "task-000001");
        assert_eq!(ids.task(), "task-000002");
        assert_eq!(ids.context(), "ctx-000001");
        assert_eq!(ids.message(), "msg-000001");
    }

    #[test]
    fn parses_rfc3339_with_offsets() {
        let start = Timestamp(START_MILLIS);
        assert_eq!(
            Timestamp::parse_rfc3339("2026-01-01T00:00:00Z"),
            Some(start)
        );
        assert_eq!(
            Timestamp::parse_rfc3339("2026-01-01T00:00:00.000Z"),
            Some(start)
        );
        assert_eq!(
            Timestamp::parse_rfc3339("2026-01-01T01:00:00+01:00"),
            Some(start)
        );
        assert_eq!(
            Timestamp::parse_rfc3339("2025-12-31T23:30:00-00:30"),
            Some(start)
        );
        assert_eq!(
            Timestamp::parse_rfc3339("2026-01-01T00:00:00.0015Z"),
            Some(Timestamp(START_MILLIS + 1))
        );
        for bad in [
            "",
            "yesterday",
            "2026-01-01",
            "2026-13-01T00:00:00Z",
            "2026-01-01T00:00:00+1:00",
            "2026-01-01T00:00:00é0Z",
        ] {
            assert_eq!(Timestamp::parse_rfc3339(bad), None, "{bad}");
        }
    }
}
