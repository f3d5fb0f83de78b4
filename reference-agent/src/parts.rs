//! The parts of the agent its core works with: the binding-neutral service, the streams and
//! the push-config operations see the behaviour policy, the task store, push, the extended
//! cards and the signals of its streams, never the public card, the outgoing-JSON pass or the
//! configuration.

use tokio::sync::watch;

use crate::auth::ExtendedCards;
use crate::policy::Policy;
use crate::push::ops::Push;
use crate::store::Store;

/// A view of the agent's core parts (cheap to copy).
#[derive(Clone, Copy)]
pub struct Core<'a> {
    pub policy: &'a Policy,
    pub store: &'a Store,
    /// The extended cards, in authenticated mode.
    pub extended: Option<&'a ExtendedCards>,
    /// Push configs, when push is on.
    pub push: Option<&'a Push>,
    /// Set to true at shutdown; every open stream ends then.
    pub closing: &'a watch::Sender<bool>,
    /// Tasks one of whose subscriptions was closed by its client.
    pub closed_subscriptions: &'a ClosedSubscriptions,
}

/// The tasks one of whose subscriptions its client closed, and what tells the subscriptions
/// of a task that one of them took an event or ended (the fault `subscribe-close-ends-others`).
pub type ClosedSubscriptions = std::sync::Arc<SubscriptionBoard>;

/// See [`ClosedSubscriptions`].
#[derive(Debug, Default)]
pub struct SubscriptionBoard {
    /// The tasks one of whose subscriptions its client closed.
    pub closed: std::sync::Mutex<std::collections::HashSet<String>>,
    /// Woken when a subscription under the fault takes a live event or ends.
    pub moved: tokio::sync::Notify,
}
