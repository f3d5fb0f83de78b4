//! Ids in a check's namespace, so checks can run concurrently against one live agent and
//! every message, task and JSON-RPC request of one check is told apart from the others.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// The id source of one check: `<prefix>-<ns>-<n>`, `n` counting from 1. Cheap to clone;
/// clones share the count.
#[derive(Debug, Clone)]
pub struct Ids {
    ns: Arc<str>,
    seq: Arc<AtomicU32>,
}

impl Ids {
    pub fn new(ns: &str) -> Ids {
        Ids {
            ns: Arc::from(ns),
            seq: Arc::new(AtomicU32::new(0)),
        }
    }

    /// The namespace of these ids (one per check's execution).
    pub fn ns(&self) -> &str {
        &self.ns
    }

    /// A fresh id. Scenario prefixes of the official TCK's SUT contract (e.g.
    /// `tck-complete-task`) go first, so agents that dispatch on the prefix see them.
    pub fn next(&self, prefix: &str) -> String {
        let n = self.seq.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{prefix}-{}-{n}", self.ns)
    }
}

/// A fresh random bearer token (128 bits, hex).
pub fn fresh_token() -> String {
    use ring::rand::SecureRandom;
    let mut bytes = [0u8; 16];
    // The system generator does not fail on the platforms the kit runs on; a fixed fallback
    // would still be a valid (if guessable) token for a loopback agent.
    let _ = ring::rand::SystemRandom::new().fill(&mut bytes);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("tck-{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_count() {
        let ids = Ids::new("ns");
        let other = ids.clone();
        assert_eq!(ids.next("a"), "a-ns-1");
        assert_eq!(other.next("b"), "b-ns-2");
    }
}
