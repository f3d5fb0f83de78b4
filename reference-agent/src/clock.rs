//! Time and id generation.
//!
//! The clock is anchored at the wall-clock time when the agent starts and is
//! strictly increasing: every reading is the later of the wall-clock time and
//! the previous reading plus one millisecond, so timestamps are realistic yet
//! distinct and ordered. Ids come from per-kind counters.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

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

    /// The current wall-clock time, truncated to the millisecond.
    pub fn wall_clock() -> Timestamp {
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Timestamp(u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX))
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

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Timestamp::parse_rfc3339(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("not an RFC 3339 timestamp: {text}")))
    }
}

/// Where the clock reads the current time from.
type Source = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// A strictly increasing clock: each reading is max(source now, previous + 1 ms).
#[derive(Clone)]
pub struct Clock {
    source: Source,
    /// The previous reading (or the anchor minus one millisecond).
    last: u64,
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Clock").field("last", &self.last).finish()
    }
}

impl Clock {
    /// The wall clock, anchored now: no reading is earlier than this moment.
    pub fn system() -> Self {
        Clock::with_source(Arc::new(Timestamp::wall_clock))
    }

    /// A clock reading `source`, anchored at its current time.
    pub fn with_source(source: Source) -> Self {
        let anchor = source();
        Clock {
            source,
            last: anchor.0.saturating_sub(1),
        }
    }

    /// The later of the source's time and the previous reading plus one millisecond.
    pub fn now(&mut self) -> Timestamp {
        self.last = (self.source)().0.max(self.last + 1);
        Timestamp(self.last)
    }

    /// The previous reading.
    pub fn last(&self) -> Timestamp {
        Timestamp(self.last)
    }

    /// Makes every later reading come after `earlier` (a clock restarted from a saved store).
    pub fn not_before(&mut self, earlier: Timestamp) {
        self.last = self.last.max(earlier.0);
    }
}

/// Counters for every kind of id the agent generates.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
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
    use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

    /// 2026-01-01T00:00:00.000Z in milliseconds since the Unix epoch.
    const START_MILLIS: u64 = 1_767_225_600_000;

    /// A clock whose source returns the value of `wall` (milliseconds).
    fn fake_clock(wall: &Arc<AtomicU64>) -> Clock {
        let wall = Arc::clone(wall);
        Clock::with_source(Arc::new(move || {
            Timestamp(wall.load(AtomicOrdering::SeqCst))
        }))
    }

    #[test]
    fn clock_follows_the_wall_clock_and_is_strictly_increasing() {
        let wall = Arc::new(AtomicU64::new(START_MILLIS));
        let mut clock = fake_clock(&wall);
        // Several readings in the same wall-clock millisecond still differ.
        assert_eq!(clock.now().to_string(), "2026-01-01T00:00:00.000Z");
        assert_eq!(clock.now().to_string(), "2026-01-01T00:00:00.001Z");
        assert_eq!(clock.now().to_string(), "2026-01-01T00:00:00.002Z");
        // The wall clock moving ahead is followed.
        wall.store(START_MILLIS + 60_000, AtomicOrdering::SeqCst);
        assert_eq!(clock.now().to_string(), "2026-01-01T00:01:00.000Z");
        // The wall clock stepping back never makes the clock go back.
        wall.store(START_MILLIS, AtomicOrdering::SeqCst);
        assert_eq!(clock.now().to_string(), "2026-01-01T00:01:00.001Z");
    }

    #[test]
    fn clock_is_anchored_at_creation() {
        let wall = Arc::new(AtomicU64::new(START_MILLIS + 500));
        let mut clock = fake_clock(&wall);
        wall.store(START_MILLIS, AtomicOrdering::SeqCst);
        assert_eq!(clock.now(), Timestamp(START_MILLIS + 500));
    }

    #[test]
    fn system_clock_is_close_to_now_with_millis_and_z() {
        let before = Timestamp::wall_clock();
        let mut clock = Clock::system();
        let first = clock.now();
        let second = clock.now();
        let after = Timestamp::wall_clock();
        assert!(before <= first && first < second, "{first} {second}");
        assert!(second.0 <= after.0 + 1, "{second} {after}");
        let text = first.to_string();
        assert_eq!(text.len(), 24, "{text}");
        assert!(text.ends_with('Z') && text.as_bytes()[19] == b'.', "{text}");
        assert_eq!(Timestamp::parse_rfc3339(&text), Some(first));
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
