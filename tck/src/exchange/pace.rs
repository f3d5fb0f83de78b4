//! How much the kit asks of the agent at once: a limit on the checks in flight (and on the
//! requests of a check's own batch, [`Pace::slot`]) that starts low, rises while the agent's
//! latency stays flat, and falls when it climbs or the agent shows a sign of load, never above
//! the run's ceiling (`--jobs`). It watches every exchange of the run (an
//! [`Observer`](crate::exchange::evidence::Observer)), and says what it used ([`Concurrency`]).
//!
//! A sign of load ([`load_sign`]) is an answer that says the agent could not serve the request
//! now, as opposed to an answer to the request: no answer at all, or a stream that broke off;
//! HTTP 429, 502, 503 or 504; gRPC DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED or UNAVAILABLE; an
//! internal error (HTTP 500, JSON-RPC -32603, gRPC INTERNAL or UNKNOWN) whose message names
//! contention ("database is locked", "busy", "overloaded", "too many requests", "modified in
//! storage", ...). Any other error answer, a plain 500 or -32603 included, is the agent's
//! verdict on the request, judged as such.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::Semaphore;

use crate::exchange::evidence::Exchange;
use crate::exchange::latency::Operation;

/// The limit a run starts with (or its ceiling, if lower): the load of a busy client, which a
/// fragile agent (one on SQLite, say) bears.
pub const START: usize = 4;

/// The fewest timed answers a round of the pace counts before it moves the limit.
const ROUND: usize = 8;

/// An answer this much slower than the operation's fastest is no sign of a climb (a fast
/// agent's jitter, a scheduler's tick).
const SLACK_MS: u64 = 50;

/// How many reasons for a lowered limit the report keeps.
const REASONS_KEPT: usize = 8;

/// What a run's pace used (the report's `concurrency`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Concurrency {
    /// The most checks it could have run at once (`--jobs`).
    pub ceiling: usize,
    /// How many it started with.
    pub start: usize,
    /// The highest limit it reached.
    pub highest: usize,
    /// Its limit when the run ended.
    pub at_end: usize,
    /// The most checks and batched requests that were in flight at once.
    pub most_in_flight: usize,
    /// Why it lowered the limit, first times first (at most 8).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lowered: Vec<String>,
}

/// The run's pace: the limit, its permits, and what moves it.
#[derive(Debug)]
pub struct Pace {
    ceiling: usize,
    permits: Semaphore,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    start: usize,
    /// Permits that exist (held or free), less those owed.
    limit: usize,
    /// Held permits to retire when they come back (the limit fell below those held).
    owed: usize,
    held: usize,
    most_held: usize,
    highest: usize,
    /// Doubling while flat, until the first climb or sign of load; then one more a round.
    doubling: bool,
    /// Per operation, its fastest answer so far.
    fastest: BTreeMap<Operation, u64>,
    /// This round's timed answers, as (ms, fastest ms of the operation).
    round: Vec<(u64, u64)>,
    /// Whether every permit was held at some moment of this round: a limit the run did not
    /// reach is not raised (a fast agent's run never needed it).
    saturated: bool,
    /// Exchanges still to see before a sign of load lowers the limit again: those in flight
    /// when it was lowered were sent under the old one.
    calm: usize,
    lowered: Vec<String>,
}

impl Pace {
    /// A pace that starts at [`START`] (or `ceiling`, if lower) and never exceeds `ceiling`.
    pub fn new(ceiling: usize) -> Arc<Pace> {
        let ceiling = ceiling.max(1);
        let start = START.min(ceiling);
        Arc::new(Pace {
            ceiling,
            permits: Semaphore::new(start),
            state: Mutex::new(State {
                start,
                limit: start,
                owed: 0,
                held: 0,
                most_held: 0,
                highest: start,
                doubling: true,
                fastest: BTreeMap::new(),
                round: Vec::new(),
                saturated: false,
                calm: 0,
                lowered: Vec::new(),
            }),
        })
    }

    /// One at a time, always: a check run again alone.
    pub fn alone() -> Arc<Pace> {
        Pace::new(1)
    }

    /// The most it allows at once.
    pub fn ceiling(&self) -> usize {
        self.ceiling
    }

    /// Its limit now.
    pub fn limit(&self) -> usize {
        self.state.lock().map_or(1, |s| s.limit)
    }

    /// Waits for a permit (in the order asked for).
    pub async fn acquire(self: &Arc<Pace>) -> Permit {
        if let Ok(permit) = self.permits.acquire().await {
            permit.forget();
        }
        if let Ok(mut state) = self.state.lock() {
            state.held += 1;
            state.most_held = state.most_held.max(state.held);
            state.saturated |= state.held >= state.limit;
        }
        Permit(self.clone())
    }

    /// A slot for one request of a check's batch: the check's own (`own`, one permit: the one
    /// the check holds) or one more of the pace's, whichever frees first. Without a pace, or
    /// with a ceiling of one, the check's own only: its batch goes one at a time.
    pub async fn slot<'a>(pace: Option<&Arc<Pace>>, own: &'a Semaphore) -> Slot<'a> {
        match pace.filter(|p| p.ceiling > 1) {
            Some(pace) => tokio::select! {
                biased;
                Ok(mine) = own.acquire() => Slot::Own(mine),
                borrowed = pace.acquire() => Slot::Borrowed(borrowed),
            },
            None => match own.acquire().await {
                Ok(mine) => Slot::Own(mine),
                Err(_) => Slot::Unlimited,
            },
        }
    }

    /// What it used.
    pub fn concurrency(&self) -> Concurrency {
        let state = self.state.lock();
        match state {
            Ok(s) => Concurrency {
                ceiling: self.ceiling,
                start: s.start,
                highest: s.highest,
                at_end: s.limit,
                most_in_flight: s.most_held,
                lowered: s.lowered.clone(),
            },
            Err(_) => Concurrency {
                ceiling: self.ceiling,
                start: self.ceiling,
                highest: self.ceiling,
                at_end: self.ceiling,
                most_in_flight: 0,
                lowered: Vec::new(),
            },
        }
    }

    fn release(&self) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        state.held = state.held.saturating_sub(1);
        if state.owed > 0 {
            state.owed -= 1;
        } else {
            self.permits.add_permits(1);
        }
    }

    /// Sets the limit to `to` (within 1..=ceiling), giving or retiring permits.
    fn set_limit(&self, state: &mut State, to: usize) {
        let to = to.clamp(1, self.ceiling);
        if to > state.limit {
            let mut more = to - state.limit;
            let repaid = more.min(state.owed);
            state.owed -= repaid;
            more -= repaid;
            self.permits.add_permits(more);
        } else {
            let mut fewer = state.limit - to;
            while fewer > 0 {
                match self.permits.try_acquire() {
                    Ok(free) => {
                        free.forget();
                        fewer -= 1;
                    }
                    Err(_) => break,
                }
            }
            state.owed += fewer;
        }
        state.limit = to;
        state.highest = state.highest.max(to);
    }

    fn lower(&self, state: &mut State, to: usize, why: String) {
        state.doubling = false;
        state.round.clear();
        state.saturated = state.held >= to;
        state.calm = state.limit;
        if to < state.limit {
            if state.lowered.len() < REASONS_KEPT {
                state
                    .lowered
                    .push(format!("{} to {}: {why}", state.limit, to.max(1)));
            }
            self.set_limit(state, to);
        }
    }

    /// Sees one exchange: a sign of load lowers the limit by half; a round of timed answers
    /// lowers it by a quarter when most of them climbed well above their operation's fastest.
    /// While the run uses every permit, the limit rises: by one for each flat answer until the
    /// first fall (doubling each round trip), then by one for each round none of whose answers
    /// climbed.
    fn see(&self, exchange: &Exchange) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let state = &mut *state;
        state.calm = state.calm.saturating_sub(1);
        if let Some(sign) = load_sign(exchange) {
            if state.calm == 0 {
                let to = (state.limit / 2).max(1);
                self.lower(state, to, sign);
            }
            return;
        }
        let Some(sample) = crate::exchange::latency::sample(exchange) else {
            return;
        };
        let fastest = state.fastest.entry(sample.key).or_insert(sample.ms);
        *fastest = (*fastest).min(sample.ms);
        let fastest = *fastest;
        let climbed = |(ms, fastest): &(u64, u64)| *ms > fastest * 2 && *ms > fastest + SLACK_MS;
        // Until the first climb or sign of load, each flat answer while every permit is in
        // use makes room for one more: the limit doubles with each round trip.
        if state.doubling && state.saturated && !climbed(&(sample.ms, fastest)) {
            self.set_limit(state, state.limit + 1);
        }
        state.round.push((sample.ms, fastest));
        if state.round.len() < state.limit.max(ROUND) {
            return;
        }
        let climbs = state.round.iter().filter(|s| climbed(s)).count();
        if climbs * 2 > state.round.len() {
            let mut slow: Vec<u64> = state.round.iter().map(|(ms, _)| *ms).collect();
            slow.sort_unstable();
            let median = slow[slow.len() / 2];
            let to = (state.limit * 3 / 4).max(1);
            let why = format!(
                "{climbs} of {} answers took over twice their operation's fastest (median \
                 {median} ms)",
                state.round.len()
            );
            self.lower(state, to, why);
            return;
        }
        if climbs == 0 && state.saturated && !state.doubling {
            self.set_limit(state, state.limit + 1);
        }
        state.round.clear();
        state.saturated = state.held >= state.limit;
    }
}

impl crate::exchange::evidence::Observer for Pace {
    fn observe(&self, exchange: &Exchange) {
        self.see(exchange);
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
        self
    }
}

/// A permit of the pace, given back when dropped.
#[derive(Debug)]
pub struct Permit(Arc<Pace>);

impl Drop for Permit {
    fn drop(&mut self) {
        self.0.release();
    }
}

/// A slot of a check's batch (see [`Pace::slot`]).
#[derive(Debug)]
pub enum Slot<'a> {
    Own(tokio::sync::SemaphorePermit<'a>),
    Borrowed(Permit),
    /// The check's own slot is closed (never, in practice): no limit.
    Unlimited,
}

/// What in `exchange` says the agent could not serve the request now (see the module's
/// documentation); `None` for an answer to the request, whatever it says.
pub fn load_sign(exchange: &Exchange) -> Option<String> {
    if let Some(error) = &exchange.error {
        // A broken attempt the wire sent again: the outcome is the next exchange.
        if error.ends_with(crate::exchange::wire::RETRIED) {
            return None;
        }
        if exchange.response.is_none() || error.starts_with("the stream broke") {
            return Some(format!("a broken exchange ({})", cut(error, 80)));
        }
    }
    let response = exchange.response.as_ref()?;
    if matches!(response.status, 429 | 502 | 503 | 504) {
        return Some(format!("HTTP {}", response.status));
    }
    let grpc = (response.headers.iter())
        .find(|(k, _)| k == "grpc-status")
        .and_then(|(_, v)| v.split(' ').next()?.parse::<u8>().ok());
    match grpc {
        Some(4) => return Some("gRPC DEADLINE_EXCEEDED".into()),
        Some(8) => return Some("gRPC RESOURCE_EXHAUSTED".into()),
        Some(14) => return Some("gRPC UNAVAILABLE".into()),
        _ => {}
    }
    let body = &response.body;
    let internal = response.status == 500 || matches!(grpc, Some(2 | 13));
    let text = |body: &crate::exchange::evidence::RecordedBody| match (&body.json, &body.text) {
        (Some(json), _) => json.to_string(),
        (None, Some(text)) => text.clone(),
        (None, None) => String::new(),
    };
    if internal {
        if let Some(words) = contention(&text(body)) {
            return Some(format!("an internal error naming contention (\"{words}\")"));
        }
    }
    // JSON-RPC internal errors, in the answer or in a stream's events.
    let rpc_internal = |v: &Value| v.pointer("/error/code").and_then(Value::as_i64) == Some(-32603);
    let events = exchange.events.iter().filter_map(|e| e.data.json.as_ref());
    (body.json.iter().chain(events))
        .filter(|v| rpc_internal(v))
        .find_map(|v| contention(&v["error"].to_string()))
        .map(|words| format!("a JSON-RPC internal error naming contention (\"{words}\")"))
}

/// Words of an error message that name contention, not the request: the first found.
pub fn contention(message: &str) -> Option<&'static str> {
    const PHRASES: &[&str] = &[
        "too many requests",
        "too many connections",
        "rate limit",
        "try again",
        "timed out",
        "modified in storage",
        "connection pool",
    ];
    const STEMS: &[&str] = &[
        "lock",
        "deadlock",
        "busy",
        "overload",
        "contention",
        "contended",
        "throttl",
        "concurren",
        "exhausted",
        "unavailable",
        "timeout",
        "capacity",
        "temporarily",
    ];
    let lower = message.to_lowercase();
    if let Some(phrase) = PHRASES.iter().find(|p| lower.contains(*p)) {
        return Some(phrase);
    }
    lower
        .split(|c: char| !c.is_alphanumeric())
        .find_map(|word| STEMS.iter().find(|stem| word.starts_with(*stem)).copied())
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    fn exchange(status: u16, body: Value, ms: u64) -> Exchange {
        serde_json::from_value(json!({
            "request": {"method": "POST", "url": "http://h/rpc",
                "headers": [["a2a-version", "1.0"]],
                "body": {"bytes": 1, "json": {"jsonrpc": "2.0", "id": 1, "method": "GetTask"}}},
            "response": {"status": status, "headers": [], "body": {"bytes": 1, "json": body}},
            "elapsed_ms": ms
        }))
        .unwrap()
    }

    fn ok(ms: u64) -> Exchange {
        exchange(200, json!({"jsonrpc": "2.0", "id": 1, "result": {}}), ms)
    }

    fn rpc_error(code: i64, message: &str) -> Exchange {
        exchange(
            200,
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": message}}),
            5,
        )
    }

    #[test]
    fn an_error_is_a_sign_of_load_only_when_it_says_so() {
        assert!(load_sign(&rpc_error(-32603, "database is locked")).is_some());
        assert!(load_sign(&rpc_error(-32603, "Session was modified in storage")).is_some());
        assert!(load_sign(&rpc_error(-32603, "Server busy, try later")).is_some());
        assert!(load_sign(&rpc_error(-32603, "Internal error")).is_none());
        assert!(load_sign(&rpc_error(
            -32603,
            "'NoneType' object has no attribute 'role'"
        ))
        .is_none());
        assert!(load_sign(&rpc_error(-32602, "the lock is not a field")).is_none());
        assert!(load_sign(&rpc_error(-32001, "Task not found")).is_none());
        assert!(load_sign(&exchange(500, json!({"error": "boom"}), 5)).is_none());
        assert!(load_sign(&exchange(500, json!({"error": "deadlock detected"}), 5)).is_some());
        assert!(load_sign(&exchange(503, json!({}), 5)).is_some());
        assert!(load_sign(&exchange(429, json!({}), 5)).is_some());
        assert!(load_sign(&exchange(400, json!({"error": "busy"}), 5)).is_none());
        // "blocking" is no lock.
        assert!(contention("a blocking call").is_none());
        let mut broken = ok(5);
        broken.response = None;
        broken.error = Some("connection reset".into());
        assert!(load_sign(&broken).is_some());
        broken.error = Some(format!(
            "connection reset{}",
            crate::exchange::wire::RETRIED
        ));
        assert!(load_sign(&broken).is_none());
        let mut silent = ok(5);
        silent.error = Some("the stream stayed open, silent for 5s".into());
        assert!(load_sign(&silent).is_none());
    }

    /// Takes every permit of `pace` and gives them back: the run used its whole limit.
    async fn saturate(pace: &Arc<Pace>) {
        let all: Vec<Permit> =
            futures::future::join_all((0..pace.limit()).map(|_| pace.acquire())).await;
        drop(all);
    }

    #[tokio::test]
    async fn the_limit_doubles_while_latency_is_flat_and_halves_on_a_sign_of_load() {
        let pace = Pace::new(32);
        assert_eq!(pace.limit(), START);
        for _ in 0..ROUND {
            pace.see(&ok(3000));
        }
        assert_eq!(pace.limit(), START, "a limit the run did not reach stays");
        saturate(&pace).await;
        for _ in 0..START {
            pace.see(&ok(3000));
        }
        assert_eq!(pace.limit(), 8, "doubled in one round trip");
        saturate(&pace).await;
        for _ in 0..8 {
            pace.see(&ok(3010));
        }
        assert_eq!(pace.limit(), 16);
        pace.see(&rpc_error(-32603, "database is locked"));
        assert_eq!(pace.limit(), 8);
        // The requests in flight when it fell were sent under the old limit.
        pace.see(&rpc_error(-32603, "database is locked"));
        assert_eq!(pace.limit(), 8);
        // Then one more a flat round.
        saturate(&pace).await;
        for _ in 0..16 {
            pace.see(&ok(3000));
        }
        assert_eq!(pace.limit(), 9);
        let used = pace.concurrency();
        assert_eq!((used.start, used.highest, used.at_end), (4, 16, 9));
        assert_eq!(used.lowered.len(), 1, "{used:?}");
    }

    #[tokio::test]
    async fn a_climbing_latency_lowers_the_limit_and_a_fast_agents_jitter_does_not() {
        let pace = Pace::new(32);
        saturate(&pace).await;
        for ms in [1, 3, 9, 2] {
            pace.see(&ok(ms));
        }
        assert_eq!(pace.limit(), 8, "jitter within the slack is flat");
        for ms in [30, 1, 4, 7] {
            pace.see(&ok(ms));
        }
        assert_eq!(pace.limit(), 12);
        for _ in 0..16 {
            pace.see(&ok(400));
        }
        assert_eq!(pace.limit(), 9);
    }

    #[tokio::test]
    async fn permits_follow_the_limit() {
        let pace = Pace::new(8);
        let held: Vec<Permit> = futures::future::join_all((0..4).map(|_| pace.acquire())).await;
        assert_eq!(pace.concurrency().most_in_flight, 4);
        // No fifth until one comes back.
        assert!(
            tokio::time::timeout(Duration::from_millis(20), pace.acquire())
                .await
                .is_err()
        );
        {
            let mut state = pace.state.lock().unwrap();
            pace.lower(&mut state, 2, "test".into());
        }
        drop(held);
        let two: Vec<Permit> = futures::future::join_all((0..2).map(|_| pace.acquire())).await;
        assert!(
            tokio::time::timeout(Duration::from_millis(20), pace.acquire())
                .await
                .is_err()
        );
        drop(two);
        let alone = Pace::alone();
        let _mine = alone.acquire().await;
        let own = Semaphore::new(1);
        let first = Pace::slot(Some(&alone), &own).await;
        assert!(matches!(first, Slot::Own(_)));
    }
}
